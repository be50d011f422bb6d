package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Argument names that carry approval evidence inside a tool call's
// arguments. They are excluded from the arguments hash.
const (
	ArgToken   = "approvalToken"
	ArgConsent = "consent"
)

// Request is one call waiting at the gate.
type Request struct {
	// Session is the MCP session id; tokens are bound to it.
	Session string
	// Tool is the tool (or method, e.g. "resources/write") being called.
	Tool string
	// Arguments are the call's arguments as sent (approval evidence included).
	Arguments json.RawMessage
	// Shown are the arguments as the operator reads them in the approval
	// question, with their secrets masked (the question is shown to a
	// person and recorded in audit logs); nil shows Arguments.
	Shown json.RawMessage
	// Write tells whether the call changes state.
	Write bool
	// Summary describes the effect for the operator (e.g. the diff).
	Summary string
	// RollbackWindow is the confirmed-commit window in seconds, 0 if none.
	RollbackWindow int
	// User and Role identify the caller, for the record.
	User, Role string
	// Device is the name of the device the call acts on; a signed consent
	// must name it (or one of Options.DeviceIDs).
	Device string
	// Binding is a digest of the state the call acts on beyond its
	// arguments, e.g. the SHA-256 of the candidate a commit would apply.
	// An approval (a confirmation token or a multi round-trip answer) is
	// bound to it as to the arguments: redeemed while Binding differs, it
	// is refused because the operator approved something else.
	Binding string
}

// Evidence is what the caller brought to pass the gate.
type Evidence struct {
	// Elicitor asks the operator through MCP elicitation; nil when the
	// client does not support elicitation.
	Elicitor Elicitor
	// Token is a confirmation token from a first call ("" if none).
	Token string
	// Consent is a signed consent: a JSON object or a JWT string (nil if none).
	Consent json.RawMessage
}

// EvidenceFromArguments extracts the approvalToken and consent members of a
// tool call's arguments.
func EvidenceFromArguments(args json.RawMessage) (Evidence, error) {
	var ev Evidence
	if len(args) == 0 {
		return ev, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil {
		return ev, nil // not an object: no evidence; the tool's own validation reports it
	}
	if raw, ok := m[ArgToken]; ok {
		if err := json.Unmarshal(raw, &ev.Token); err != nil {
			return ev, fmt.Errorf("approval: %s must be a string", ArgToken)
		}
	}
	if raw, ok := m[ArgConsent]; ok && string(raw) != "null" {
		ev.Consent = raw
	}
	return ev, nil
}

// ArgumentsHash is the SHA-256 (hex) of the canonical JSON of the arguments
// without the approval evidence members: object keys sorted, no spaces.
func ArgumentsHash(args json.RawMessage) (string, error) {
	canon, err := canonicalArguments(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

func canonicalArguments(args json.RawMessage) ([]byte, error) {
	if len(args) == 0 {
		return []byte("{}"), nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("approval: arguments are not JSON: %w", err)
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, ArgToken)
		delete(m, ArgConsent)
	}
	return json.Marshal(v) // encoding/json sorts map keys: canonical enough for equality
}
