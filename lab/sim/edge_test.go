package sim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

// TestEdgeCLIGolden: the LLDP and counter commands of both dialects, on
// the default lab ten minutes after it started.
func TestEdgeCLIGolden(t *testing.T) {
	cases := []struct {
		dev  string
		cmds []string
	}{
		{"r1", []string{"display lldp neighbor brief", "display lldp neighbor", "display lldp neighbor interface GE0/0/0",
			"reset counters interface GE0/0/0", "display interface GE0/0/0"}},
		{"r2", []string{"show lldp neighbors", "show lldp neighbors detail", "show lldp neighbors interface Gi0/0/0/1",
			"clear counters GigabitEthernet0/0/0/0", "show interfaces GigabitEthernet0/0/0/0", "clear counters"}},
	}
	lab, clk := newTestLab(t)
	clk.Advance(10 * time.Minute)
	for _, tc := range cases {
		d := mustDevice(t, lab, tc.dev)
		for _, cmd := range tc.cmds {
			t.Run(tc.dev+"/"+cmd, func(t *testing.T) {
				out, err := d.Exec(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				name := strings.NewReplacer(" ", "_", "/", "-").Replace(cmd)
				golden := filepath.Join("testdata", "edge_"+tc.dev+"_"+name+".golden")
				if *update {
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update)", err)
				}
				if out != string(want) {
					t.Errorf("output differs from %s\n--- got:\n%s\n--- want:\n%s", golden, out, want)
				}
			})
		}
	}
	for _, bad := range []struct{ dev, cmd string }{
		{"r1", "reset counters"}, {"r1", "reset counters interface Nope9"}, {"r2", "clear counters Nope9"},
		{"r1", "display lldp neighbor interface"}, {"r2", "show lldp neighbors bogus"},
	} {
		if _, err := mustDevice(t, lab, bad.dev).Exec(context.Background(), bad.cmd); err == nil {
			t.Errorf("%s %q: no error", bad.dev, bad.cmd)
		}
	}
}

// getJSON reads an operational path as JSON text.
func getJSON(t *testing.T, d *Driver, path string) string {
	t.Helper()
	v, err := d.Get(context.Background(), device.Operational, path)
	if err != nil {
		t.Fatalf("Get %s: %v", path, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestLLDPYANG: r2's neighbours by openconfig-lldp path, with r1's custom
// TLV; and the agent turned off by configuration.
func TestLLDPYANG(t *testing.T) {
	lab, _ := newTestLab(t)
	r1, r2 := mustDevice(t, lab, "r1"), mustDevice(t, lab, "r2")
	ifs := getJSON(t, r2, "/openconfig-lldp:lldp/interfaces")
	for _, want := range []string{`"system-name":"r1"`, `"system-name":"r3"`, `"port-id":"GigabitEthernet0/0/0"`,
		`"port-id-type":"INTERFACE_NAME"`, `"chassis-id-type":"MAC_ADDRESS"`, `"management-address":"10.255.0.1"`,
		`"name":"openconfig-lldp-types:ROUTER"`, `"oui":"00:00:5e"`, `"oui-subtype":"1"`, `"value":"bmV0bWNw"`} {
		if !strings.Contains(ifs, want) {
			t.Errorf("r2's LLDP interfaces lack %s:\n%s", want, ifs)
		}
	}
	nbs, err := r2.LLDPNeighbors(context.Background())
	if err != nil || len(nbs) != 2 {
		t.Fatalf("LLDPNeighbors: %v %v", nbs, err)
	}
	path := "/openconfig-lldp:lldp/interfaces/interface[name=GigabitEthernet0/0/0/0]/neighbors/neighbor[id=" + nbs[0].ChassisID + "]/custom-tlvs/tlv[type=127][oui=00:00:5e][oui-subtype=1]/state/value"
	if got := getJSON(t, r2, path); got != `"bmV0bWNw"` {
		t.Errorf("%s = %s, want the base64 of \"netmcp\"", path, got)
	}

	// r1 advertises a new TLV: r2 sees it, and it survives a commit on r1.
	ctx := context.Background()
	if err := r1.SetLLDPCustomTLVs(ctx, []device.LLDPTLV{{OUI: [3]byte{0x00, 0x00, 0x5e}, Subtype: 2, Value: []byte("agent")}}); err != nil {
		t.Fatal(err)
	}
	edit := []device.Edit{{Path: "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0]/config/description", Value: "to r2 (edited)"}}
	if err := r1.Edit(ctx, alice, edit); err != nil {
		t.Fatal(err)
	}
	if _, err := r1.Commit(ctx, alice, device.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	nbs, _ = r2.LLDPNeighbors(ctx)
	if len(nbs) == 0 || len(nbs[0].CustomTLVs) != 1 || string(nbs[0].CustomTLVs[0].Value) != "agent" || nbs[0].PortDescription != "to r2 (edited)" {
		t.Errorf("r1 as r2 sees it after the TLV change and a commit: %+v", nbs)
	}

	// LLDP off on r1 by configuration: r2 no longer hears it.
	if err := r1.Edit(ctx, alice, []device.Edit{{Path: "/openconfig-lldp:lldp/config/enabled", Value: false}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r1.Commit(ctx, alice, device.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	nbs, _ = r2.LLDPNeighbors(ctx)
	if len(nbs) != 1 || nbs[0].SystemName != "r3" {
		t.Errorf("with LLDP off on r1, r2 hears %+v, want r3 alone", nbs)
	}
	if got := getJSON(t, r1, "/openconfig-lldp:lldp/state/enabled"); got != "false" {
		t.Errorf("r1's LLDP state enabled = %s", got)
	}
}

// TestCaptureAndClearDriver: the driver's capture validates its request
// and answers from the model; clearing counters zeroes and stamps them.
func TestCaptureAndClearDriver(t *testing.T) {
	lab, clk := newTestLab(t)
	clk.Advance(10 * time.Minute)
	r2 := mustDevice(t, lab, "r2")
	ctx := context.Background()
	for _, bad := range []device.CaptureRequest{
		{}, {Interface: "Nope0"}, {Interface: "GigabitEthernet0/0/0/0", Protocol: "sctp"},
		{Interface: "GigabitEthernet0/0/0/0", Host: "not-an-ip"}, {Interface: "GigabitEthernet0/0/0/0", Port: 70000},
		{Interface: "GigabitEthernet0/0/0/0", Protocol: "icmp", Port: 179}, {Interface: "GigabitEthernet0/0/0/0", Direction: "up"},
		{Interface: "GigabitEthernet0/0/0/0", Duration: time.Hour}, {Interface: "Gi0; rm -rf /"},
	} {
		if _, err := r2.Capture(ctx, bad); err == nil {
			t.Errorf("Capture(%+v): no error", bad)
		}
	}
	res, err := r2.Capture(ctx, device.CaptureRequest{Interface: "GigabitEthernet0/0/0/0", Protocol: "tcp", Port: 179, Duration: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Two minutes of an established eBGP session: each side's keepalive
	// every 60 s and its ACK.
	if res.Packets != 8 || len(res.Summary) != 8 || len(res.Records) != 8 || len(res.PCAP) < 24 {
		t.Fatalf("2 min of BGP: %d packets, want 8:\n%s", res.Packets, strings.Join(res.Summary, "\n"))
	}
	ka := 0
	for _, r := range res.Records {
		if r.Protocol != "tcp" || (r.SrcPort != 179 && r.DstPort != 179) {
			t.Errorf("record %+v", r)
		}
		if r.Info == "BGP KEEPALIVE" {
			ka++
		}
	}
	if ka != 4 {
		t.Errorf("%d keepalives, want 4", ka)
	}

	st, _ := lab.net.InterfaceState("r2", "GigabitEthernet0/0/0/0")
	if st.Counters.InPkts == 0 {
		t.Fatal("no traffic counted in ten minutes")
	}
	if err := r2.ClearCounters(ctx, "GigabitEthernet0/0/0/0"); err != nil {
		t.Fatal(err)
	}
	if got := getJSON(t, r2, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0/0]/state/counters"); !strings.Contains(got, `"in-pkts":"0"`) ||
		!strings.Contains(got, `"last-clear":"`+u64(uint64(clk.Now().UnixNano()))+`"`) {
		t.Errorf("counters after the clear: %s", got)
	}
	if err := r2.ClearCounters(ctx, "Nope0"); err == nil {
		t.Error("clearing an unknown interface: no error")
	}
	logs, _ := r2.Syslog(ctx, 1)
	if len(logs) != 1 || !strings.Contains(logs[0].Text, "IFSTATS-6-CLEAR_COUNTERS") {
		t.Errorf("last syslog after the clear: %+v", logs)
	}
}
