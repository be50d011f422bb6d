package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// MethodApproval is the method of the audit records of approval decisions.
const MethodApproval = "netmcp/approval"

// auditCall records one request and its response. The record's "id" is a
// server-assigned call number ("#17") that pairs them: the SDK does not
// show middleware the JSON-RPC id.
type auditCall struct {
	sec      *Security
	session  string
	identity string
	corr     string // the request's correlation id
	method   string
	tool     string
	args     json.RawMessage
	id       string
	kind     string
	durable  bool // a state-changing call: its records are synced at once (audit.SyncWrites)
}

// newAuditCall describes req for the audit trail; its arguments are
// masked whoever the caller is.
func (sec *Security) newAuditCall(ss *mcp.ServerSession, id policy.Identity, method string, req mcp.Request) *auditCall {
	c := &auditCall{sec: sec, identity: id.String(), method: method, kind: audit.KindRequest}
	if sec.opts.Audit == nil {
		return c
	}
	c.corr = correlationID(req)
	if ss != nil {
		c.session = sec.s.owner(ss).Session
	}
	if strings.HasPrefix(method, "notifications/") {
		c.kind = audit.KindNotification
	} else {
		c.id = "#" + strconv.FormatUint(sec.seq.Add(1), 10)
	}
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParamsRaw:
		c.tool = p.Name
		c.args = sec.auditArguments(p.Arguments)
		c.durable = policy.IsWriteTool(p.Name)
		return c
	case *mcp.ReadResourceParams:
		c.tool = p.URI
	case *mcp.SubscribeParams:
		c.tool = p.URI
	case *mcp.UnsubscribeParams:
		c.tool = p.URI
	case *WriteParams:
		c.tool = p.URI
		c.durable = true
	case *mcp.GetPromptParams:
		c.tool = p.Name
	}
	if p := req.GetParams(); p != nil {
		if b, err := json.Marshal(p); err == nil && string(b) != "{}" && string(b) != "null" {
			c.args = sec.auditArguments(b)
		}
	}
	return c
}

// correlationID returns the correlation id a request carries in
// _meta[netproto.MetaCorrelationID], if it is a string of printable ASCII
// of at most netproto.MaxCorrelationID bytes (anything else is not
// recorded: the id is the caller's, and the audit trail stays readable).
func correlationID(req mcp.Request) string {
	p := req.GetParams()
	if p == nil {
		return ""
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return "" // a method without params (tools/list)
	}
	id, _ := p.GetMeta()[netproto.MetaCorrelationID].(string)
	if id == "" || len(id) > netproto.MaxCorrelationID {
		return ""
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return ""
		}
	}
	return id
}

// MaxAuditArguments is the largest masked arguments document an audit
// record carries whole; larger ones are recorded as a digest (their SHA-256,
// size and first bytes), so that oversized requests, refused or not, cannot
// grow the audit log by their own size.
const MaxAuditArguments = 16 << 10

// auditHead is how many bytes of oversized arguments a digest shows.
const auditHead = 512

// auditArguments returns b masked (secrets never reach the audit log or its
// syslog export), or a bounded digest of the masked document when it is
// larger than MaxAuditArguments.
func (sec *Security) auditArguments(b json.RawMessage) json.RawMessage {
	masked := sec.mask.arguments(b)
	if len(masked) <= MaxAuditArguments {
		return masked
	}
	sum := sha256.Sum256(masked)
	cut := auditHead
	for cut > 0 && !utf8.RuneStart(masked[cut]) {
		cut--
	}
	out, err := json.Marshal(map[string]any{"digest": map[string]any{
		"sha256": hex.EncodeToString(sum[:]), "bytes": len(masked), "head": string(masked[:cut])}})
	if err != nil {
		return nil
	}
	return out
}

// request appends the request record; an error means it was not recorded.
func (c *auditCall) request() error {
	if c.sec.opts.Audit == nil {
		return nil
	}
	_, err := c.sec.opts.Audit.Append(audit.Record{Session: c.session, Identity: c.identity, Correlation: c.corr, Kind: c.kind,
		ID: c.id, Method: c.method, Tool: c.tool, Arguments: c.args, Durable: c.durable})
	if err != nil {
		c.sec.s.log.Error("audit record not written; request refused", "method", c.method, "error", err)
	}
	return err
}

// response appends the response record (none for a notification).
func (c *auditCall) response(res mcp.Result, err error, d time.Duration) {
	if c.sec.opts.Audit == nil || c.kind == audit.KindNotification {
		return
	}
	r := audit.Record{Session: c.session, Identity: c.identity, Correlation: c.corr, Kind: audit.KindResponse, ID: c.id,
		Method: c.method, Tool: c.tool, Outcome: audit.OutcomeOK, DurationMS: float64(d.Microseconds()) / 1000,
		Durable: c.durable}
	if err != nil {
		r.Outcome = audit.OutcomeError
		if e := RPCError(err); e != nil {
			r.ErrorCode = int(e.Code)
		}
	} else if tr, ok := res.(*mcp.CallToolResult); ok && tr.IsError {
		r.Outcome = audit.OutcomeError
	}
	if _, err := c.sec.opts.Audit.Append(r); err != nil {
		c.sec.s.log.Error("audit record not written", "method", c.method, "error", err)
	}
}

// sendingMiddleware records the server's requests to the client
// (elicitation of an approval, sampling, roots) and their answers, so the
// human decision behind a change is in the trail. Notifications the
// server sends (progress, log lines, resource updates) are not recorded.
func (sec *Security) sendingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if sec.opts.Audit == nil || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		id, _ := sec.boundIdentity(ss)
		c := &auditCall{sec: sec, identity: id.String(), method: method, kind: audit.KindRequest, corr: correlationID(req),
			id: "#" + strconv.FormatUint(sec.seq.Add(1), 10), durable: true} // an operator's decision
		if ss != nil {
			c.session = sec.s.owner(ss).Session
		}
		if b, err := json.Marshal(req.GetParams()); err == nil {
			c.args = sec.auditArguments(b)
		}
		start := time.Now()
		_ = c.request()
		res, err := next(ctx, method, req)
		c.response(res, err, time.Since(start))
		if er, ok := res.(*mcp.ElicitResult); ok && err == nil {
			answer := map[string]any{"action": er.Action, "content": er.Content}
			if by := answeredBy(er); by != "" {
				answer["answeredBy"] = by
			}
			sec.recordEvent(c.session, c.identity, method, "", answer, nil)
		}
		return res, err
	}
}

// answeredBy returns who a proxy says gave an elicitation answer
// (_meta[netproto.MetaAnsweredBy]), when it is printable ASCII of at most
// 256 bytes; "" otherwise.
func answeredBy(er *mcp.ElicitResult) string {
	by, _ := er.GetMeta()[netproto.MetaAnsweredBy].(string)
	if len(by) > 256 {
		return ""
	}
	for i := 0; i < len(by); i++ {
		if by[i] < 0x20 || by[i] > 0x7e {
			return ""
		}
	}
	return by
}

// recordEvent appends a notification record (an approval decision, an
// elicitation answer) with masked details.
func (sec *Security) recordEvent(session, identity, method, tool string, details any, err error) {
	if sec.opts.Audit == nil {
		return
	}
	r := audit.Record{Session: session, Identity: identity, Kind: audit.KindNotification, Method: method, Tool: tool,
		Outcome: audit.OutcomeOK, Durable: true} // approval decisions and elicitation answers
	if b, e := json.Marshal(details); e == nil {
		r.Arguments = sec.auditArguments(b)
	}
	if err != nil {
		r.Outcome = audit.OutcomeError
		if e := RPCError(err); e != nil {
			r.ErrorCode = int(e.Code)
		}
	}
	if _, e := sec.opts.Audit.Append(r); e != nil {
		sec.s.log.Error("audit record not written", "method", method, "error", e)
	}
}

// auditApprover records every decision of the approval gate: approved,
// approval required (a token was issued) or refused.
type auditApprover struct {
	inner Approver
	sec   *Security
}

// Approve implements Approver.
func (g *auditApprover) Approve(ctx context.Context, req ApprovalRequest) error {
	err := g.inner.Approve(ctx, req)
	decision := "approved"
	var ar *approval.ApprovalRequired
	switch {
	case errors.As(err, &ar):
		decision = "approval-required"
	case err != nil:
		decision = "refused"
	}
	identity := ""
	if id, ok := policy.IdentityFrom(ctx); ok {
		identity = id.String()
	}
	var recErr error
	if decision == "refused" {
		recErr = err
	}
	g.sec.recordEvent(req.Session, identity, MethodApproval, req.Tool,
		map[string]any{"decision": decision, "write": req.Write, "summary": req.Summary, "rollbackWindow": req.RollbackWindow}, recErr)
	return err
}

// Needs implements ToolPolicy when the wrapped Approver does.
func (g *auditApprover) Needs(tool string, write bool) bool {
	if p, ok := g.inner.(ToolPolicy); ok {
		return p.Needs(tool, write)
	}
	return write
}
