package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/netproto"
)

// session is the state of one inbound MCP session.
type session struct {
	peer peer
	mu   sync.Mutex
	// authorised is the capability intersection, set at initialize.
	authorised []string
	ready      bool
}

func (s *session) caps() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authorised, s.ready
}

// refuse is the JSON-RPC error of a refused D2D call.
func refuse(format string, args ...any) *jsonrpc.Error {
	msg := fmt.Sprintf(format, args...)
	data, _ := json.Marshal(map[string]string{"reason": msg})
	return &jsonrpc.Error{Code: netproto.CodeAccessDenied, Message: "Network.AccessDenied: " + msg, Data: data}
}

// sessionServer builds the MCP server of one inbound session, bound to the
// TLS peer that opened it (called by the Streamable HTTP handler for each
// new session).
func (a *Agent) sessionServer(r *http.Request) *mcp.Server {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil
	}
	p, err := a.verifyPeer(r.TLS.PeerCertificates)
	if err == nil {
		err = a.judgePin(p)
	}
	if err != nil {
		a.log.Warn("d2d session refused", "err", err)
		return nil
	}
	st := &session{peer: p}
	offer := Offer{Capabilities: a.cfg.Offer, Binding: &a.binding}
	opts := &mcp.ServerOptions{
		Logger: a.log,
		Capabilities: &mcp.ServerCapabilities{
			Tools:        &mcp.ToolCapabilities{},
			Resources:    &mcp.ResourceCapabilities{Subscribe: a.cfg.LocalUpdates != nil},
			Experimental: offer.asExperimental(),
		},
	}
	var srv *mcp.Server
	if a.cfg.LocalUpdates != nil {
		opts.SubscribeHandler, opts.UnsubscribeHandler = a.subscribeHandlers(st, &srv)
	}
	srv = mcp.NewServer(&mcp.Implementation{Name: "netmcp-agent", Title: a.name, Version: "1"}, opts)
	if p.role == RoleDevice {
		a.addNeighbourTools(srv, st)
	} else {
		a.addOperatorTools(srv, st)
	}
	srv.AddReceivingMiddleware(a.guard(st))
	return srv
}

// guard negotiates at initialize and enforces the authorised set on every
// later request of a neighbour's session.
func (a *Agent) guard(st *session) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "initialize":
				if st.peer.role == RoleDevice {
					if err := a.allowed(ctx); err != nil {
						a.auditCall(st.peer.name, "", method, "", nil, nil, time.Now(), refuse("%v", err))
						return nil, refuse("%v", err)
					}
					var exp map[string]any
					if ip, ok := req.GetParams().(*mcp.InitializeParams); ok && ip != nil && ip.Capabilities != nil {
						exp = ip.Capabilities.Experimental
					}
					theirs, err := offerFrom(exp)
					if err != nil {
						return nil, refuse("%s: %v", st.peer.name, err)
					}
					auth := Intersect(a.cfg.Offer, theirs.Capabilities)
					if len(auth) == 0 {
						return nil, refuse("no capability in common with %s (we offer [%s], it offers [%s])", st.peer.name,
							strings.Join(a.cfg.Offer, ", "), strings.Join(theirs.Capabilities, ", "))
					}
					st.mu.Lock()
					st.authorised, st.ready = auth, true
					st.mu.Unlock()
					a.log.Info("d2d session", "peer", st.peer.name, "authorised", auth)
				} else {
					st.mu.Lock()
					st.ready = true
					st.mu.Unlock()
				}
				return next(ctx, method, req)
			case "tools/call":
				cp, ok := req.GetParams().(*mcp.CallToolParamsRaw)
				if !ok || cp == nil {
					return nil, refuse("malformed tools/call")
				}
				if end := st.peer.cert.NotAfter; !a.cfg.Now().Before(end.Add(sign.MaxClockSkew)) {
					return nil, refuse("%s's certificate expired at %s", st.peer.name, end.UTC().Format(time.RFC3339))
				}
				start := time.Now()
				res, err := a.admitCall(ctx, st, method, req, cp, next)
				a.auditCall(st.peer.name, req.GetSession().ID(), method, cp.Name, cp.Arguments, cp.Meta, start, err)
				return res, err
			case "tools/list":
				res, err := next(ctx, method, req)
				if err != nil || st.peer.role != RoleDevice {
					return res, err
				}
				caps, _ := st.caps()
				allowed := toolsFor(caps)
				lr := res.(*mcp.ListToolsResult)
				lr.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool { return !slices.Contains(allowed, t.Name) })
				return lr, nil
			}
			return next(ctx, method, req)
		}
	}
}

// admitCall enforces a neighbour's authorised set on one tools/call.
func (a *Agent) admitCall(ctx context.Context, st *session, method string, req mcp.Request, cp *mcp.CallToolParamsRaw, next mcp.MethodHandler) (mcp.Result, error) {
	if st.peer.role != RoleDevice {
		return next(ctx, method, req)
	}
	caps, ready := st.caps()
	if !ready {
		return nil, refuse("session not initialized")
	}
	if err := a.allowed(ctx); err != nil {
		return nil, refuse("%v", err)
	}
	if err := authorise(caps, cp.Name, cp.Arguments); err != nil {
		a.log.Warn("d2d call refused", "peer", st.peer.name, "tool", cp.Name, "err", err)
		return nil, refuse("%s may not call this on %s: %v", st.peer.name, a.name, err)
	}
	return next(ctx, method, req)
}

// allowed applies Config.Gate.
func (a *Agent) allowed(ctx context.Context) error {
	if a.cfg.Gate == nil {
		return nil
	}
	return a.cfg.Gate.Allow(ctx)
}

// asRPCError returns err's JSON-RPC error, if it is one.
func asRPCError(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return nil
}

// addNeighbourTools registers, on a neighbour's session, the device tools
// of every capability this agent offers (proxied to the device, results
// signed) and d2d.neighbors; the guard admits only the intersection.
func (a *Agent) addNeighbourTools(srv *mcp.Server, st *session) {
	for _, name := range toolsFor(a.cfg.Offer) {
		if name == ToolNeighbors {
			srv.AddTool(&mcp.Tool{Name: ToolNeighbors, Description: "this device's D2D neighbours (LLDP), signed",
				InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					body, err := a.neighborsBody(ctx)
					return a.signedResult(st.peer.name, ToolNeighbors, req.Params.Arguments, body, err)
				})
			continue
		}
		if name == ToolAttest {
			srv.AddTool(&mcp.Tool{Name: ToolAttest, Description: "countersign a report of the caller's carrying this device's results (checked against those issued to the caller for no other report)",
				InputSchema: map[string]any{"type": "object", "required": []string{"report"}, "properties": map[string]any{"report": map[string]any{"type": "object"}}},
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return a.attest(st.peer.name, req.Params.Arguments)
				})
			continue
		}
		t, ok := a.tools[name]
		if !ok {
			continue // the device has no such tool (e.g. no capture)
		}
		tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}
		srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			body, err := a.callDevice(ctx, tool.Name, req.Params.Arguments)
			return a.signedResult(st.peer.name, tool.Name, req.Params.Arguments, body, err)
		})
	}
}

// callDevice calls a tool of the local device and returns its result body.
// A tool error is returned as err (and signed as {"error": ...}).
func (a *Agent) callDevice(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
	var argv any = map[string]any{}
	if len(args) > 0 {
		argv = args
	}
	res, err := a.cfg.Local.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: argv})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("%s", textOf(res))
	}
	if res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	return json.Marshal(map[string]string{"text": textOf(res)})
}

func textOf(r *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

// signResult signs a result body (or error) of this device for caller.
func (a *Agent) signResult(caller, tool string, args json.RawMessage, body json.RawMessage, callErr error) (sign.Result, error) {
	if callErr != nil {
		body, _ = json.Marshal(map[string]string{"error": callErr.Error()})
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	cargs, err := sign.Canonical(args)
	if err != nil {
		return sign.Result{}, err
	}
	r := sign.Result{Caller: caller, Tool: tool, Args: cargs, Body: body}
	if err := a.cfg.Signer.Sign(&r); err != nil {
		return sign.Result{}, err
	}
	if caller != a.name {
		a.issued.add(r, a.cfg.Now())
	}
	return r, nil
}

// signedResult is signResult as a tool result: the signed result is the
// structured content (and its JSON the text); a tool error stays an error.
func (a *Agent) signedResult(caller, tool string, args json.RawMessage, body json.RawMessage, callErr error) (*mcp.CallToolResult, error) {
	r, err := a.signResult(caller, tool, args, body, callErr)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(r)
	return &mcp.CallToolResult{StructuredContent: r, IsError: callErr != nil, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

// neighborsBody is the d2d.neighbors result: the neighbours with their TLV.
func (a *Agent) neighborsBody(ctx context.Context) (json.RawMessage, error) {
	ns, err := a.Discover(ctx)
	if err != nil {
		return nil, err
	}
	type entry struct {
		Name           string `json:"name"`
		LocalInterface string `json:"localInterface,omitempty"`
		PortID         string `json:"portId,omitempty"`
		Address        string `json:"address,omitempty"`
		TLV            string `json:"tlv"`
	}
	out := []entry{}
	for _, n := range ns {
		out = append(out, entry{n.Name, n.LocalInterface, n.PortID, n.Address, n.Advert.Hex()})
	}
	return json.Marshal(map[string]any{"neighbors": out})
}

// addOperatorTools registers an operator's tools: d2d.ask and the reports.
func (a *Agent) addOperatorTools(srv *mcp.Server, st *session) {
	srv.AddTool(&mcp.Tool{Name: ToolAsk, Description: "run a D2D troubleshooting intent from this device and return the signed report",
		InputSchema: map[string]any{"type": "object", "required": []string{"intent"}, "additionalProperties": false,
			"properties": map[string]any{"intent": map[string]any{"type": "string", "minLength": 1, "maxLength": 1024,
				"description": "e.g. verify packet loss on the path from r1 to r3 via r2"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Intent string `json:"intent"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Intent == "" {
				return nil, fmt.Errorf("d2d.ask: an intent is required")
			}
			rep, err := a.Ask(ctx, in.Intent)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			a.addReportResource(srv, rep)
			b, _ := json.Marshal(rep)
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: ToolRevoke, Description: "withdraw a peer's D2D authorization: its calls in flight are cancelled and it stays untrusted",
		InputSchema: map[string]any{"type": "object", "required": []string{"peer"}, "additionalProperties": false,
			"properties": map[string]any{"peer": map[string]any{"type": "string", "minLength": 1, "maxLength": 253},
				"reason": map[string]any{"type": "string", "maxLength": 512}}}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Peer, Reason string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Peer == "" {
				return nil, fmt.Errorf("d2d.revoke: a peer is required")
			}
			if in.Reason == "" {
				in.Reason = "by operator " + st.peer.name
			}
			a.Revoke(in.Peer, in.Reason)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Peer + " revoked: " + in.Reason}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: ToolMitigate, Description: "apply this device's mitigation proposal of a signed D2D report (e.g. remove the ACL entry it blames) as a confirmed commit through the device's approval gate, verify the path again, and confirm or roll back; nothing changes without consent",
		InputSchema: map[string]any{"type": "object", "required": []string{"report"}, "additionalProperties": false,
			"properties": map[string]any{"report": map[string]any{"type": []string{"object", "string"}, "description": "the signed report, or the id or URI of one this agent holds"},
				"consent": map[string]any{"type": "boolean", "description": "the operator consents to the proposed change (its diff is in the report)"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Report  json.RawMessage `json:"report"`
				Consent bool            `json:"consent"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || len(in.Report) == 0 {
				return nil, fmt.Errorf("d2d.mitigate: a report is required")
			}
			var rep report.Report
			var id string
			if json.Unmarshal(in.Report, &id) == nil {
				r, err := a.reports.Get(id)
				if err != nil {
					return nil, fmt.Errorf("d2d.mitigate: %v", err)
				}
				rep = r
			} else if r, err := report.Parse(in.Report); err != nil {
				return nil, fmt.Errorf("d2d.mitigate: the report: %v", err)
			} else {
				rep = r
			}
			consent := ""
			if in.Consent {
				consent = "operator:" + st.peer.name
			}
			// The device's gate may ask this operator (MitigationOf).
			res, err := a.Mitigate(context.WithValue(ctx, operatorKey{}, req.Session), rep, consent)
			b, _ := json.Marshal(res)
			if err != nil {
				return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: res.Result}}}, nil
		})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: report.URIPrefix + "{id}", Name: "d2d-report", MIMEType: "application/json",
		Description: "a roll-up report of a device-to-device collaboration"}, a.readReport)
	for _, r := range a.reports.List() {
		a.addReportResource(srv, r)
	}
}

func (a *Agent) addReportResource(srv *mcp.Server, r report.Report) {
	srv.AddResource(&mcp.Resource{URI: r.URI, Name: "report-" + r.ID, MIMEType: "application/json",
		Description: "D2D report of " + r.Creator + ": " + r.Intent}, a.readReport)
}

func (a *Agent) readReport(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	r, err := a.reports.Get(req.Params.URI)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}
