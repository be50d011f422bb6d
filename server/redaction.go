package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/redact"
	"github.com/netmcp/netmcp/yang"
)

// secretMasker masks passwords, secrets, keys and SNMP communities (MCP-NET
// section 9) in what leaves the server: tool results, resource contents,
// prompt messages, error messages, audit arguments and log lines. It wraps
// a *redact.Redactor, whose known secrets are shared by every session and
// come from the device's configuration only (Security.learnDeviceSecrets):
// masking never learns, so no request can teach it a "secret". It knows
// the device's CLI dialect for configuration text.
//
// A masker is used in one of three modes. The shared one masks by syntax,
// by leaf name and by known value. One made by keeping leaves the caller's
// own input as it was sent wherever it is echoed, and masks known values
// only around it. One made by structural masks by syntax and leaf name
// only, for error messages, which echo the caller's input and must not
// confirm a guess by masking it.
type secretMasker struct {
	r          *redact.Redactor
	dialect    string   // huawei-vrp, cisco-iosxr or "" (both)
	keep       []string // caller input to leave as sent (see redact.Redactor.StringKeeping)
	structural bool     // no masking by known value
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

// keeping returns a masker like m that leaves the strings of keep (a
// caller's arguments) as they are wherever they are echoed.
func (m *secretMasker) keeping(keep []string) *secretMasker {
	if len(keep) == 0 {
		return m
	}
	c := *m
	c.keep = keep
	return &c
}

// structuralOnly returns a masker like m that masks by syntax and leaf
// name only.
func (m *secretMasker) structuralOnly() *secretMasker {
	c := *m
	c.structural = true
	return &c
}

// byValue reports whether the plain redactor (syntax, names and known
// values in one pass) does this masker's job.
func (m *secretMasker) byValue() bool { return !m.structural && len(m.keep) == 0 }

// known masks the known secrets in s, as the mode says.
func (m *secretMasker) known(s string) string {
	switch {
	case m.structural:
		return s
	case len(m.keep) > 0:
		return m.r.StringKeeping(s, m.keep)
	}
	return m.r.String(s)
}

// config masks configuration text (or any text: the secrets its lines show
// by syntax, then every known secret).
func (m *secretMasker) config(s string) string {
	if !hasSyntax(s) {
		return m.known(s)
	}
	if m.byValue() {
		out, _ := m.r.Config(s, m.dialect) // the dialect was checked
		return out
	}
	out, _ := m.r.ConfigSyntax(s, m.dialect)
	return m.known(out)
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
// secret are masked, and every string is read as configuration text. v is
// not modified; what needs no masking is shared with it.
//
// With the plain redactor only strings of several tokens go through the
// configuration syntax: a single token was already masked by Tree with
// every known secret.
func (m *secretMasker) value(v any) (any, bool) {
	out, changed, _ := m.tree(v)
	return out, changed
}

// tree is value, and also reports whether v was read whole: false when it
// holds a value of another type than a decoded JSON document's, whose
// insides masking did not look at (see redact.Redactor.TreeStrings).
func (m *secretMasker) tree(v any) (out any, changed, ok bool) {
	byValue := m.byValue()
	return m.r.TreeStrings(v, byValue, func(s string) string {
		if hasSyntax(s) || !byValue {
			return m.config(s)
		}
		return s
	})
}

// edits masks the values of the edits in v: every object with a string
// "path" and a "value" (network.yang.edit's edit list, in arguments, audit
// records and approval details) has its value masked as the content of
// that path (redact.Redactor.ValueAt), since a plain value sent to a secret
// leaf carries no secret name of its own. v is not modified.
func (m *secretMasker) edits(v any) (any, bool) {
	return rewrite(v, func(n any) (any, bool) {
		t, ok := n.(map[string]any)
		if !ok {
			return n, false
		}
		p, ok := t["path"].(string)
		val, has := t["value"]
		if !ok || !has {
			return n, false
		}
		var masked any
		var changed bool
		if m.byValue() {
			masked, changed = m.r.ValueAt(p, val)
		} else {
			masked, changed = m.r.ValueAtStructural(p, val)
		}
		if !changed {
			return n, false
		}
		out := maps.Clone(t)
		out["value"] = masked
		return out, true
	})
}

// hasSyntax reports whether s has more than one token. A single token
// cannot be marked secret by configuration syntax (a secret follows its
// keyword), so only known secrets apply to it. Most leaves of a YANG tree
// are such strings.
func hasSyntax(s string) bool { return strings.ContainsAny(s, " \t\n") }

// raw masks a JSON document; text that is not JSON is masked as text.
func (m *secretMasker) raw(b json.RawMessage) json.RawMessage {
	return m.document(b, false)
}

// arguments masks the arguments of a request (or an approval's details) as
// raw does, and also the values of the edits they carry by the paths those
// edits target (see edits). Only arguments carry edit lists: results are
// spared that walk of the whole tree.
func (m *secretMasker) arguments(b json.RawMessage) json.RawMessage {
	return m.document(b, true)
}

// document masks a JSON document, with its edit values when withEdits.
func (m *secretMasker) document(b json.RawMessage, withEdits bool) json.RawMessage {
	if len(b) == 0 {
		return b
	}
	v, ok := decodeJSON(b)
	if !ok {
		s, _ := json.Marshal(m.config(string(b)))
		return s
	}
	if withEdits {
		v, _ = m.edits(v)
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

// learn records the secrets of the device's configuration, a text or a
// tree, without masking anything. Only the device's own configuration may
// be given: what is learnt is masked in every session from then on.
func (m *secretMasker) learn(v any) {
	switch t := v.(type) {
	case string:
		_ = m.r.LearnConfig(t, m.dialect) // the dialect was checked
	default:
		m.r.LearnTree(t)
		eachString(t, func(s string) { // configuration lines inside a tree
			if hasSyntax(s) {
				_ = m.r.LearnConfig(s, m.dialect)
			}
		})
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

// selectsBySecret refuses a YANG path that selects list entries or
// leaf-list values by a secret leaf (user[password='guess'],
// pre-shared-key[.='guess']): whether such a path finds data would tell a
// caller who may not read secrets whether the guess is right. Paths that do
// not parse are left to the driver, which reports the syntax error.
func (m *secretMasker) selectsBySecret(path string) error {
	p, err := yang.ParsePath(path)
	if err != nil {
		return nil
	}
	for _, e := range p {
		for _, k := range e.Keys {
			leaf := k.Name
			if leaf == "." {
				leaf = e.Name
			}
			if m.r.SecretLeaf(leaf) {
				return netproto.Errorf(netproto.CodeAccessDenied,
					"the path selects %s by the secret leaf %q; selecting by a secret value needs the secrets scope", e.Name, leaf)
			}
		}
	}
	return nil
}

// maxErrorMessage caps the message of an error returned to a caller who
// may not read secrets: errors echo the caller's input, and a megabyte
// echoed back is of no use to anyone.
const maxErrorMessage = 1024

// rpcError returns err with the secrets its message and data show by
// syntax or leaf name masked, and its message capped at maxErrorMessage
// bytes. Known secret values are not masked in errors: an error echoes the
// caller's input (an unknown command, a YANG path), and masking a value
// there would confirm that the input guessed a secret.
func (m *secretMasker) rpcError(err error) error {
	if err == nil {
		return nil
	}
	sm := m.structuralOnly()
	e := RPCError(err)
	if e == nil {
		// A plain error becomes -32603 with its text; mask that text.
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: capMessage(sm.config(err.Error()))}
	}
	out := &jsonrpc.Error{Code: e.Code, Message: capMessage(sm.config(e.Message))}
	if len(e.Data) > 0 {
		out.Data = capData(sm.raw(e.Data))
	}
	return out
}

// capError caps the message of err and the strings of its data at
// maxErrorMessage bytes, masking nothing.
func capError(err error) error {
	e := RPCError(err)
	if e == nil {
		return err
	}
	if len(e.Message) <= maxErrorMessage && len(e.Data) <= maxErrorMessage {
		return e
	}
	return &jsonrpc.Error{Code: e.Code, Message: capMessage(e.Message), Data: capData(e.Data)}
}

// capData caps every string of an error's JSON data at maxErrorMessage
// bytes.
func capData(b json.RawMessage) json.RawMessage {
	if len(b) <= maxErrorMessage {
		return b
	}
	v, ok := decodeJSON(b)
	if !ok {
		s, _ := json.Marshal(capMessage(string(b)))
		return s
	}
	v, changed := mapStrings(v, func(s string) string { return capMessage(s) })
	if !changed {
		return b
	}
	out, err := marshal(v)
	if err != nil {
		return b
	}
	return out
}

// capMessage shortens an error message to maxErrorMessage bytes (on a
// UTF-8 boundary), saying how much was left out.
func capMessage(s string) string {
	if len(s) <= maxErrorMessage {
		return s
	}
	cut := maxErrorMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d more bytes not shown)", s[:cut], len(s)-cut)
}

// argumentStrings returns the strings of a request's arguments (a JSON
// document), the caller's own input that masking leaves as sent.
func argumentStrings(args json.RawMessage) []string {
	v, ok := decodeJSON(args)
	if !ok {
		return nil
	}
	var out []string
	eachString(v, func(s string) {
		if len(s) >= redact.MinKnownSecretLen {
			out = append(out, s)
		}
	})
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
	return rewrite(v, func(n any) (any, bool) {
		if s, ok := n.(string); ok {
			out := fn(s)
			return out, out != s
		}
		return n, false
	})
}

// rewrite applies fn to every node of a JSON tree, top-down (a node's
// replacement is visited in its place), and reports whether anything
// changed. Only what changes is copied: v is not modified.
func rewrite(v any, fn func(any) (any, bool)) (any, bool) {
	v, changed := fn(v)
	switch t := v.(type) {
	case map[string]any:
		var out map[string]any
		for k, c := range t {
			if nc, ch := rewrite(c, fn); ch {
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
			if nc, ch := rewrite(c, fn); ch {
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
	return v, changed
}
