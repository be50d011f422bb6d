package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// mrtrApprover issues and checks signed request states. With a state
// directory its key and the nonces it redeemed live there, so that a
// request state issued by one process is honoured, once, by another
// process serving the device from the same directory (protocol 2026-07-28
// lets any copy of a server answer the repeated call).
type mrtrApprover struct {
	key []byte
	ttl time.Duration
	dir string // "" keeps the used nonces in memory
	mu  sync.Mutex
	// swept is when the used nonces of dir were last swept.
	swept time.Time
	used  map[string]time.Time // nonces redeemed, until they expire (without dir)
}

// mrtrKeyFile and mrtrUsedDir are the key and the redeemed nonces of
// request states in the state directory.
const (
	mrtrKeyFile = "mrtr.key"
	mrtrUsedDir = "mrtr-used"
)

func newMRTRApprover(dir string) (*mrtrApprover, error) {
	m := &mrtrApprover{ttl: 10 * time.Minute, used: map[string]time.Time{}, dir: dir}
	if dir == "" {
		m.key = []byte(rand.Text() + rand.Text())
		return m, nil
	}
	key, err := sharedKey(filepath.Join(dir, mrtrKeyFile))
	if err != nil {
		return nil, fmt.Errorf("request-state key: %w", err)
	}
	m.key = key
	return m, nil
}

// sharedKey returns the key in path, creating it when absent; processes
// racing to create it end up with the same one.
func sharedKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	key := []byte(rand.Text() + rand.Text())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readWrittenKey(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return key, f.Close()
}

// readWrittenKey reads a key another process is writing: it was created
// with O_EXCL and is written at once, so a few reads see it whole.
func readWrittenKey(path string) ([]byte, error) {
	for range 100 {
		if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
			return b, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil, fmt.Errorf("%s stays incomplete", path)
}

// redeem records nonce as used until expires; false when it was already.
func (m *mrtrApprover) redeem(nonce string, expires, now time.Time) (bool, error) {
	if m.dir == "" {
		m.mu.Lock()
		defer m.mu.Unlock()
		for n, exp := range m.used {
			if !now.Before(exp) {
				delete(m.used, n)
			}
		}
		if _, seen := m.used[nonce]; seen {
			return false, nil
		}
		m.used[nonce] = expires
		return true, nil
	}
	dir := filepath.Join(m.dir, mrtrUsedDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, err
	}
	// Used nonces past every request state's life are forgotten: their
	// request states are refused as expired anyway.
	m.mu.Lock()
	sweep := now.Sub(m.swept) >= time.Minute
	if sweep {
		m.swept = now
	}
	m.mu.Unlock()
	if ents, err := os.ReadDir(dir); sweep && err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > 2*m.ttl {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	sum := sha256.Sum256([]byte(nonce))
	f, err := os.OpenFile(filepath.Join(dir, hex.EncodeToString(sum[:16])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, f.Close()
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
	fresh, err := m.redeem(b.Nonce, b.Expires, now)
	if err != nil {
		return denyf("the operator's answer could not be recorded as used (%v); nothing was changed", err)
	}
	if !fresh {
		return denyf("the operator's answer was already used (replay)")
	}
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
