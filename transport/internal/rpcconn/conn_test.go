package rpcconn

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestGiveErrorCode: an error response gets the code the SDK's encoder
// would give it (the code of a wrapped *jsonrpc.Error) or, for code 0,
// one from the call it answers; its message stays the SDK's whole message.
// Before, a wrapped sentinel replaced the message ("invalid params: json:
// cannot unmarshal ..." went out as "invalid params").
func TestGiveErrorCode(t *testing.T) {
	sentinel := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params"}
	tests := []struct {
		name        string
		err         error
		method      string
		initialized bool
		perRequest  bool
		wantCode    int64
		wantMessage string
	}{
		{"wrapped code kept with the whole message", fmt.Errorf("handling 'tools/call': %w: bad name", sentinel), "tools/call", true, false,
			jsonrpc.CodeInvalidParams, "handling 'tools/call': invalid params: bad name"},
		{"a *jsonrpc.Error passes", &jsonrpc.Error{Code: -32081, Message: "locked"}, "tools/call", true, false, -32081, "locked"},
		{"code 0 after initialize", errors.New("boom"), "tools/call", true, false, jsonrpc.CodeInternalError, "boom"},
		{"code 0 before initialize", errors.New("not initialized"), "tools/list", false, false, jsonrpc.CodeInvalidRequest, "not initialized"},
		{"code 0 per-request call", errors.New("boom"), "tools/list", false, true, jsonrpc.CodeInternalError, "boom"},
		{"failed initialize", errors.New("bad version"), "initialize", false, false, jsonrpc.CodeInvalidParams, "bad version"},
		{"second initialize", errors.New(`duplicate "initialize" received`), "initialize", true, false, jsonrpc.CodeInvalidRequest, `duplicate "initialize" received`},
		{"wrapped code 0 error", fmt.Errorf("ctx: %w", &jsonrpc.Error{Message: "inner"}), "tools/call", true, false, jsonrpc.CodeInternalError, "ctx: inner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &jsonrpc.Response{Error: tt.err}
			GiveErrorCode(resp, tt.method, tt.initialized, tt.perRequest)
			we, ok := resp.Error.(*jsonrpc.Error)
			if !ok {
				t.Fatalf("error %T, want *jsonrpc.Error", resp.Error)
			}
			if we.Code != tt.wantCode || we.Message != tt.wantMessage {
				t.Errorf("code %d message %q; want %d %q", we.Code, we.Message, tt.wantCode, tt.wantMessage)
			}
		})
	}
	if sentinel.Code != jsonrpc.CodeInvalidParams || sentinel.Message != "invalid params" {
		t.Errorf("the wrapped error was changed: %+v", *sentinel)
	}
	resp := &jsonrpc.Response{Result: []byte(`{}`)}
	if GiveErrorCode(resp, "tools/call", true, false); resp.Error != nil {
		t.Errorf("a result got error %v", resp.Error)
	}
}
