package server

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// middleware is the receiving middleware of the access-control layer. For
// each message it: finds the caller's identity; records the request;
// checks the session binding, the limits and the policy; runs the request;
// filters list results to what the caller may use; masks secrets in the
// result unless the caller may read them; tags resource contents with
// their privacy level; and records the response.
func (sec *Security) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		id := sec.identityOf(req)
		ss, _ := req.GetSession().(*mcp.ServerSession)
		call := sec.newAuditCall(ss, id, method, req)
		if err := call.request(); err != nil {
			return nil, RPCError(netproto.Errorf(netproto.CodeAccessDenied, "%s: %v", method, errAuditUnavailable))
		}
		res, err := sec.handle(ctx, method, req, ss, id, next)
		call.response(res, err, time.Since(start))
		return res, err
	}
}

// handle runs one request for id.
func (sec *Security) handle(ctx context.Context, method string, req mcp.Request, ss *mcp.ServerSession, id policy.Identity, next mcp.MethodHandler) (mcp.Result, error) {
	if err := sec.bind(ss, id); err != nil {
		return nil, RPCError(err)
	}
	ctx = policy.WithIdentity(ctx, id)
	if strings.HasPrefix(method, "notifications/") {
		return next(ctx, method, req)
	}
	release, err := sec.admit(method, ss, id)
	if err != nil {
		return nil, RPCError(err)
	}
	defer release()
	if err := sec.authorize(req, id); err != nil {
		sec.s.log.Info("request denied", "method", method, "identity", id.String(), "error", err)
		return nil, RPCError(err)
	}
	res, err := next(ctx, method, req)
	secrets := sec.pol.MayReadSecrets(id)
	if err != nil {
		if secrets {
			return res, err
		}
		return nil, sec.mask.rpcError(err)
	}
	res = sec.filterList(res, id)
	sec.tagPrivacy(res)
	if !secrets {
		sec.maskResult(res)
	}
	return res, nil
}

// maskResult masks secrets in a result in place.
func (sec *Security) maskResult(res mcp.Result) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		sec.mask.toolResult(r)
	case *readResult:
		sec.mask.resourceContents(r.Contents)
	case *mcp.ReadResourceResult:
		sec.mask.resourceContents(r.Contents)
	case *mcp.GetPromptResult:
		sec.mask.prompt(r)
	}
}

// tagPrivacy sets _meta.privacyLevel on the contents of a resources/read result.
func (sec *Security) tagPrivacy(res mcp.Result) {
	var cs []*mcp.ResourceContents
	switch r := res.(type) {
	case *readResult:
		cs = r.Contents
	case *mcp.ReadResourceResult:
		cs = r.Contents
	}
	for _, c := range cs {
		if c != nil {
			c.Meta = withPrivacy(c.Meta, c.URI)
		}
	}
}
