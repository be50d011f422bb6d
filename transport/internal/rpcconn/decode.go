package rpcconn

import (
	"bytes"
	"encoding/json"
	"fmt"

	segjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireMessage is the SDK's wire form of a JSON-RPC message
// (go-sdk internal/jsonrpc2.wireDecode), decoded by decodeMessage.
type wireMessage struct {
	VersionTag string          `json:"jsonrpc"`
	Method     json.RawMessage `json:"method,omitempty"`
	ID         any             `json:"id,omitempty"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// decodeMessage is jsonrpc.DecodeMessage with the same library and flags
// (segmentio/encoding, case-sensitive member names), so it accepts and
// makes exactly what the SDK's would, but parses the bytes in place: the
// SDK decodes a byte slice through a streaming decoder that allocates a
// fresh 32 KiB buffer per message (docs/performance.md), about 12 us and
// 66 KB per tools/call request here.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var msg wireMessage
	rest, err := segjson.Parse(data, &msg, segjson.DontMatchCaseInsensitiveStructFields)
	if err == nil && len(bytes.TrimSpace(rest)) != 0 {
		err = fmt.Errorf("invalid character %q after top-level value", rest[0])
	}
	if err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if msg.VersionTag != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", msg.VersionTag, "2.0")
	}
	id, err := jsonrpc.MakeID(msg.ID)
	if err != nil {
		return nil, err
	}
	if len(msg.Method) > 0 {
		var method string
		if _, err := segjson.Parse(msg.Method, &method, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: msg.Params}, nil
	}
	if !id.IsValid() {
		return nil, errInvalidRequest
	}
	resp := &jsonrpc.Response{ID: id, Result: msg.Result}
	if msg.Error != nil {
		resp.Error = msg.Error
	}
	return resp, nil
}

// errInvalidRequest is the SDK's jsonrpc2.ErrInvalidRequest: a message
// with neither a method nor an id.
var errInvalidRequest = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
