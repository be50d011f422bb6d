package transport

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestNormalize(t *testing.T) {
	syslogID := SubscriptionID("network:///log/syslog/last200")
	tests := []struct {
		name, in, want string
	}{
		{"untouched", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"read without cursor", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"network:///interfaces"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"network:///interfaces"}}`},
		{"read cursor", `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"network:///interfaces","cursor":"abc"}}`,
			`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"network:///interfaces","_meta":{"ietf.org/mcp-net/cursor":"abc"}}}`},
		{"read cursor keeps meta", `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"u:","cursor":"c","_meta":{"progressToken":7}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"u:","_meta":{"progressToken":7,"ietf.org/mcp-net/cursor":"c"}}}`},
		{"unsubscribe id", `{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"subscriptionId":"` + syslogID + `"}}`,
			`{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"uri":"network:///log/syslog/last200","_meta":{"ietf.org/mcp-net/subscriptionId":"` + syslogID + `"}}}`},
		{"unsubscribe bad id", `{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"subscriptionId":"syslog-42"}}`,
			`{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"uri":"","_meta":{"ietf.org/mcp-net/subscriptionId":"syslog-42"}}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"u:","cursor":"c"}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
			`[{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"u:","_meta":{"ietf.org/mcp-net/cursor":"c"}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`},
		{"not json", `{"method":"resources/read",`, `{"method":"resources/read",`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize([]byte(tt.in))
			var g, w any
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				if string(got) != tt.want {
					t.Fatalf("got %s, want %s", got, tt.want)
				}
				return
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("output not JSON: %s", got)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSubscriptionIDRoundTrip(t *testing.T) {
	for _, uri := range []string{"network:///system/cpu-utilization", "network:///interface/Gi0/0/0/1"} {
		got, ok := SubscriptionURI(SubscriptionID(uri))
		if !ok || got != uri {
			t.Errorf("round trip of %q gave %q, %v", uri, got, ok)
		}
	}
	for _, bad := range []string{"", "sub-", "syslog-42", "sub-!!"} {
		if _, ok := SubscriptionURI(bad); ok {
			t.Errorf("SubscriptionURI(%q) accepted", bad)
		}
	}
}
