package sshcli

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// TestConfigInterfaces reads the interface blocks of printed
// configurations and pending lines of each dialect.
func TestConfigInterfaces(t *testing.T) {
	tests := []struct {
		name, dialect   string
		config, pending []string
		want            string
	}{
		{"vrp blocks; nested and other blocks ignored", DialectVRP,
			[]string{"sysname r1", "interface GigabitEthernet0/0/0", " description to r2 Gi0/0/0/0", " undo shutdown", " ip address 10.0.12.1 255.255.255.252",
				"interface LoopBack0", " shutdown", "ospf 1", " silent-interface LoopBack0"}, nil,
			`[{"description":"to r2 Gi0/0/0/0","enabled":true,"name":"GigabitEthernet0/0/0","type":"iana-if-type:ethernetCsmacd"},` +
				`{"enabled":false,"name":"LoopBack0","type":"iana-if-type:softwareLoopback"}]`},
		{"xr: an interface under router ospf is not an interface block", DialectXR,
			[]string{"interface GigabitEthernet0/0/0/2", " description unused", " shutdown", "router ospf 1", " area 0", "  interface GigabitEthernet0/0/0/9"}, nil,
			`[{"description":"unused","enabled":false,"name":"GigabitEthernet0/0/0/2","type":"iana-if-type:ethernetCsmacd"}]`},
		{"pending lines change, remove and add", DialectXR,
			[]string{"interface Gi0", " description old", "interface Gi1", " description keep"},
			[]string{"interface Gi0", "no description", "exit", "description not in a context", "interface Gi2", "description new", "no shutdown"},
			`[{"name":"Gi0","type":"iana-if-type:ethernetCsmacd"},{"description":"keep","name":"Gi1","type":"iana-if-type:ethernetCsmacd"},` +
				`{"description":"new","enabled":true,"name":"Gi2","type":"iana-if-type:ethernetCsmacd"}]`},
		{"vrp undo in pending lines", DialectVRP,
			[]string{"interface GE0", " description old"}, []string{"interface GE0", "undo description", "shutdown", "quit"},
			`[{"enabled":false,"name":"GE0","type":"iana-if-type:ethernetCsmacd"}]`},
		{"frr", DialectFRR, []string{"interface eth0", " description uplink via ssh"}, nil,
			`[{"description":"uplink via ssh","name":"eth0","type":"iana-if-type:ethernetCsmacd"}]`},
		{"no interface", DialectFRR, []string{"ip route 192.0.2.0/24 Null0"}, nil, `[]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := json.Marshal(configInterfaces(dialects[tc.dialect], tc.config, tc.pending))
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestEditLines translates the one YANG edit the driver takes into each
// dialect's lines, and refuses the others with a code and the edit's path.
func TestEditLines(t *testing.T) {
	const desc = "/openconfig-interfaces:interfaces/interface[name='Gi0/0/0']/config/description"
	tests := []struct {
		name, dialect string
		edit          device.Edit
		want          []string
		code          int
	}{
		{"xr set", DialectXR, device.Edit{Path: desc, Value: "to r1"}, []string{"interface Gi0/0/0", "description to r1", "exit"}, 0},
		{"vrp replace", DialectVRP, device.Edit{Operation: device.OpReplace, Path: desc, Value: "to r2"}, []string{"interface Gi0/0/0", "description to r2", "quit"}, 0},
		{"vrp delete", DialectVRP, device.Edit{Operation: device.OpDelete, Path: desc}, []string{"interface Gi0/0/0", "undo description", "quit"}, 0},
		{"frr remove", DialectFRR, device.Edit{Operation: device.OpRemove, Path: desc}, []string{"interface Gi0/0/0", "no description", "exit"}, 0},
		{"junos set", DialectJunos, device.Edit{Path: desc, Value: "to r3"}, []string{`set interfaces Gi0/0/0 description "to r3"`}, 0},
		{"junos delete", DialectJunos, device.Edit{Operation: device.OpDelete, Path: desc}, []string{"delete interfaces Gi0/0/0 description"}, 0},
		{"junos quote", DialectJunos, device.Edit{Path: desc, Value: `a "b"`}, nil, netproto.CodeConfigIncompatible},
		{"another leaf", DialectXR, device.Edit{Path: "/openconfig-interfaces:interfaces/interface[name='Gi0']/config/mtu", Value: 9000.0}, nil, netproto.CodeConfigIncompatible},
		{"another module", DialectXR, device.Edit{Path: "/ietf-interfaces:interfaces/interface[name='Gi0']/description", Value: "x"}, nil, netproto.CodeConfigIncompatible},
		{"not a string", DialectXR, device.Edit{Path: desc, Value: 3.0}, nil, netproto.CodeConfigIncompatible},
		{"blank", DialectXR, device.Edit{Path: desc, Value: " x "}, nil, netproto.CodeConfigIncompatible},
		{"two words as a name", DialectXR, device.Edit{Path: "/openconfig-interfaces:interfaces/interface[name='Gi0 shutdown']/config/description", Value: "x"}, nil, netproto.CodeConfigIncompatible},
		{"bad operation", DialectXR, device.Edit{Operation: "frobnicate", Path: desc, Value: "x"}, nil, netproto.CodeYangSyntaxError},
		{"bad path", DialectXR, device.Edit{Path: "/openconfig-interfaces:interfaces/interface[name='x", Value: "x"}, nil, netproto.CodeYangSyntaxError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			drv := &Driver{cfg: Config{Name: "r9"}, d: dialects[tc.dialect]}
			got, err := drv.editLines(tc.edit)
			if tc.code == 0 {
				if err != nil || !slices.Equal(got, tc.want) {
					t.Fatalf("lines %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			var ne *netproto.Error
			if !errors.As(err, &ne) || ne.Code != tc.code {
				t.Fatalf("lines %q, error %v; want code %d", got, err, tc.code)
			}
			if tc.code == netproto.CodeConfigIncompatible && (ne.Path != tc.edit.Path || !strings.Contains(err.Error(), "network.cli.configure")) {
				t.Errorf("refusal %v (path %q) does not name the edit's path and network.cli.configure", err, ne.Path)
			}
		})
	}
}
