package server

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/redact"
)

// Masker masks the secrets of a device's answers for a caller who may not
// read them, as the access-control layer of the device's own server does
// (Server.Secure): passwords, keys and SNMP communities by configuration
// syntax, by leaf name and schema path, and by value once the device's
// configuration taught them (Learn). A proxy that relays a device's
// answers to callers of its own, such as the controller, masks with it
// what the device gave the proxy in clear. It is safe for concurrent use.
type Masker struct{ m *secretMasker }

// NewMasker returns a Masker over r (a new Redactor when nil) for a device
// of CLI dialect dialect ("" or one the redactor does not know: the rules
// of every known dialect).
func NewMasker(r *redact.Redactor, dialect string) *Masker {
	return &Masker{m: newSecretMasker(r, dialect)}
}

// Learn teaches the masker the secrets of the device's configuration, a
// YANG tree or a configuration text, without masking anything. Give it
// only the device's own configuration: what it learns is masked by value
// wherever it appears from then on.
func (m *Masker) Learn(v any) { m.m.learn(v) }

// Keeping returns the masking of one call whose arguments are args (a JSON
// object): the caller's own input is left as sent wherever the answer
// echoes it, so that masking never confirms a guess.
func (m *Masker) Keeping(args json.RawMessage) *Masker {
	return &Masker{m: m.m.keeping(argumentStrings(args))}
}

// Text masks a configuration or free text (CLI output, a configuration
// file).
func (m *Masker) Text(s string) string { return m.m.config(s) }

// JSON masks a JSON document (text that is not JSON is masked as text).
func (m *Masker) JSON(b []byte) []byte { return m.m.raw(b) }

// ToolResult masks a tools/call result in place: its structured content
// and its text.
func (m *Masker) ToolResult(r *mcp.CallToolResult) { m.m.toolResult(r) }

// Error masks an error for the caller as the device's server does: the
// secrets its message and data show by syntax or leaf name, never by
// value (an error echoes the caller's input), its message capped. A
// JSON-RPC error keeps its code; any other becomes -32603.
func (m *Masker) Error(err error) error { return m.m.rpcError(err) }

// SelectsBySecret refuses (-32083) a YANG path that selects list entries
// or leaf-list values by a secret leaf: whether it finds data would tell
// the caller whether a guess of the secret is right.
func (m *Masker) SelectsBySecret(path string) error { return m.m.selectsBySecret(path) }
