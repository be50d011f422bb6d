package server

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/redact"
)

// secretMasker masks passwords, secrets, keys and SNMP communities (MCP-NET
// section 9) in what leaves the server: tool results, resource contents,
// prompt messages, error messages, audit arguments and log lines. It wraps
// a *redact.Redactor, whose known secrets are shared by every session, and
// knows the device's CLI dialect for configuration text.
type secretMasker struct {
	r       *redact.Redactor
	dialect string // huawei-vrp, cisco-iosxr or "" (both)
}

// newSecretMasker returns a masker over r (a new one when nil) for
// configuration text of dialect; dialects the redactor does not know are
// read with the rules of all known dialects.
func newSecretMasker(r *redact.Redactor, dialect string) *secretMasker {
	if r == nil {
		r = redact.New(redact.Options{})
	}
	if dialect != redact.DialectHuaweiVRP && dialect != redact.DialectCiscoIOSXR {
		dialect = ""
	}
	return &secretMasker{r: r, dialect: dialect}
}

// config masks configuration text (or any text: the secrets its lines show
// by syntax, then every known secret).
func (m *secretMasker) config(s string) string {
	if !hasSyntax(s) {
		return m.r.String(s)
	}
	out, err := m.r.Config(s, m.dialect)
	if err != nil { // unreachable: the dialect was checked
		return m.r.String(s)
	}
	return out
}

// text masks a text that may be a JSON document (the text fallback of a
// structured tool result) or free text (CLI output, configuration, logs).
func (m *secretMasker) text(s string) string {
	t := strings.TrimSpace(s)
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if v, ok := decodeJSON([]byte(t)); ok {
			masked, _ := m.value(v)
			if b, err := marshal(masked); err == nil {
				return string(b)
			}
		}
	}
	return m.config(s)
}

// value returns a JSON value (as decoded with UseNumber) masked, and
// whether anything was masked: leaves whose names or schema paths are
// secret are masked, and every string is read as configuration text.
// Secrets found anywhere in v are learnt first, so a secret is masked in
// every string of v, wherever it was found. v is not modified; what needs
// no masking is shared with it.
//
// Only strings of several tokens go through the configuration syntax: a
// single token was already masked by Tree with every known secret.
func (m *secretMasker) value(v any) (any, bool) {
	eachString(v, func(s string) { // learn what configuration lines show
		if hasSyntax(s) {
			m.config(s)
		}
	})
	v, masked := m.r.TreeChanged(v) // secret leaves masked (and learnt), known values masked
	v, configMasked := mapStrings(v, func(s string) string {
		if hasSyntax(s) {
			return m.config(s)
		}
		return s
	})
	return v, masked || configMasked
}

// hasSyntax reports whether s has more than one token. A single token
// cannot be marked secret by configuration syntax (a secret follows its
// keyword), so only known secrets apply to it. Most leaves of a YANG tree
// are such strings.
func hasSyntax(s string) bool { return strings.ContainsAny(s, " \t\n") }

// raw masks a JSON document; text that is not JSON is masked as text.
func (m *secretMasker) raw(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	v, ok := decodeJSON(b)
	if !ok {
		s, _ := json.Marshal(m.config(string(b)))
		return s
	}
	masked, _ := m.value(v)
	out, err := marshal(masked)
	if err != nil {
		return json.RawMessage(`"` + redact.Mask + `"`)
	}
	return out
}

// any masks a value of any Go type by its JSON form.
func (m *secretMasker) any(v any) any {
	switch t := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return m.raw(t)
	case []byte:
		return m.raw(t)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return redact.Mask
	}
	return m.raw(b)
}

// learn records the secrets of a configuration text or tree without
// masking anything (priming the redactor with the device's configuration).
func (m *secretMasker) learn(v any) {
	switch t := v.(type) {
	case string:
		m.config(t)
	default:
		m.value(t)
	}
}

// ownJSON masks a JSON document this server encoded itself (with marshal),
// returning it as it is when nothing in it needs masking: most results
// hold no secret, so re-encoding them would be wasted work.
// Only a document without duplicate member names may be returned as is:
// decoding keeps the last of duplicates, so a secret in an earlier one
// would go unseen. Documents from elsewhere (arguments, device text) go
// through raw, which always re-encodes.
func (m *secretMasker) ownJSON(b json.RawMessage) json.RawMessage {
	v, ok := decodeJSON(b)
	if !ok {
		return m.raw(b)
	}
	masked, changed := m.value(v)
	if !changed {
		return b
	}
	out, err := marshal(masked)
	if err != nil {
		return json.RawMessage(`"` + redact.Mask + `"`)
	}
	return out
}

// toolResult masks a tools/call result in place (the result is the
// call's own, never shared). Its structured content is this server's own
// encoding: toolResult and approvalRequiredToolResult make it with
// marshal. A text block that is the structured content's own JSON (the
// text fallback) gets the masked JSON without a second pass.
func (m *secretMasker) toolResult(r *mcp.CallToolResult) {
	if r == nil {
		return
	}
	var orig, masked json.RawMessage
	if r.StructuredContent != nil {
		var ok bool
		if orig, ok = r.StructuredContent.(json.RawMessage); ok {
			r.StructuredContent = m.ownJSON(orig)
		} else {
			r.StructuredContent = m.any(r.StructuredContent)
		}
		masked, _ = r.StructuredContent.(json.RawMessage)
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok && orig != nil && masked != nil && t.Text == string(orig) {
			t.Text = string(masked)
			continue
		}
		m.contents([]mcp.Content{c})
	}
}

// contents masks the text of MCP content blocks in place.
func (m *secretMasker) contents(cs []mcp.Content) {
	for _, c := range cs {
		switch t := c.(type) {
		case *mcp.TextContent:
			t.Text = m.text(t.Text)
		case *mcp.EmbeddedResource:
			if t.Resource != nil {
				t.Resource.Text = m.text(t.Resource.Text)
			}
		}
	}
}

// resourceContents masks the contents of a resources/read result in place.
func (m *secretMasker) resourceContents(cs []*mcp.ResourceContents) {
	for _, c := range cs {
		if c != nil && c.Text != "" {
			c.Text = m.text(c.Text)
		}
	}
}

// prompt masks the messages of a prompts/get result in place.
func (m *secretMasker) prompt(r *mcp.GetPromptResult) {
	if r == nil {
		return
	}
	for _, msg := range r.Messages {
		if msg != nil && msg.Content != nil {
			m.contents([]mcp.Content{msg.Content})
		}
	}
}

// rpcError returns err with known secrets masked in its message and data.
func (m *secretMasker) rpcError(err error) error {
	e := RPCError(err)
	if e == nil {
		if err == nil {
			return nil
		}
		// A plain error becomes -32603 with its text; mask that text.
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m.r.String(err.Error())}
	}
	out := &jsonrpc.Error{Code: e.Code, Message: m.r.String(e.Message)}
	if len(e.Data) > 0 {
		out.Data = m.raw(e.Data)
	}
	return out
}

// decodeJSON decodes one JSON value keeping numbers as written.
func decodeJSON(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}

// eachString calls fn for every string value in a JSON tree.
func eachString(v any, fn func(string)) {
	switch t := v.(type) {
	case string:
		fn(t)
	case map[string]any:
		for _, c := range t {
			eachString(c, fn)
		}
	case []any:
		for _, c := range t {
			eachString(c, fn)
		}
	}
}

// mapStrings applies fn to every string of a JSON tree and reports whether
// any changed. Like Tree it copies only what changes: v is not modified.
func mapStrings(v any, fn func(string) string) (any, bool) {
	switch t := v.(type) {
	case string:
		out := fn(t)
		return out, out != t
	case map[string]any:
		var out map[string]any
		for k, c := range t {
			if nc, changed := mapStrings(c, fn); changed {
				if out == nil {
					out = maps.Clone(t)
				}
				out[k] = nc
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, c := range t {
			if nc, changed := mapStrings(c, fn); changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = nc
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}
