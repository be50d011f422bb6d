package rpcconn

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestCheck: Check accepts and decodes what the SDK handles correctly and
// answers the rest with the JSON-RPC error.
func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		code int // 0: accepted
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, 0},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"ping"}`, 0},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
		{"response", `{"jsonrpc":"2.0","id":3,"result":{}}`, 0},
		{"white space", "  \n", 0},
		{"not JSON", `{"jsonrpc":"2.0",`, -32700},
		{"two values", `{} {}`, -32700},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600},
		{"not an object", `"ping"`, -32600},
		{"no version", `{"id":1,"method":"ping"}`, -32600},
		{"version 1", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, -32600},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{"huge id", `{"jsonrpc":"2.0","id":18014398509481984,"method":"ping"}`, -32600},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600},
		{"method a number", `{"jsonrpc":"2.0","id":1,"method":5}`, -32600},
		{"neither request nor response", `{"jsonrpc":"2.0"}`, -32600},
		{"response with a bad error", `{"jsonrpc":"2.0","id":1,"error":5}`, -32600},
		{"initialize with bad params", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":5}}`, -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, reply := Check([]byte(tt.msg))
			if tt.code == 0 {
				if reply != nil {
					t.Fatalf("refused: %s", reply)
				}
				if msg == nil && len(bytes.TrimSpace([]byte(tt.msg))) > 0 {
					t.Fatal("Check accepted the message but returned no decoded message")
				}
				return
			}
			var r struct {
				Error struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(reply, &r); err != nil || r.Error.Code != tt.code {
				t.Fatalf("reply %s, want code %d", reply, tt.code)
			}
		})
	}
}

// BenchmarkCheck measures Check on a tools/call request.
func BenchmarkCheck(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"network.yang.get","arguments":{"path":"/openconfig-interfaces:interfaces","datastore":"running"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		Check(msg)
	}
}
