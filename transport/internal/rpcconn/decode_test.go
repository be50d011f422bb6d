package rpcconn

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeSeeds are messages of every shape decodeMessage must agree on
// with the SDK.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":null}]}}}`,
	`{"jsonrpc":"2.0","id":"abc","method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":7,"error":5}`,
	`{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\u0000b\ud800"}`,
	`{"jsonrpc":"2.0","id":-9007199254740992,"method":"x","params":[1,"\u00e9"]}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"} `,
	`  {"jsonrpc":"2.0","id":1,"method":"x"}`,
}

// sameDecoding fails t when decodeMessage and the SDK's DecodeMessage
// disagree on msg (which must be valid JSON: Check runs decodeMessage
// only then).
func sameDecoding(t *testing.T, msg []byte) {
	t.Helper()
	if !json.Valid(msg) {
		return
	}
	want, werr := jsonrpc.DecodeMessage(msg)
	got, gerr := decodeMessage(msg)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: SDK error %v, ours %v", msg, werr, gerr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: SDK %#v, ours %#v", msg, want, got)
	}
}

// TestDecodeMessageAsSDK: decodeMessage makes what the SDK makes.
func TestDecodeMessageAsSDK(t *testing.T) {
	for _, s := range decodeSeeds {
		sameDecoding(t, []byte(s))
	}
}

// FuzzDecodeMessage: decodeMessage agrees with the SDK's DecodeMessage on
// any valid JSON.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) { sameDecoding(t, msg) })
}
