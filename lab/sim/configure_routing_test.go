package sim

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// TestRoutingConfigTextRoundTrip renders a device with every OSPF and BGP
// setting in both dialects and parses the text back to the same tree.
func TestRoutingConfigTextRoundTrip(t *testing.T) {
	d := fullRoutingDevice(t)
	for _, dialect := range []string{DialectVRP, DialectXR} {
		t.Run(dialect, func(t *testing.T) {
			c := devConfig{dev: d, hostname: d.Name}
			text := renderConfig(c, dialect, time.Time{}, "")
			back, err := parseConfigText(text, dialect, d)
			if err != nil {
				t.Fatalf("parse: %v\n%s", err, text)
			}
			want, _ := json.MarshalIndent(deviceToTree(c.dev, c.hostname), "", " ")
			got, _ := json.MarshalIndent(deviceToTree(back.dev, back.hostname), "", " ")
			if string(want) != string(got) {
				t.Errorf("round trip differs\ntext:\n%s\nwant:\n%s\ngot:\n%s", text, want, got)
			}
		})
	}
}

// routingConfigureCase is a configuration of OSPF or BGP on one device:
// check says what is wrong with the model after the commit ("" when it
// is right), running lists lines the running text must show.
type routingConfigureCase struct {
	name, dev string
	lines     []string
	check     func(d topology.Device) string
	running   []string
}

// TestRoutingConfigureVRP checks that OSPF and BGP configuration commands
// of huawei-vrp become candidate edits, that a commit changes the network
// model's configuration of the device, and that the running configuration
// text shows the change.
func TestRoutingConfigureVRP(t *testing.T) {
	testRoutingConfigure(t, []routingConfigureCase{
		{"vrp peer shutdown", "r1", []string{"bgp 65001", "peer 10.0.12.2 ignore"},
			func(d topology.Device) string {
				if !d.BGP.Neighbors[0].Shutdown {
					return "peer 10.0.12.2 not shut down"
				}
				return ""
			}, []string{" peer 10.0.12.2 ignore"}},
		{"vrp wrong peer AS", "r1", []string{"bgp 65001", "peer 10.0.12.2 as-number 65099"},
			func(d topology.Device) string {
				if d.BGP.Neighbors[0].RemoteAS != 65099 {
					return "remote AS not changed"
				}
				return ""
			}, []string{" peer 10.0.12.2 as-number 65099"}},
		{"vrp new peer and network", "r1", []string{"bgp 65001", "peer 10.9.9.9 as-number 65009", "peer 10.9.9.9 connect-interface LoopBack0",
			"peer 10.9.9.9 ebgp-max-hop 3", "ipv4-family unicast", "network 10.255.0.1 255.255.255.255", "peer 10.9.9.9 route-limit 100"},
			func(d topology.Device) string {
				n := d.BGP.Neighbors[1]
				if n.Address != "10.9.9.9" || n.RemoteAS != 65009 || n.UpdateSource != "LoopBack0" || n.EBGPMultihop != 3 || n.MaxPrefix != 100 {
					return "peer is " + fmtValue(n)
				}
				if d.BGP.Networks[1] != "10.255.0.1/32" {
					return "networks " + fmtValue(d.BGP.Networks)
				}
				return ""
			}, []string{"  network 10.255.0.1 255.255.255.255", "  peer 10.9.9.9 route-limit 100"}},
		{"vrp network removed", "r1", []string{"bgp 65001", "ipv4-family unicast", "undo network 172.16.0.0 255.240.0.0"},
			func(d topology.Device) string {
				if len(d.BGP.Networks) != 0 {
					return "networks " + fmtValue(d.BGP.Networks)
				}
				return ""
			}, nil},
		{"vrp interface ospf", "r1", []string{"interface GigabitEthernet0/0/0", "ospf cost 30", "ospf timer hello 5", "ospf enable 1 area 0.0.0.1"},
			func(d topology.Device) string {
				o := d.Interfaces[2].OSPF
				if o == nil || o.Area != "0.0.0.1" || o.Cost != 30 || o.Hello != 5 {
					return "interface OSPF " + fmtValue(o)
				}
				return ""
			}, []string{" ospf cost 30", " ospf enable 1 area 0.0.0.1"}},
		{"vrp ospf network statement", "r1", []string{"interface GigabitEthernet0/0/0", "undo ospf enable", "quit", "ospf 1 router-id 10.255.0.1",
			"area 0", "network 10.0.12.0 0.0.0.3"},
			func(d topology.Device) string {
				if o := d.Interfaces[2].OSPF; o == nil || o.Area != "0.0.0.0" || o.NetworkType != "" {
					return "interface OSPF " + fmtValue(o)
				}
				if d.OSPF.RouterID != "10.255.0.1" {
					return "router id " + d.OSPF.RouterID
				}
				return ""
			}, []string{"ospf 1 router-id 10.255.0.1"}},
		{"vrp undo ospf", "r1", []string{"undo ospf 1"},
			func(d topology.Device) string {
				if d.OSPF != nil || d.Interfaces[0].OSPF != nil {
					return "OSPF still configured"
				}
				return ""
			}, nil},
	})
}

// TestRoutingConfigureXR is TestRoutingConfigureVRP for cisco-iosxr.
func TestRoutingConfigureXR(t *testing.T) {
	testRoutingConfigure(t, []routingConfigureCase{
		{"xr neighbor shutdown", "r2", []string{"router bgp 65000", "neighbor 10.0.12.1", "shutdown"},
			func(d topology.Device) string {
				if !d.BGP.Neighbors[0].Shutdown {
					return "neighbor not shut down"
				}
				return ""
			}, []string{"  shutdown"}},
		{"xr new neighbor", "r2", []string{"router bgp 65000", "neighbor 10.9.9.9", "remote-as 65009", "password clear k3y",
			"address-family ipv4 unicast", "maximum-prefix 10", "exit", "exit", "address-family ipv4 unicast", "network 10.255.0.2/32"},
			func(d topology.Device) string {
				n := d.BGP.Neighbors[2]
				if n.Address != "10.9.9.9" || n.RemoteAS != 65009 || n.Password != "k3y" || n.MaxPrefix != 10 {
					return "neighbor " + fmtValue(n)
				}
				if len(d.BGP.Networks) != 1 || d.BGP.Networks[0] != "10.255.0.2/32" {
					return "networks " + fmtValue(d.BGP.Networks)
				}
				return ""
			}, []string{" neighbor 10.9.9.9", "   maximum-prefix 10", "  network 10.255.0.2/32"}},
		{"xr ospf interface", "r2", []string{"router ospf 1", "router-id 10.255.0.2", "area 0", "interface GigabitEthernet0/0/0/1", "cost 40",
			"hello-interval 3", "dead-interval 12", "mtu-ignore enable"},
			func(d topology.Device) string {
				o := d.Interfaces[2].OSPF
				if o == nil || o.Cost != 40 || o.Hello != 3 || o.Dead != 12 || !o.MTUIgnore || o.NetworkType != topology.OSPFPointToPoint {
					return "interface OSPF " + fmtValue(o)
				}
				return ""
			}, []string{"   cost 40", "   mtu-ignore enable", " router-id 10.255.0.2"}},
		{"xr area change", "r2", []string{"router ospf 1", "area 0", "no interface GigabitEthernet0/0/0/1", "exit", "area 1", "interface GigabitEthernet0/0/0/1"},
			func(d topology.Device) string {
				if o := d.Interfaces[2].OSPF; o == nil || o.Area != "0.0.0.1" || o.NetworkType != "" {
					return "interface OSPF " + fmtValue(o)
				}
				return ""
			}, []string{" area 1"}},
		{"xr no router bgp", "r2", []string{"no router bgp 65000"},
			func(d topology.Device) string {
				if d.BGP != nil {
					return "BGP still configured"
				}
				return ""
			}, nil},
	})
}

func testRoutingConfigure(t *testing.T, tests []routingConfigureCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lab, _ := newTestLab(t)
			d := mustDevice(t, lab, tc.dev)
			edits, err := d.PlanConfigure(context.Background(), alice, tc.lines)
			if err != nil || len(edits) == 0 {
				t.Fatalf("PlanConfigure: %d edits, %v", len(edits), err)
			}
			for _, e := range edits {
				if !strings.Contains(e.Path, "openconfig-network-instance:network-instances") {
					t.Errorf("edit outside the network instances: %+v", e)
				}
			}
			commitLines(t, d, tc.lines...)
			dev, ok := lab.Network().Device(tc.dev)
			if !ok {
				t.Fatal("device gone from the model")
			}
			if msg := tc.check(dev); msg != "" {
				t.Errorf("model after commit: %s", msg)
			}
			cmd := "display current-configuration"
			if d.dialect == DialectXR {
				cmd = "show running-config"
			}
			text, err := d.Exec(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.running {
				if !strings.Contains(text, l+"\n") {
					t.Errorf("running config lacks %q:\n%s", l, text)
				}
			}
		})
	}
}

// TestRoutingConfigureRejects checks that bad OSPF and BGP lines change
// nothing and say why.
func TestRoutingConfigureRejects(t *testing.T) {
	tests := []struct {
		dev   string
		lines []string
		want  string
	}{
		{"r1", []string{"bgp 65002"}, "already running in AS 65001"},
		{"r1", []string{"bgp 65001", "peer 10.9.9.9 ignore"}, "not configured"},
		{"r1", []string{"bgp 65001", "peer 10.0.12.2 password secret x"}, "cipher|simple"},
		{"r1", []string{"interface GigabitEthernet0/0/1", "ospf cost 5"}, "in no area"},
		{"r1", []string{"interface GigabitEthernet0/0/0", "ospf network-type nbma"}, "p2p or broadcast"},
		{"r1", []string{"ospf 1", "area 0", "network 192.0.2.0 0.0.0.255"}, "no interface address"},
		{"r2", []string{"router bgp 65000", "neighbor 10.9.9.9", "description no AS"}, "no remote AS"},
		{"r2", []string{"router bgp 65000", "neighbor bogus"}, "bad peer address"},
		{"r2", []string{"router ospf 1", "area 0", "interface Nope0"}, "no such interface"},
		{"r2", []string{"router ospf 1", "area x"}, "bad OSPF area"},
	}
	for _, tc := range tests {
		t.Run(tc.dev+"/"+strings.Join(tc.lines, ";"), func(t *testing.T) {
			lab, _ := newTestLab(t)
			d := mustDevice(t, lab, tc.dev)
			before := d.store.Candidate(alice)
			err := d.Configure(context.Background(), alice, tc.lines)
			if codeOf(err) != netproto.CodeConfigIncompatible || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want -32084 with %q", err, tc.want)
			}
			after := d.store.Candidate(alice)
			if fmtValue(before) != fmtValue(after) {
				t.Error("a rejected configuration changed the candidate")
			}
		})
	}
}
