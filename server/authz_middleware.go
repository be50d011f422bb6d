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
		sec.s.log.Info("request denied", "method", method, "identity", id.String(), "error", capMessage(err.Error()))
		return nil, sec.callerError(id, req, err)
	}
	secrets := sec.pol.MayReadSecrets(id)
	var mask *secretMasker
	var call *callMask
	if !secrets {
		// Handlers that cut or filter what they return (a file's chunks,
		// "| include") mask first, with this caller's masker; a tool whose
		// output is a JSON tree is masked before it is encoded.
		mask = sec.mask.keeping(callerInput(req))
		call = &callMask{m: mask}
		ctx = context.WithValue(ctx, maskerKey{}, call)
	}
	res, err := next(ctx, method, req)
	if err == nil && isWrite(req) && !isToolError(res) {
		// The configuration may hold new secrets: know them before anyone
		// reads them back. (A refused call, or one held for approval,
		// changed nothing: no need to read the configuration again.)
		sec.learnDeviceSecrets()
	}
	if err != nil {
		if secrets {
			return res, capError(err)
		}
		return nil, mask.rpcError(err)
	}
	res = sec.filterList(res, id)
	sec.tagPrivacy(res)
	if !secrets && !call.done(res) {
		maskResult(mask, res)
	}
	return res, nil
}

// callerError prepares err for id: masked for a caller who may not read
// secrets (keeping what req sent), capped for one who may.
func (sec *Security) callerError(id policy.Identity, req mcp.Request, err error) error {
	if sec.pol.MayReadSecrets(id) {
		return capError(err)
	}
	return sec.mask.keeping(callerInput(req)).rpcError(err)
}

// isWrite reports whether req is a call of a state-changing tool or a
// resources/write.
func isWrite(req mcp.Request) bool {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return policy.IsWriteTool(p.Name)
	case *WriteParams:
		return true
	}
	return false
}

// isToolError reports whether res is a tool result that reports an error
// (an approval-required result is one).
func isToolError(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r.IsError
}

// callerInput returns the strings a request carries (tool and prompt
// arguments, a resource URI): masking leaves them as sent wherever a
// result echoes them.
func callerInput(req mcp.Request) []string {
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		return argumentStrings(p.Arguments)
	case *mcp.ReadResourceParams:
		return []string{p.URI}
	case *mcp.GetPromptParams:
		out := make([]string, 0, len(p.Arguments))
		for _, v := range p.Arguments {
			out = append(out, v)
		}
		return out
	}
	return nil
}

// maskResult masks secrets in a result in place with m.
func maskResult(m *secretMasker, res mcp.Result) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		m.toolResult(r)
	case *readResult:
		m.resourceContents(r.Contents)
	case *mcp.ReadResourceResult:
		m.resourceContents(r.Contents)
	case *mcp.GetPromptResult:
		m.prompt(r)
	}
}

// maskerKey is the context key of the masker of a caller who may not read
// secrets.
type maskerKey struct{}

// callMask is the masking of one call of a caller who may not read
// secrets: its masker, and the result a handler already masked whole.
type callMask struct {
	m      *secretMasker
	masked mcp.Result
}

// done reports whether res is the result the handler masked itself.
func (c *callMask) done(res mcp.Result) bool {
	return c != nil && c.masked != nil && c.masked == res
}

// maskerFrom returns the masker of the caller of ctx, or nil when the
// caller may read secrets (or no access-control layer is installed).
func maskerFrom(ctx context.Context) *secretMasker {
	if c, _ := ctx.Value(maskerKey{}).(*callMask); c != nil {
		return c.m
	}
	return nil
}

// treeResult is implemented by tool results that are generic JSON trees
// held in a struct (network.yang.get's data): jsonTree gives them as one,
// which the masker reads whole.
type treeResult interface{ jsonTree() any }

// maskedToolResult returns the result of a tool whose output is out, masked
// before it is encoded when the caller may not read secrets and out is a
// JSON tree (the masking of the encoded result would decode it again), and
// records that the result needs no further masking. ok is false when the
// result must be made, and masked, as usual.
func maskedToolResult(ctx context.Context, out any) (res *mcp.CallToolResult, ok bool, err error) {
	c, _ := ctx.Value(maskerKey{}).(*callMask)
	if c == nil {
		return nil, false, nil
	}
	if t, ok := out.(treeResult); ok {
		out = t.jsonTree()
	}
	masked, _, whole := c.m.tree(out)
	if !whole {
		return nil, false, nil
	}
	if res, err = toolResult(masked); err != nil {
		return nil, false, err
	}
	c.masked = res
	return res, true, nil
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
