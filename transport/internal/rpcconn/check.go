// Package rpcconn is the JSON-RPC core shared by netmcp's transports
// (stdio lines, TLS stream frames, Streamable HTTP bodies): it checks each incoming
// message before the MCP SDK sees it (Check), answers what the SDK would
// mishandle, and implements mcp.Connection over a raw message stream
// (Conn).
package rpcconn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxEchoedID bounds the length of an id quoted in an error message.
const maxEchoedID = 64

// Check inspects one incoming message. It returns the decoded message when
// the SDK may handle it, or the JSON-RPC error response to send instead
// (and a nil message):
//
//   - not JSON at all (two messages in one line or frame included):
//     -32700 Parse error, id null;
//   - a batch: -32600 (MCP 2025-06-18 and later have none);
//   - not a JSON-RPC 2.0 object, or an id that is neither a string nor an
//     integer the SDK can echo exactly (1.5, 2^63, 1e3: the SDK would
//     answer them with another id): -32600 Invalid Request, id null;
//   - initialize whose params are not InitializeParams: -32602 with the id
//     (the SDK answers such a call with the meaningless code 0).
//
// Both are nil for a message of only white space, which is ignored.
func Check(raw []byte) (jsonrpc.Message, []byte) {
	trimmed, id, reply := checkEnvelope(raw)
	if trimmed == nil || reply != nil {
		return nil, reply
	}
	msg, err := decodeMessage(trimmed)
	if err != nil {
		return nil, ErrorResponse(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	}
	return msg, nil
}

// checkEnvelope runs Check's checks up to the SDK's decoding: trimmed is
// nil (and reply nil) for a message of only white space; id is the
// message's id (nil when absent, null or not echoed); reply is the error
// response when a check fails.
func checkEnvelope(raw []byte) (trimmed []byte, id json.RawMessage, reply []byte) {
	trimmed = bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, nil, nil
	}
	var env struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	// Unmarshal checks that the whole message is valid JSON before it
	// decodes anything, so json.Valid is needed only to tell a parse error
	// from a value of the wrong shape when it fails.
	envErr := json.Unmarshal(trimmed, &env)
	if envErr != nil && !json.Valid(trimmed) {
		return trimmed, nil, ErrorResponse(nil, jsonrpc.CodeParseError,
			"Parse error: the message is not one JSON value (one JSON-RPC message per line or frame)")
	}
	if trimmed[0] == '[' {
		return trimmed, nil, ErrorResponse(nil, jsonrpc.CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 and later have none)")
	}
	if trimmed[0] != '{' || envErr != nil {
		return trimmed, nil, ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object")
	}
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		return trimmed, nil, ErrorResponse(nil, jsonrpc.CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	id = env.ID
	if len(id) > 0 && !bytes.Equal(id, []byte("null")) {
		if msg := checkID(id); msg != "" {
			return trimmed, nil, ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+msg)
		}
	} else {
		id = nil
	}
	if id != nil && len(env.Params) > 0 && string(env.Method) == `"initialize"` {
		var p mcp.InitializeParams
		if err := json.Unmarshal(env.Params, &p); err != nil {
			return trimmed, id, ErrorResponse(id, jsonrpc.CodeInvalidParams, "Invalid params of initialize: "+err.Error())
		}
	}
	return trimmed, id, nil
}

// checkID returns why a non-null id cannot be echoed exactly, or "".
func checkID(id json.RawMessage) string {
	switch id[0] {
	case '"':
		return ""
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
	default:
		return fmt.Sprintf("id %s is neither a string nor a number", clip(id))
	}
	if bytes.ContainsAny(id, ".eE") {
		return fmt.Sprintf("id %s is not an integer (JSON-RPC ids SHOULD NOT contain fractional parts; this server accepts integers and strings)", clip(id))
	}
	// The SDK holds numeric ids as float64, then int64: the integers of
	// magnitude up to 2^53 survive both conversions unchanged.
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil || n > 1<<53 || n < -(1<<53) {
		return fmt.Sprintf("id %s is out of range (integers from -2^53 to 2^53 are echoed exactly; or use a string id)", clip(id))
	}
	return ""
}

func clip(b []byte) string {
	if len(b) > maxEchoedID {
		return string(b[:maxEchoedID]) + "..."
	}
	return string(b)
}

// ErrorResponse returns a JSON-RPC error response with the raw id (nil:
// null), the code and the message.
func ErrorResponse(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return b
}
