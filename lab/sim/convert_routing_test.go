package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/yang"
)

// fullRoutingDevice is r2 of the default lab with every OSPF and BGP
// setting the topology has.
func fullRoutingDevice(t *testing.T) topology.Device {
	t.Helper()
	var d topology.Device
	for _, x := range DefaultTopology().Devices {
		if x.Name == "r2" {
			d = x
		}
	}
	d.Interfaces = append([]topology.Interface(nil), d.Interfaces...)
	prio := 0
	d.Interfaces[1].OSPF = &topology.InterfaceOSPF{Area: "0.0.0.0", NetworkType: topology.OSPFBroadcast, Cost: 25,
		Hello: 5, Dead: 20, Priority: &prio, MTUIgnore: true}
	d.Interfaces[3].OSPF = &topology.InterfaceOSPF{Area: "0.0.0.1", NetworkType: topology.OSPFPointToPoint, Passive: true}
	d.OSPF = &topology.OSPF{RouterID: "10.255.0.2", Redistribute: []string{"connected", "bgp"}, DefaultOriginate: true, ReferenceBandwidthMbps: 10000}
	d.BGP = &topology.BGP{ASN: 65000, RouterID: "10.255.0.2", Keepalive: 30, Hold: 90,
		Networks: []string{"10.2.0.0/16", "2001:db8:2::/48"}, Redistribute: []string{"static", "ospf"},
		Neighbors: []topology.BGPNeighbor{
			{Address: "10.0.12.1", RemoteAS: 65001, Description: "r1", Password: "md5-s3cret", EBGPMultihop: 2, MaxPrefix: 1000},
			{Address: "10.255.0.3", RemoteAS: 65000, Description: "r3", UpdateSource: "Loopback0", NextHopSelf: true, Shutdown: true},
			{Address: "2001:db8:12::1", RemoteAS: 65001, MaxPrefix: 50},
		}}
	return d
}

// routingOf is what a round trip must keep: the processes and every
// interface's OSPF settings.
func routingOf(d topology.Device) (o *topology.OSPF, b *topology.BGP, ifs map[string]*topology.InterfaceOSPF) {
	ifs = map[string]*topology.InterfaceOSPF{}
	for _, it := range d.Interfaces {
		if it.OSPF != nil {
			x := *it.OSPF
			x.Area = dialect.DottedArea(x.Area)
			ifs[it.Name] = &x
		}
	}
	return d.OSPF, d.BGP, ifs
}

// TestRoutingRoundTrip checks topology -> tree -> topology for OSPF and
// BGP: the tree passes the schema and reads back to the same settings.
func TestRoutingRoundTrip(t *testing.T) {
	devs := []topology.Device{fullRoutingDevice(t)}
	for _, d := range DefaultTopology().Devices {
		if d.Kind != topology.KindHost {
			devs = append(devs, d)
		}
	}
	devs[0].Name = "full"
	for _, d := range devs {
		t.Run(d.Name, func(t *testing.T) {
			tree := DeviceToTree(d)
			norm, err := yang.Normalize(tree)
			if err != nil {
				t.Fatal(err)
			}
			if err := yang.DefaultSchema().Validate(norm.(map[string]any)); err != nil {
				t.Fatalf("schema rejects the tree: %v", err)
			}
			back, err := TreeToDevice(tree, d)
			if err != nil {
				t.Fatalf("TreeToDevice: %v", err)
			}
			wo, wb, wi := routingOf(d)
			go_, gb, gi := routingOf(back)
			if wo != nil && wo.Redistribute == nil {
				wo.Redistribute = []string{}
			}
			if go_ != nil && go_.Redistribute == nil {
				go_.Redistribute = []string{}
			}
			if !reflect.DeepEqual(go_, wo) {
				t.Errorf("OSPF after the round trip: %+v, want %+v", go_, wo)
			}
			if !reflect.DeepEqual(gb, wb) {
				t.Errorf("BGP after the round trip:\n got %+v\nwant %+v", gb, wb)
			}
			if !reflect.DeepEqual(gi, wi) {
				t.Errorf("interface OSPF after the round trip:\n got %v\nwant %v", gi, wi)
			}
		})
	}
}

// TestRoutingTreeGolden holds the default network-instance of a device
// with every setting, and of the default lab's r1 and r2, against
// testdata/yang_routing_<name>.golden.json.
func TestRoutingTreeGolden(t *testing.T) {
	devs := map[string]topology.Device{"full": fullRoutingDevice(t)}
	for _, d := range DefaultTopology().Devices {
		if d.Name == "r1" || d.Name == "r2" {
			devs[d.Name] = d
		}
	}
	for name, d := range devs {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(defaultInstanceToTree(d), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "yang_routing_"+name+".golden.json"), string(got)+"\n")
		})
	}
}

// checkGolden compares got with a golden file (rewritten with -update).
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got:\n%s\n--- want:\n%s", golden, got, want)
	}
}

// TestBGPPasswordIsSecret checks that the neighbour's auth-password is a
// secret leaf: Redact masks it and Diff does not show it.
func TestBGPPasswordIsSecret(t *testing.T) {
	if !yang.IsSecret("auth-password") {
		t.Fatal("auth-password is not a secret leaf")
	}
	d := fullRoutingDevice(t)
	tree := DeviceToTree(d)
	red, _ := json.Marshal(yang.Redact(tree))
	if strings.Contains(string(red), "md5-s3cret") {
		t.Errorf("Redact leaves the BGP password in the tree: %s", red)
	}
	d2 := fullRoutingDevice(t)
	d2.BGP.Neighbors[0].Password = "other-s3cret"
	for _, ch := range yang.Diff(tree, DeviceToTree(d2), yang.DefaultSchema()) {
		if s := fmtValue(ch.Old) + fmtValue(ch.New); strings.Contains(s, "s3cret") {
			t.Errorf("Diff shows the password: %+v", ch)
		}
	}
}
