package ocview_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/netmcp/netmcp/device/ocview"
)

// tree decodes an RFC 7951 document as the drivers hold it.
func tree(t testing.TB, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("bad test document %s: %v", doc, err)
	}
	return m
}

func TestFromIETF(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // JSON of the view; "null" for none
	}{
		{"no interfaces", `{"ietf-routing:routing":{}}`, `null`},
		{"empty list", `{"ietf-interfaces:interfaces":{"interface":[]}}`, `null`},
		{"configuration only: no state",
			`{"ietf-interfaces:interfaces":{"interface":[{"name":"eth0","type":"iana-if-type:ethernetCsmacd","description":"uplink","enabled":true,
			  "ietf-ip:ipv4":{"mtu":1500,"address":[{"ip":"192.0.2.1","prefix-length":24}]},
			  "ietf-ip:ipv6":{"address":[{"ip":"2001:db8::1","prefix-length":64}]}}]}}`,
			`{"interface":[{"config":{"description":"uplink","enabled":true,"mtu":1500,"name":"eth0","type":"iana-if-type:ethernetCsmacd"},"name":"eth0",` +
				`"subinterfaces":{"subinterface":[{"config":{"index":0},"index":0,` +
				`"openconfig-if-ip:ipv4":{"addresses":{"address":[{"config":{"ip":"192.0.2.1","prefix-length":24},"ip":"192.0.2.1"}]}},` +
				`"openconfig-if-ip:ipv6":{"addresses":{"address":[{"config":{"ip":"2001:db8::1","prefix-length":64},"ip":"2001:db8::1"}]}}}]}}]}`},
		{"RFC 7223 interfaces-state: status upper-cased, counters without discontinuity-time, config copied into state",
			`{"ietf-interfaces:interfaces":{"interface":[{"name":"eth0","description":"uplink","enabled":true}]},
			  "ietf-interfaces:interfaces-state":{"interface":[{"name":"eth0","type":"iana-if-type:ethernetCsmacd","oper-status":"lower-layer-down","admin-status":"up",
			    "statistics":{"in-octets":"10","discontinuity-time":"2026-01-01T00:00:00Z"}}]}}`,
			`{"interface":[{"config":{"description":"uplink","enabled":true,"name":"eth0"},"name":"eth0",` +
				`"state":{"admin-status":"UP","counters":{"in-octets":"10"},"description":"uplink","enabled":true,"name":"eth0","oper-status":"LOWER_LAYER_DOWN","type":"iana-if-type:ethernetCsmacd"}}]}`},
		{"state-only interface gets a config with its name",
			`{"ietf-interfaces:interfaces-state":{"interface":[{"name":"lo","oper-status":"up"}]}}`,
			`{"interface":[{"config":{"name":"lo"},"name":"lo","state":{"name":"lo","oper-status":"UP"}}]}`},
		{"NMDA: state leaves of the interfaces entry itself",
			`{"ietf-interfaces:interfaces":{"interface":[{"name":"Gi0","type":"iana-if-type:ethernetCsmacd","enabled":false,"admin-status":"down","oper-status":"down",
			  "statistics":{"out-octets":"7"},"ietf-ip:ipv4":{"mtu":9000}}]}}`,
			`{"interface":[{"config":{"enabled":false,"mtu":9000,"name":"Gi0","type":"iana-if-type:ethernetCsmacd"},"name":"Gi0",` +
				`"state":{"admin-status":"DOWN","counters":{"out-octets":"7"},"enabled":false,"mtu":9000,"name":"Gi0","oper-status":"DOWN","type":"iana-if-type:ethernetCsmacd"}}]}`},
		{"an interfaces-state entry wins over the NMDA leaves",
			`{"ietf-interfaces:interfaces":{"interface":[{"name":"eth0","oper-status":"down"}]},
			  "ietf-interfaces:interfaces-state":{"interface":[{"name":"eth0","oper-status":"up"}]}}`,
			`{"interface":[{"config":{"name":"eth0"},"name":"eth0","state":{"name":"eth0","oper-status":"UP"}}]}`},
		{"order of first appearance; nameless entries and addresses skipped",
			`{"ietf-interfaces:interfaces":{"interface":[{"name":"b"},{"description":"no name"},{"name":"a","ietf-ip:ipv4":{"address":[{"prefix-length":24}]}}]},
			  "ietf-interfaces:interfaces-state":{"interface":[{"name":"c"},{"name":"a"}]}}`,
			`{"interface":[{"config":{"name":"b"},"name":"b"},{"config":{"name":"a"},"name":"a","state":{"name":"a"}},{"config":{"name":"c"},"name":"c","state":{"name":"c"}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tree(t, tc.in)
			before, _ := json.Marshal(in)
			v := ocview.FromIETF(in)
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "null" {
				if v != nil {
					t.Fatalf("view %s, want nil", got)
				}
			} else if string(got) != tc.want {
				t.Fatalf("view\n got %s\nwant %s", got, tc.want)
			}
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("FromIETF changed its input:\n%s\nwas\n%s", after, before)
			}
			// The view shares no map with the input.
			if l, ok := v["interface"].([]any); ok {
				for _, e := range l {
					e.(map[string]any)["config"].(map[string]any)["description"] = "changed"
				}
				if after, _ := json.Marshal(in); string(after) != string(before) {
					t.Errorf("editing the view changed the input: %s", after)
				}
			}
		})
	}
}

func TestAdd(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		added   bool
		members int
	}{
		{"interfaces", `{"ietf-interfaces:interfaces":{"interface":[{"name":"eth0"}]},"ietf-routing:routing":{}}`, true, 3},
		{"none", `{"ietf-routing:routing":{}}`, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tree(t, tc.in)
			if got := ocview.Add(m); got != tc.added {
				t.Errorf("Add = %v, want %v", got, tc.added)
			}
			if len(m) != tc.members {
				t.Errorf("tree has %d members, want %d: %v", len(m), tc.members, m)
			}
			if _, ok := m[ocview.Member]; ok != tc.added {
				t.Errorf("member %s present: %v, want %v", ocview.Member, ok, tc.added)
			}
		})
	}
}

// Example derives the openconfig view of an NMDA ietf-interfaces tree,
// as the ssh:// driver parses it from show output.
func Example() {
	var tree map[string]any
	_ = json.Unmarshal([]byte(`{"ietf-interfaces:interfaces":{"interface":[
		{"name":"GigabitEthernet0/0/0","type":"iana-if-type:ethernetCsmacd","enabled":true,
		 "admin-status":"up","oper-status":"up","description":"to r2",
		 "ietf-ip:ipv4":{"mtu":1500,"address":[{"ip":"10.0.12.1","prefix-length":30}]}}]}}`), &tree)
	ocview.Add(tree)
	out, _ := json.MarshalIndent(tree[ocview.Member], "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "interface": [
	//     {
	//       "config": {
	//         "description": "to r2",
	//         "enabled": true,
	//         "mtu": 1500,
	//         "name": "GigabitEthernet0/0/0",
	//         "type": "iana-if-type:ethernetCsmacd"
	//       },
	//       "name": "GigabitEthernet0/0/0",
	//       "state": {
	//         "admin-status": "UP",
	//         "description": "to r2",
	//         "enabled": true,
	//         "mtu": 1500,
	//         "name": "GigabitEthernet0/0/0",
	//         "oper-status": "UP",
	//         "type": "iana-if-type:ethernetCsmacd"
	//       },
	//       "subinterfaces": {
	//         "subinterface": [
	//           {
	//             "config": {
	//               "index": 0
	//             },
	//             "index": 0,
	//             "openconfig-if-ip:ipv4": {
	//               "addresses": {
	//                 "address": [
	//                   {
	//                     "config": {
	//                       "ip": "10.0.12.1",
	//                       "prefix-length": 30
	//                     },
	//                     "ip": "10.0.12.1"
	//                   }
	//                 ]
	//               }
	//             }
	//           }
	//         ]
	//       }
	//     }
	//   ]
	// }
}
