package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
)

// Identity sources and roles of the controller's hosts (the
// host's identity and the controller's policy decide what it may call;
// troubleshooting draft 7.3: the host never reaches a device but through
// the controller's tools and policy).
const (
	// sourceStdio is the source of the local user of a stdio controller.
	sourceStdio = "stdio"
	// RoleHTTPHost is the role HTTP hosts get when the controller has no
	// policy file: every read tool, the diagnostics, ask, submit_report
	// and every resource, on every device; no write tool.
	RoleHTTPHost = "http-host"
)

// AuditFile is the name of the controller's audit log in its reports
// directory (`controller serve --audit` names another).
const AuditFile = "controller-audit.jsonl"

// AccessOptions configure who may call what on the controller's server
// (Server.SetAccess).
type AccessOptions struct {
	// Policy is the policy file (package policy's format, with device:
	// scopes). Nil means defaultHostPolicy: HTTP hosts may read and
	// diagnose but not write; the stdio user may do everything.
	Policy *policy.Policy
	// Verifier checks bearer tokens on HTTP (the policy's jwt section);
	// nil refuses them.
	Verifier *policy.Verifier
	// Audit receives a record of every host call and its outcome, refusals
	// included; nil keeps none.
	Audit *audit.Log
	// LocalUser is the subject of the stdio identity ("local" when empty).
	LocalUser string
}

// defaultHostPolicy is the policy of a controller served without a
// policy file: mTLS, bearer-token and unauthenticated HTTP hosts get
// RoleHTTPHost (read tools, diagnostics, ask, submit_report, resources; no
// write tool through call_device_tool). The stdio user gets admin
// (SetAccess): it started the controller and holds its credentials.
func defaultHostPolicy() *policy.Policy {
	host := []string{"resource:*", "yang:*", "tool:" + ToolAsk, "tool:" + ToolSubmitReport}
	for _, t := range append([]string{netproto.ToolYangGet, netproto.ToolCLIExec, netproto.ToolFilePull, netproto.ToolCapture}, policy.DiagnosticTools...) {
		host = append(host, "tool:"+t)
	}
	p, err := policy.New(policy.File{
		Roles:        map[string][]string{RoleHTTPHost: host},
		DefaultRoles: map[string][]string{policy.SourceMTLS: {RoleHTTPHost}, policy.SourceJWT: {RoleHTTPHost}, policy.SourceAnonymous: {RoleHTTPHost}},
	})
	if err != nil {
		panic(err) // built-in definitions are valid
	}
	return p
}

// access is the access-control state of a Server.
type access struct {
	pol      *policy.Policy
	verifier *policy.Verifier
	audit    *audit.Log
	local    policy.Identity
	pending  policy.RequestIdentities // of the HTTP requests being served (its own lock)

	mu       sync.Mutex
	sessions map[string]policy.Identity // session id -> the identity it is bound to
}

func newAccess(o AccessOptions) *access {
	pol := o.Policy
	if pol == nil {
		pol = defaultHostPolicy()
	}
	user := o.LocalUser
	if user == "" {
		user = "local"
	}
	a := &access{pol: pol, verifier: o.Verifier, audit: o.Audit, sessions: map[string]policy.Identity{}}
	a.local = pol.Resolve(user, sourceStdio, nil)
	if len(a.local.Roles) == 0 {
		// The policy does not map the local user: it started the
		// controller and holds the fleet's credentials.
		a.local.Roles = []string{policy.RoleAdmin}
	}
	return a
}

// SetAccess installs the policy, token verifier and audit log of the
// server. Call it before any host connects; without it the server uses
// defaultHostPolicy and keeps no audit log.
func (s *Server) SetAccess(o AccessOptions) {
	s.acc = newAccess(o)
}

// LocalIdentity is the identity of the stdio (and in-process) host.
func (s *Server) LocalIdentity() policy.Identity { return s.acc.local }

// HTTPHandler authenticates every HTTP request before next (the
// Streamable HTTP handler) sees it: a bearer token (verified with
// AccessOptions.Verifier; 401 when invalid or when none is accepted), else
// a client certificate verified by the TLS layer (mutual TLS: its subject
// CN), else anonymous. A request naming a session bound to another
// identity gets 403.
func (s *Server) HTTPHandler(next http.Handler) http.Handler {
	a := s.acc
	// The RFC 9728 protected-resource metadata, as netmcp serve publishes
	// it, when the policy accepts bearer tokens: a host's OAuth client
	// finds the authorization server and scopes there.
	var meta http.Handler
	if md, err := a.pol.ResourceMetadata(); err == nil && a.verifier != nil {
		meta = policy.MetadataHandler(md)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if policy.ServeWellKnown(meta, w, r) {
			return
		}
		id, why := a.authenticateHTTP(r)
		if why != "" {
			challenge := `Bearer error="invalid_token"`
			if meta != nil {
				challenge = fmt.Sprintf("Bearer resource_metadata=%q, error=\"invalid_token\"", policy.MetadataURL(r))
			}
			w.Header().Set("WWW-Authenticate", challenge)
			a.auditRefusal(r, "", http.StatusUnauthorized, why)
			http.Error(w, why, http.StatusUnauthorized)
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
			if owner, ok := a.bound(sid); ok && owner.String() != id.String() {
				why := fmt.Sprintf("Forbidden: this session belongs to another identity than %s", id)
				a.auditRefusal(r, id.String(), http.StatusForbidden, why)
				http.Error(w, why, http.StatusForbidden)
				return
			}
		}
		defer a.pending.Hold(r, id)()
		next.ServeHTTP(w, r)
	})
}

// maxRefusalReason bounds the reason an audit record of an HTTP refusal
// carries (a token's parse error may be long).
const maxRefusalReason = 256

// auditRefusal records an HTTP request refused before any MCP handler saw
// it (401: no identity; 403: a session of another identity), with its
// status as error code, its reason and the peer's address. The records
// are not synced one by one: nothing ran, and a peer that authenticates
// as no one must not make the controller sync its disk per request.
func (a *access) auditRefusal(r *http.Request, identity string, status int, why string) {
	if a.audit == nil {
		return
	}
	if len(why) > maxRefusalReason {
		why = strings.ToValidUTF8(why[:maxRefusalReason], "") + "..."
	}
	args, _ := json.Marshal(map[string]string{"error": why, "remote": r.RemoteAddr, "http": r.Method + " " + r.URL.Path})
	_, _ = a.audit.Append(audit.Record{Kind: audit.KindResponse, Method: "http", Identity: identity,
		Outcome: audit.OutcomeError, ErrorCode: status, Arguments: args})
}

// authenticateHTTP returns the identity of r (a bearer token, a client
// certificate, else anonymous), or why it is refused.
func (a *access) authenticateHTTP(r *http.Request) (policy.Identity, string) {
	id, ok, err := a.pol.AuthenticateHTTP(a.verifier, r)
	if err != nil {
		return policy.Identity{}, err.Error()
	}
	if !ok {
		id = a.pol.Resolve("", policy.SourceAnonymous, nil)
	}
	return id, ""
}

// bound returns the identity a session is bound to.
func (a *access) bound(sessionID string) (policy.Identity, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, ok := a.sessions[sessionID]
	return id, ok
}

// identityOf returns who sent req: the identity HTTPHandler authenticated
// for this HTTP request, else the identity its session is bound to, else
// anonymous for an HTTP request that did not pass HTTPHandler, else (stdio,
// in-process) the local user. It binds the session to that identity at its
// first request and refuses a request of another identity on it.
func (a *access) identityOf(req mcp.Request) (policy.Identity, error) {
	sid := ""
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ss != nil {
		sid = ss.ID()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	bound, isBound := a.sessions[sid]
	isBound = isBound && sid != ""
	id := a.local
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		var held bool
		if id, held = a.pending.Of(ex.Header); !held {
			id = a.pol.Resolve("", policy.SourceAnonymous, nil)
			if isBound {
				id = bound
			}
		}
	}
	switch {
	case sid == "":
		return id, nil
	case !isBound:
		a.sessions[sid] = id
		go func() { // forget the binding with the session
			_ = ss.Wait()
			a.mu.Lock()
			delete(a.sessions, sid)
			a.mu.Unlock()
		}()
	case bound.String() != id.String():
		return id, netproto.Errorf(netproto.CodeAccessDenied, "session %s belongs to %s; a request of %s on it is refused (open your own session)", sid, bound, id)
	}
	return id, nil
}

// identityKey is the context key of the host's identity.
type identityKey struct{}

// hostIdentity returns the identity the access middleware found for the
// request of ctx (the local user when none: a handler called directly).
func (s *Server) hostIdentity(ctx context.Context) policy.Identity {
	if id, ok := ctx.Value(identityKey{}).(policy.Identity); ok {
		return id
	}
	return s.acc.local
}

// deviceOf returns the policy's view of a fleet device.
func deviceOf(d *client.Device) policy.Device {
	inv := d.Inventory()
	return policy.Device{Name: d.Name(), Site: inv.Site, Role: inv.Role, Tags: inv.Tags}
}

// authorizeDeviceCall decides whether the host may call tool with args on
// d: the tool itself, and for network.yang.get and network.yang.edit
// their paths (read, write).
func (s *Server) authorizeDeviceCall(id policy.Identity, d *client.Device, tool string, args map[string]any) error {
	dev := deviceOf(d)
	if err := s.acc.pol.DecideOn(id, dev, policy.Action{Kind: policy.CallTool, Tool: tool}); err != nil {
		return err
	}
	switch netproto.CanonicalName(tool) {
	case netproto.ToolYangGet:
		if p, ok := args["path"].(string); ok && p != "" {
			return s.acc.pol.DecideOn(id, dev, policy.Action{Kind: policy.ReadPath, Path: p})
		}
	case netproto.ToolCLIExec:
		// A clear or reset command is the write clear-counters is,
		// whatever tool carries it, as the devices judge it.
		if cmd, ok := args["cmd"].(string); ok && server.IsCounterClear(cmd) {
			if err := s.acc.pol.DecideOn(id, dev, policy.Action{Kind: policy.CallTool, Tool: netproto.ToolClearCounters}); err != nil {
				return prefixDenial(fmt.Sprintf("%s runs a clear or reset command only as %s", tool, netproto.ToolClearCounters), err)
			}
		}
	case netproto.ToolYangEdit:
		ops, _ := args["edit"].([]any)
		for _, op := range ops {
			m, _ := op.(map[string]any)
			if p, ok := m["path"].(string); ok && p != "" {
				if err := s.acc.pol.DecideOn(id, dev, policy.Action{Kind: policy.WritePath, Path: p}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// prefixDenial puts why in front of the detail of a -32083 refusal.
func prefixDenial(why string, err error) error {
	var ne *netproto.Error
	if !errors.As(err, &ne) {
		return err
	}
	out := *ne
	out.Detail = why + "; " + ne.Detail
	return &out
}

// authorizeDeviceRead decides whether the host may read the device
// resource uri (mcp://<device>/<path>): the resource, and the YANG path
// it reads.
func (s *Server) authorizeDeviceRead(id policy.Identity, d *client.Device, uri, path string) error {
	dev := deviceOf(d)
	if err := s.acc.pol.DecideOn(id, dev, policy.Action{Kind: policy.ReadResource, URI: uri}); err != nil {
		return err
	}
	return s.acc.pol.DecideOn(id, dev, policy.Action{Kind: policy.ReadPath, Path: path})
}

// authorizeRead decides whether the host of ctx may read a resource that
// belongs to no one device (the saved reports), as a JSON-RPC error.
func (s *Server) authorizeRead(ctx context.Context, uri string) error {
	if err := s.acc.pol.Decide(s.hostIdentity(ctx), policy.Action{Kind: policy.ReadResource, URI: uri}); err != nil {
		return rpcError(err)
	}
	return nil
}

// authorizeSubmit decides whether the host may submit a D2D report: the
// submit_report tool, and the report's creator, when it is a device of
// the fleet, must be one the host reaches.
func (s *Server) authorizeSubmit(id policy.Identity, raw json.RawMessage) error {
	if err := s.acc.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: ToolSubmitReport}); err != nil {
		return err
	}
	var head struct {
		Creator string `json:"creator"`
	}
	_ = json.Unmarshal(raw, &head)
	if s.ctl.Fleet == nil || head.Creator == "" {
		return nil
	}
	if d := s.ctl.Fleet.Device(head.Creator); d != nil && !s.reaches(id, d) {
		return netproto.Errorf(netproto.CodeAccessDenied, "calling tool %s denied: the report was made by device %s (%s), which no role of %s reaches",
			ToolSubmitReport, head.Creator, deviceOf(d).Attributes(), id)
	}
	return nil
}

// reaches reports whether the host may see d (list_devices).
func (s *Server) reaches(id policy.Identity, d *client.Device) bool {
	return s.acc.pol.Reaches(id, deviceOf(d))
}

// authorizeAsk decides whether the host may ask intent: the ask tool, and
// every fleet device the intent names must be one the host reaches.
func (s *Server) authorizeAsk(id policy.Identity, in controller.Intent) error {
	if err := s.acc.pol.Decide(id, policy.Action{Kind: policy.CallTool, Tool: ToolAsk}); err != nil {
		return err
	}
	if s.ctl.Fleet == nil {
		return nil
	}
	for _, name := range []string{in.Source, in.Destination, in.Via, in.Device} {
		if d := s.ctl.Fleet.Device(name); d != nil && !s.reaches(id, d) {
			return netproto.Errorf(netproto.CodeAccessDenied, "calling tool %s denied: the intent names device %s (%s), which no role of %s reaches",
				ToolAsk, name, deviceOf(d).Attributes(), id)
		}
	}
	return nil
}

// limitRemediation records, on a report whose changes the host may not
// apply itself (network.yang.edit on each changed device), why: the
// report's fix is a proposal this host cannot carry out through
// call_device_tool.
func (s *Server) limitRemediation(id policy.Identity, rep *controller.Report) {
	if len(rep.ProposedChanges) == 0 || rep.Remediation != nil || s.ctl.Fleet == nil {
		return
	}
	for _, c := range rep.ProposedChanges {
		d := s.ctl.Fleet.Device(c.Device)
		if d == nil {
			continue
		}
		if err := s.acc.pol.DecideOn(id, deviceOf(d), policy.Action{Kind: policy.CallTool, Tool: netproto.ToolYangEdit}); err != nil {
			rep.Remediation = &controller.Remediation{Consent: "denied", Result: "not applied: " + detailOf(err)}
			return
		}
	}
}

// detailOf returns the detail of an MCP-NET error, or its text.
func detailOf(err error) string {
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return ne.Detail
	}
	return err.Error()
}

// rpcError turns an MCP-NET error (a refusal) into the JSON-RPC error the
// host receives: the draft's code and name, the detail in its data (as
// `netmcp serve` refuses). Other errors are returned as they are.
func rpcError(err error) error {
	var ne *netproto.Error
	if !errors.As(err, &ne) {
		return err
	}
	data, _ := json.Marshal(ne.ErrorData)
	return &jsonrpc.Error{Code: int64(ne.Code), Message: ne.Message() + ": " + ne.Detail, Data: data}
}

// accessMiddleware finds the host's identity for every request, binds its
// session, carries the identity and a correlation id to the handlers, and
// records each tools/call and resources/read with its outcome in the audit
// log (refusals with their reason).
func (s *Server) accessMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		id, err := s.acc.identityOf(req)
		if method != "tools/call" && method != "resources/read" {
			if err != nil {
				return nil, rpcError(err)
			}
			return next(context.WithValue(ctx, identityKey{}, id), method, req)
		}
		start := time.Now()
		// The correlation id carried to the devices: the host's, when it
		// is a sane one no other session's request in progress uses, else
		// one the controller makes. Devices name it in the approval
		// questions this request causes (relay.go).
		ss, _ := req.GetSession().(*mcp.ServerSession)
		corr, done := s.relay.begin(hostCorrelation(req), ss, id)
		defer done()
		rec, aerr := s.auditRequest(req, method, id, corr)
		ctx = client.WithCorrelationID(ctx, corr)
		if err == nil && aerr != nil {
			// A call that cannot be recorded is not made.
			err = netproto.Errorf(netproto.CodeAccessDenied, "%s: the controller's audit log cannot be written; the request was refused", method)
		}
		if err == nil {
			var res mcp.Result
			res, err = next(context.WithValue(ctx, identityKey{}, id), method, req)
			if err == nil {
				s.auditResponse(rec, res, nil, time.Since(start))
				return res, nil
			}
		}
		err = rpcError(err)
		s.auditResponse(rec, nil, err, time.Since(start))
		return nil, err
	}
}

// hostCorrelation returns the correlation id a host's request carries in
// _meta, when it is printable ASCII of at most netproto.MaxCorrelationID
// bytes (as the devices require); "" otherwise: the id is written into
// every audit record of the request, here and on the devices.
func hostCorrelation(req mcp.Request) string {
	var meta map[string]any
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		meta = p.GetMeta()
	case *mcp.ReadResourceParams:
		meta = p.GetMeta()
	}
	id, _ := meta[netproto.MetaCorrelationID].(string)
	if !validCorrelation(id) {
		return ""
	}
	return id
}

// validCorrelation reports whether id is a correlation id the audit logs
// take: printable ASCII of 1 to netproto.MaxCorrelationID bytes.
func validCorrelation(id string) bool {
	if id == "" || len(id) > netproto.MaxCorrelationID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// auditRequest records a host's call (its device and device tool, never
// the device tool's arguments, which may hold secrets) under correlation
// id corr and returns the record to complete with the response, and
// whether it could be written. A call that changes a device reaches the
// disk before it is made.
func (s *Server) auditRequest(req mcp.Request, method string, id policy.Identity, corr string) (audit.Record, error) {
	rec := audit.Record{Kind: audit.KindRequest, Method: method, Identity: id.String(), Correlation: corr}
	if ss, _ := req.GetSession().(*mcp.ServerSession); ss != nil {
		rec.Session = ss.ID()
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		rec.Tool = p.Name
		var in struct {
			Device    string          `json:"device"`
			Tool      string          `json:"tool"`
			Intent    string          `json:"intent"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(p.Arguments, &in)
		args := map[string]string{}
		for k, v := range map[string]string{"device": in.Device, "tool": in.Tool, "intent": in.Intent} {
			if v != "" {
				args[k] = v
			}
		}
		if len(args) > 0 {
			rec.Arguments, _ = json.Marshal(args)
		}
		var exec struct {
			Cmd string `json:"cmd"`
		}
		_ = json.Unmarshal(in.Arguments, &exec)
		rec.Durable = p.Name == ToolCallDeviceTool && (policy.IsWriteTool(in.Tool) || server.IsCounterClear(exec.Cmd))
	case *mcp.ReadResourceParams:
		rec.Tool = p.URI
	}
	if s.acc.audit != nil {
		if _, err := s.acc.audit.Append(rec); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// auditResponse records the outcome of a host's call; a refusal (or any
// error) carries its code and, in arguments, its reason.
func (s *Server) auditResponse(req audit.Record, res mcp.Result, err error, took time.Duration) {
	if s.acc.audit == nil {
		return
	}
	rec := audit.Record{Kind: audit.KindResponse, Session: req.Session, Identity: req.Identity, Correlation: req.Correlation,
		Method: req.Method, Tool: req.Tool, Outcome: audit.OutcomeOK, DurationMS: float64(took.Microseconds()) / 1000}
	if r, ok := res.(*mcp.CallToolResult); ok && r.IsError {
		rec.Outcome = audit.OutcomeError
	}
	if err != nil {
		rec.Outcome = audit.OutcomeError
		why := err.Error()
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			rec.ErrorCode = int(je.Code)
			if je.Code == netproto.CodeAccessDenied {
				rec.Durable = true
			}
		}
		rec.Arguments, _ = json.Marshal(map[string]string{"error": why})
	}
	_, _ = s.acc.audit.Append(rec)
}
