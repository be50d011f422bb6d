package rpcconn

import (
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Encode is jsonrpc.EncodeMessage, with a fast path for a result
// response: its bytes are appended, since Result is already compact JSON
// (the SDK's json.Marshal of the result), where EncodeMessage would
// validate and compact it again. The bytes are EncodeMessage's (a table
// test and FuzzEncode hold them equal).
func Encode(msg jsonrpc.Message) ([]byte, error) {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && len(resp.Result) > 0 {
		b := make([]byte, 0, len(resp.Result)+64)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		if b, ok := appendID(b, resp.ID); ok {
			b = append(b, `,"result":`...)
			b = append(b, resp.Result...)
			return append(b, '}'), nil
		}
	}
	return jsonrpc.EncodeMessage(msg)
}

// appendID appends id as encoding/json (without HTML escaping) would, or
// reports false for an id it leaves to the slow path.
func appendID(b []byte, id jsonrpc.ID) ([]byte, bool) {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case string:
		for i := 0; i < len(v); i++ {
			if c := v[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				return b, false
			}
		}
		b = append(b, '"')
		b = append(b, v...)
		return append(b, '"'), true
	}
	return b, false
}
