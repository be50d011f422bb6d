package rpcconn

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func mustID(t testing.TB, v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestEncodeMatchesSDK: the fast encoding of responses gives the
// bytes of the SDK's jsonrpc.EncodeMessage, for every kind of id, result
// and error.
func TestEncodeMatchesSDK(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"a \u003cb\u003e \"q\" é"}],"isError":false}`)
	tests := []struct {
		name string
		id   any // nil: no id
		res  json.RawMessage
		err  *jsonrpc.Error
	}{
		{"number id", float64(42), result, nil},
		{"zero id", float64(0), result, nil},
		{"negative id", float64(-9007199254740992), result, nil},
		{"string id", "abc-1", result, nil},
		{"empty string id", "", result, nil},
		{"string id with quote", `a"b`, result, nil},
		{"string id with html", "<a&b>", result, nil},
		{"string id non-ASCII", "é\u2028", result, nil},
		{"string id control", "a\tb", result, nil},
		{"empty result", float64(1), json.RawMessage(`{}`), nil},
		{"no result", float64(1), nil, nil},
		{"error", float64(3), nil, &jsonrpc.Error{Code: -32601, Message: "method not found"}},
		{"error with data", "x", nil, &jsonrpc.Error{Code: -32022, Message: "m", Data: json.RawMessage(`{"supported":["2025-11-25"]}`)}},
		{"null id error", nil, nil, &jsonrpc.Error{Code: -32700, Message: "parse error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &jsonrpc.Response{ID: mustID(t, tt.id), Result: tt.res}
			if tt.err != nil {
				resp.Error = tt.err
			}
			want, err := jsonrpc.EncodeMessage(resp)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Encode(resp)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Encode = %s\nEncodeMessage = %s", got, want)
			}
		})
	}
}

// FuzzEncode: for any string or integer id and any result as the
// SDK makes it (json.Marshal output), the fast encoding equals the SDK's.
func FuzzEncode(f *testing.F) {
	f.Add("abc", int64(1), true, `{"a":"<b>"}`)
	f.Add("é\x00", int64(-5), false, `[1,2.5,"x"]`)
	f.Fuzz(func(t *testing.T, sid string, nid int64, useString bool, value string) {
		var v any
		if json.Unmarshal([]byte(value), &v) != nil {
			t.Skip()
		}
		res, err := json.Marshal(v)
		if err != nil {
			t.Skip()
		}
		var id jsonrpc.ID
		if useString {
			id = mustID(t, sid)
		} else {
			if nid > 1<<53 || nid < -(1<<53) {
				t.Skip()
			}
			id = mustID(t, float64(nid))
		}
		resp := &jsonrpc.Response{ID: id, Result: res}
		want, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			t.Skip()
		}
		got, err := Encode(resp)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Encode = %s (%v)\nEncodeMessage = %s", got, err, want)
		}
	})
}

// BenchmarkEncodeResult compares the fast encoding of a result with the
// SDK's.
func BenchmarkEncodeResult(b *testing.B) {
	resp := &jsonrpc.Response{ID: mustID(b, float64(42)),
		Result: json.RawMessage(`{"content":[{"type":"text","text":"` + string(bytes.Repeat([]byte("interface ge-0/0/0 up; "), 40)) + `"}],"isError":false}`)}
	b.Run("Encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = Encode(resp)
		}
	})
	b.Run("jsonrpc.EncodeMessage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = jsonrpc.EncodeMessage(resp)
		}
	})
}
