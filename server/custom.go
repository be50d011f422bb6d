package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// WriteParams are the parameters of the custom method resources/write
// (MCP-NET 5.3): the URI and the new text, either as "text" or as MCP
// resource contents.
type WriteParams struct {
	mcp.ParamsBase
	URI      string                  `json:"uri"`
	Text     *string                 `json:"text,omitempty"`
	Contents []*mcp.ResourceContents `json:"contents,omitempty"`
	// ApprovalToken and Consent carry approval evidence, as the arguments
	// of a state-changing tool do (see docs/configuration.md).
	ApprovalToken string          `json:"approvalToken,omitempty"`
	Consent       json.RawMessage `json:"consent,omitempty"`
}

// WriteResult is the result of resources/write.
type WriteResult struct {
	mcp.ResultBase
	URI    string `json:"uri"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
}

// CloseParams are the (empty) parameters of the custom method close (MCP-NET 8.6).
type CloseParams struct{ mcp.ParamsBase }

// CloseResult is the empty result of close.
type CloseResult struct{ mcp.ResultBase }

// addCustomMethods registers resources/write and close.
func (s *Server) addCustomMethods() error {
	if err := mcp.AddReceivingCustomMethod(s.mcp, "resources/write", s.resourcesWrite); err != nil {
		return err
	}
	return mcp.AddReceivingCustomMethod(s.mcp, "close", func(ctx context.Context, ss *mcp.ServerSession, _ *CloseParams) (*CloseResult, error) {
		// End the session once this response is on its way: the
		// request's context ends when its response has been written
		// (however long the layers around this handler take), and Close
		// waits for in-flight requests, this one included.
		go func() {
			<-ctx.Done()
			time.Sleep(10 * time.Millisecond)
			_ = ss.Close()
		}()
		return &CloseResult{}, nil
	})
}

func (s *Server) resourcesWrite(ctx context.Context, ss *mcp.ServerSession, p *WriteParams) (*WriteResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/write needs \"uri\" and \"text\"")
	}
	var name string
	switch p.URI {
	case netproto.URICandidateConfig, netproto.URIStartupConfig:
		name = strings.TrimPrefix(p.URI, netproto.URIFilePrefix)
	default:
		if err := s.knownURI(ctx, p.URI); err != nil {
			return nil, err
		}
		return nil, RPCError(netproto.Errorf(netproto.CodeAccessDenied, "%s is read-only; only %s and %s are writable", p.URI, netproto.URICandidateConfig, netproto.URIStartupConfig))
	}
	if s.files == nil {
		return nil, unavailable(netproto.CodeConfigIncompatible, "resources/write", "the device has no configuration files through this driver")
	}
	var text string
	switch {
	case p.Text != nil:
		text = *p.Text
	case len(p.Contents) == 1:
		text = p.Contents[0].Text
	default:
		return nil, invalidParams("resources/write needs \"text\" or exactly one element in \"contents\"")
	}
	args, _ := json.Marshal(map[string]any{"uri": p.URI, "text": text, "approvalToken": p.ApprovalToken, "consent": p.Consent})
	if err := s.writeFile(ctx, ss, "resources/write", args, name, []byte(text)); err != nil {
		return nil, err
	}
	return &WriteResult{URI: p.URI, SHA256: sha256Hex([]byte(text)), Size: len(text)}, nil
}

// knownURI returns nil if uri names a resource of this server.
func (s *Server) knownURI(ctx context.Context, uri string) error {
	_, err := s.read(ctx, uri, "")
	if e := RPCError(err); e != nil && strings.HasPrefix(e.Message, "unknown resource URI") {
		return e
	}
	return nil
}
