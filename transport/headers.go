package transport

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// The standard request headers of protocol 2026-07-28 over Streamable
// HTTP: a POST mirrors its JSON-RPC method, and for some methods the name
// or URI it targets, so that a load balancer or gateway can route it
// without reading the body. The server checks that they agree with the
// body.
const (
	// HeaderMethod carries the JSON-RPC method of every request.
	HeaderMethod = "Mcp-Method"
	// HeaderName carries what a request targets (see NameField), encoded
	// with EncodeHeaderValue.
	HeaderName = "Mcp-Name"
)

// The Base64 sentinel of a header value that is not plain ASCII.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// NameField returns the params member that the Mcp-Name header of a
// 2026-07-28 request with this method mirrors, or "" when the method has
// no Mcp-Name: the tool of tools/call and the prompt of prompts/get
// (name), the resource of resources/read (uri), and the task of the
// Tasks extension's tasks/get, tasks/update and tasks/cancel (taskId).
func NameField(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		return "taskId"
	}
	return ""
}

// nameParams holds the members NameField names; it is decoded with
// case-sensitive member names, as the SDK decodes params.
type nameParams struct {
	Name   *string `json:"name"`
	URI    *string `json:"uri"`
	TaskID *string `json:"taskId"`
}

// nameValue returns the value of params' member field (see NameField),
// and whether it is there as a string.
func nameValue(field string, params []byte) (string, bool) {
	var p nameParams
	if len(params) == 0 {
		return "", false
	}
	if _, err := segjson.Parse(params, &p, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return "", false
	}
	var v *string
	switch field {
	case "name":
		v = p.Name
	case "uri":
		v = p.URI
	case "taskId":
		v = p.TaskID
	}
	if v == nil {
		return "", false
	}
	return *v, true
}

// EncodeHeaderValue returns s as an HTTP header value: unchanged when it
// is visible ASCII, spaces and tabs without leading or trailing white
// space, else (and when it looks like an encoded value itself) the
// Base64 of its UTF-8 bytes between "=?base64?" and "?=".
func EncodeHeaderValue(s string) string {
	if !plainHeaderValue(s) {
		return base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix
	}
	return s
}

func plainHeaderValue(s string) bool {
	if s == "" || strings.TrimLeft(s, " \t") != s || strings.TrimRight(s, " \t") != s {
		return false
	}
	if strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return false
		}
	}
	return true
}

// decodeHeaderValue undoes EncodeHeaderValue; ok is false for a sentinel
// whose content is not canonical Base64 of UTF-8 text. A value without
// the sentinel is returned as it is.
func decodeHeaderValue(v string) (s string, ok bool) {
	if len(v) < len(base64Prefix)+len(base64Suffix) || !strings.HasPrefix(v, base64Prefix) || !strings.HasSuffix(v, base64Suffix) {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// SetStandardHeaders sets on h the Mcp-Method and, for a method that has
// one (NameField), the Mcp-Name header of the JSON-RPC request body, as a
// client of protocol 2026-07-28 must on every POST (it sets the
// MCP-Protocol-Version header itself). It fails when body is not a
// JSON-RPC request; a response has neither header.
func SetStandardHeaders(h http.Header, body []byte) error {
	var msg struct {
		Method string             `json:"method"`
		Params segjson.RawMessage `json:"params"`
	}
	if _, err := segjson.Parse(body, &msg, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return fmt.Errorf("transport: standard headers: %w", err)
	}
	if msg.Method == "" {
		return fmt.Errorf("transport: standard headers: the body is not a JSON-RPC request")
	}
	h.Set(HeaderMethod, msg.Method)
	if field := NameField(msg.Method); field != "" {
		if v, ok := nameValue(field, msg.Params); ok {
			h.Set(HeaderName, EncodeHeaderValue(v))
		}
	}
	return nil
}

// checkStandardHeaders checks the standard headers of req, a request of
// protocol 2026-07-28 or later, and returns the error to answer with
// (HTTP 400, code -32020, HeaderMismatch), or nil. A call must carry
// Mcp-Method, equal to its method, and, when its params hold the member
// NameField names, Mcp-Name, whose decoded value must equal that member.
// A notification, for which the specification defines no header, is
// refused only when an Mcp-Method it carries names another method.
func checkStandardHeaders(h http.Header, req *jsonrpc.Request) *jsonrpc.Error {
	mismatch := func(format string, args ...any) *jsonrpc.Error {
		return &jsonrpc.Error{Code: mcp.CodeHeaderMismatch, Message: "Header mismatch: " + fmt.Sprintf(format, args...)}
	}
	methods := h.Values(HeaderMethod)
	switch {
	case len(methods) > 1:
		return mismatch("%d %s headers; a request carries one", len(methods), HeaderMethod)
	case len(methods) == 0 && req.IsCall():
		return mismatch("the %s header is required on a request of protocol %s (here %q)", HeaderMethod, version20260728, req.Method)
	case len(methods) == 1 && methods[0] != req.Method:
		return mismatch("%s header value %q does not match body value %q", HeaderMethod, methods[0], req.Method)
	}
	field := NameField(req.Method)
	if field == "" || !req.IsCall() {
		return nil
	}
	names := h.Values(HeaderName)
	body, inBody := nameValue(field, req.Params)
	switch {
	case len(names) > 1:
		return mismatch("%d %s headers; a request carries one", len(names), HeaderName)
	case len(names) == 0 && inBody:
		return mismatch("the %s header is required on %s (params.%s %q)", HeaderName, req.Method, field, body)
	case len(names) == 0:
		// Nothing to mirror: the method's own check refuses the params.
		return nil
	}
	name, ok := decodeHeaderValue(names[0])
	switch {
	case !ok:
		return mismatch("%s header value %q is not valid Base64 of UTF-8 text between %q and %q", HeaderName, names[0], base64Prefix, base64Suffix)
	case !inBody:
		return mismatch("%s header value %q, but the body has no params.%s", HeaderName, name, field)
	case name != body:
		return mismatch("%s header value %q does not match body value params.%s %q", HeaderName, name, field, body)
	}
	return nil
}
