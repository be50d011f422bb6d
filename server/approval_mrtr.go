package server

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

// On protocol version 2026-07-28 a server may not send elicitation/create
// while it serves a request; it answers with an input-required result
// (multi round-trip requests, SEP-2322) and the client repeats the call
// with the operator's answer in inputResponses. The request state that
// binds the answer to the call is signed by the gate.

// inputRequestID names the elicitation in inputRequests/inputResponses.
const inputRequestID = "netmcp-approval"

// protocolMRTR is the first protocol version with multi round-trip requests.
const protocolMRTR = "2026-07-28"

// approvalSchema is the elicitation form: one boolean the operator sets.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Apply this change",
			"description": "Set to true to let the device apply the change shown above."},
	},
	"required": []any{"approve"},
}

// elicitationRequired is returned by the gate when the client must ask the
// operator and repeat the call (input-required result).
type elicitationRequired struct {
	params *mcp.ElicitParams
	state  string
}

func (e *elicitationRequired) Error() string {
	return "approval: the operator must be asked (input-required)"
}

// inputRequiredResult returns the input-required tool result of err, or nil.
func inputRequiredResult(err error) *mcp.CallToolResult {
	er, ok := err.(*elicitationRequired)
	if !ok {
		return nil
	}
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputRequestID: er.params}, RequestState: er.state}
}

// retryKey carries a repeated call's inputResponses and requestState to the gate.
type retryKey struct{}

type retry struct {
	responses mcp.InputResponseMap
	state     string
}

// protocolKey carries the protocol version a call was made on, when the
// call names it (_meta, protocol 2026-07-28).
type protocolKey struct{}

// correlationKey carries the correlation id of a call (see
// correlationID) to the approval gate, which names it in the elicitation
// it sends: a proxy that relays the question (the controller) knows by it
// which of its callers' requests the question belongs to.
type correlationKey struct{}

// withRetry returns ctx carrying what the approval gate needs of req: its
// correlation id, its protocol version (see usesMRTR) and its multi
// round-trip answer, if any.
func withRetry(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Params == nil {
		return ctx
	}
	if id := correlationID(req); id != "" {
		ctx = context.WithValue(ctx, correlationKey{}, id)
	}
	if v, _ := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); v != "" {
		ctx = context.WithValue(ctx, protocolKey{}, v)
	}
	if req.Params.InputResponses == nil && req.Params.RequestState == "" {
		return ctx
	}
	return context.WithValue(ctx, retryKey{}, retry{responses: req.Params.InputResponses, state: req.Params.RequestState})
}

// usesMRTR reports whether the call of ctx runs on a protocol version with
// multi round-trip requests, the version the server negotiated, not the
// one a client asked for. On 2026-07-28 every request names its version in
// _meta (SEP-2575), which the SDK checks against the versions it serves. A
// session that began with initialize negotiated the version of the
// initialize result, which the SDK never makes 2026-07-28 or later, even
// when the client asked for it; such calls name no version here.
func usesMRTR(ctx context.Context) bool {
	v, _ := ctx.Value(protocolKey{}).(string)
	return v >= protocolMRTR
}

// elicitAllowed reports whether the SDK lets the server send
// elicitation/create on ss: it refuses when the version the client asked
// for in initialize is 2026-07-28 or later, whatever was negotiated.
func elicitAllowed(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion < protocolMRTR
}

// stateBinding is what a request state binds the operator's answer to.
type stateBinding struct {
	Session string    `json:"s"`
	Tool    string    `json:"t"`
	Hash    string    `json:"h"`
	Binding string    `json:"b,omitempty"` // approval.Request.Binding: the candidate a commit applies
	Expires time.Time `json:"e"`
	Nonce   string    `json:"n"`
}

// mrtrApprover issues and checks signed request states.
type mrtrApprover struct {
	key  []byte
	ttl  time.Duration
	mu   sync.Mutex
	used map[string]time.Time // nonces redeemed, until they expire
}

func newMRTRApprover() *mrtrApprover {
	return &mrtrApprover{key: []byte(rand.Text() + rand.Text()), ttl: 10 * time.Minute, used: map[string]time.Time{}}
}

// ask returns the input-required refusal of req.
func (m *mrtrApprover) ask(req approval.Request, hash string) error {
	state := signJSON(m.key, stateBinding{Session: req.Session, Tool: req.Tool, Hash: hash, Binding: req.Binding, Expires: time.Now().Add(m.ttl), Nonce: rand.Text()})
	return &elicitationRequired{params: &mcp.ElicitParams{Mode: "form", Message: approval.ElicitMessage(req), RequestedSchema: approvalSchema}, state: state}
}

// check verifies a repeated call's answer: nil when the operator approved
// this very call, a -32083 refusal otherwise.
func (m *mrtrApprover) check(req approval.Request, hash string, r retry) error {
	var b stateBinding
	if !openJSON(m.key, r.state, &b) {
		return denyf("the requestState of this repeated call was not issued by this server")
	}
	now := time.Now()
	switch {
	case b.Session != req.Session:
		return denyf("the operator's answer belongs to another session")
	case b.Tool != req.Tool || b.Hash != hash:
		return denyf("the operator approved other arguments of %s; nothing was changed", b.Tool)
	case b.Binding != req.Binding:
		return denyf("%s: the candidate changed since the operator approved it, so the approved change is not the one that would be applied; nothing was changed; call again to have the current change approved", req.Tool)
	case !now.Before(b.Expires):
		return denyf("the operator's answer expired at %s; call again", b.Expires.UTC().Format(time.RFC3339))
	}
	res, _ := r.responses[inputRequestID].(*mcp.ElicitResult)
	if res == nil {
		return denyf("the repeated call carries no answer to %q", inputRequestID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for n, exp := range m.used {
		if !now.Before(exp) {
			delete(m.used, n)
		}
	}
	if _, seen := m.used[b.Nonce]; seen {
		return denyf("the operator's answer was already used (replay)")
	}
	m.used[b.Nonce] = b.Expires
	switch res.Action {
	case "accept":
		if ok, _ := res.Content["approve"].(bool); ok {
			return nil
		}
		return denyf("the operator did not set approve=true; nothing was changed")
	case "decline":
		return denyf("the operator declined %s; nothing was changed", req.Tool)
	}
	return denyf("the operator cancelled %s; nothing was changed", req.Tool)
}

func denyf(format string, args ...any) error {
	return netproto.Errorf(netproto.CodeAccessDenied, "approval: "+format, args...)
}
