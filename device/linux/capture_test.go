//go:build linux

package linux_test

import (
	"context"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// TestCaptureArgs: tcpdump's arguments come from the structured request,
// one word each; what is not an address, a port or a known protocol never
// gets that far.
func TestCaptureArgs(t *testing.T) {
	base := []string{"tcpdump", "-i", "eth0", "-n", "-U", "-w", "-", "-c", "100"}
	tests := []struct {
		req  device.CaptureRequest
		want []string
	}{
		{device.CaptureRequest{Interface: "eth0"}, base},
		{device.CaptureRequest{Interface: "eth0", Protocol: "tcp", Port: 179},
			append(slices.Clone(base), "tcp", "and", "port", "179")},
		{device.CaptureRequest{Interface: "eth0", Protocol: "lldp"},
			append(slices.Clone(base), "ether", "proto", "0x88cc")},
		{device.CaptureRequest{Interface: "eth0", Protocol: "ospf", Direction: "in"},
			append(slices.Clone(base), "-Q", "in", "ip", "proto", "89")},
		{device.CaptureRequest{Interface: "eth0", Protocol: "icmp6", Host: "2001:db8::1", Direction: "out"},
			append(slices.Clone(base), "-Q", "out", "icmp6", "and", "host", "2001:db8::1")},
		{device.CaptureRequest{Interface: "eth0", Src: "10.0.0.1", Dst: "10.0.0.2", Port: 53, MaxPackets: 5},
			[]string{"tcpdump", "-i", "eth0", "-n", "-U", "-w", "-", "-c", "5", "src", "host", "10.0.0.1", "and", "dst", "host", "10.0.0.2", "and", "port", "53"}},
	}
	for _, tc := range tests {
		req := tc.req
		if err := req.Check(); err != nil {
			t.Fatalf("Check(%+v): %v", tc.req, err)
		}
		if got := linux.CaptureArgs(req); !slices.Equal(got, tc.want) {
			t.Errorf("CaptureArgs(%+v)\n got %q\nwant %q", tc.req, got, tc.want)
		}
	}
	drv, err := linux.Open("")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []device.CaptureRequest{
		{Interface: "-w/etc/passwd"}, {Interface: "eth0 or port 22"}, {Interface: "eth0", Host: "10.0.0.1 or port 22"},
		{Interface: "eth0", Protocol: "tcp or udp"}, {Interface: "eth0", Src: "$(reboot)"}, {Interface: "averyveryverylongname0"},
		{Interface: "eth0", Direction: "inout; rm"},
	} {
		if _, err := drv.Capture(context.Background(), bad); err == nil {
			t.Errorf("Capture(%+v): no error", bad)
		}
	}
}

// TestDecodePCAP: the decoder reads back what the simulator writes.
func TestDecodePCAP(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	in := []netsim.CapturedPacket{
		{Time: at, SrcMAC: "02:00:00:00:00:01", DstMAC: "02:00:00:00:00:02", Proto: netsim.ProtoTCPName,
			Src: netipMust("10.0.12.1"), Dst: netipMust("10.0.12.2"), SrcPort: 40000, DstPort: 179, TCPFlags: "S", Seq: 7, TTL: 255, Length: 44},
		{Time: at.Add(time.Second), SrcMAC: "02:00:00:00:00:02", DstMAC: "02:00:00:00:00:01", Proto: netsim.ProtoICMPName,
			Src: netipMust("10.0.12.2"), Dst: netipMust("10.0.12.1"), ICMPType: 0, TTL: 64, Length: 84},
		{Time: at.Add(2 * time.Second), SrcMAC: "02:00:00:00:00:02", DstMAC: "02:00:00:00:00:01", Proto: netsim.ProtoARPName,
			Src: netipMust("10.0.12.2"), Dst: netipMust("10.0.12.1"), ARPOp: 2, Length: 28},
	}
	recs, err := linux.DecodePCAP(netsim.EncodePCAP(in), "02:00:00:00:00:01")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	r := recs[0]
	if r.Protocol != "tcp" || r.Src != "10.0.12.1" || r.DstPort != 179 || r.Flags != "S" || r.Seq != 7 || r.Direction != "out" ||
		r.Length != 44 || !r.Time.Equal(at) {
		t.Errorf("tcp record %+v", r)
	}
	if r := recs[1]; r.Protocol != "icmp" || r.ICMPType == nil || *r.ICMPType != 0 || r.Direction != "in" || r.Length != 84 {
		t.Errorf("icmp record %+v", r)
	}
	if r := recs[2]; r.Protocol != "arp" || r.Info != "ARP, Reply" || r.Src != "10.0.12.2" {
		t.Errorf("arp record %+v", r)
	}
	if _, err := linux.DecodePCAP([]byte("not a pcap file at all, really"), ""); err == nil {
		t.Error("garbage decoded without error")
	}
}

// TestNamespaceCapture runs the real tcpdump in a namespace while a ping
// crosses the veth: requests go out, replies come in.
func TestNamespaceCapture(t *testing.T) {
	a, _ := newPair(t)
	if _, err := exec.LookPath("tcpdump"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but tcpdump is not installed (scripts/install-deps.sh installs it)")
		}
		t.Skip("needs tcpdump (apt-get install tcpdump; scripts/install-deps.sh installs it)")
	}
	drv, err := linux.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(1500 * time.Millisecond) // tcpdump is listening by then, even on a loaded machine
		_ = exec.Command("ip", "netns", "exec", a, "ping", "-c", "3", "-i", "0.2", "198.51.100.2").Run()
	}()
	res, err := drv.Capture(context.Background(), device.CaptureRequest{Interface: "va", Protocol: "icmp", Duration: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var req, rep int
	for _, r := range res.Records {
		switch {
		case r.ICMPType != nil && *r.ICMPType == 8 && r.Direction == "out" && r.Dst == "198.51.100.2":
			req++
		case r.ICMPType != nil && *r.ICMPType == 0 && r.Direction == "in" && r.Src == "198.51.100.2":
			rep++
		}
	}
	if req != 3 || rep != 3 || len(res.Summary) != res.Packets || !strings.Contains(strings.Join(res.Summary, "\n"), "ICMP echo request") {
		t.Fatalf("%d requests out, %d replies in; %d packets:\n%s", req, rep, res.Packets, strings.Join(res.Summary, "\n"))
	}

	// A filter that matches nothing: an empty capture, not an error.
	res, err = drv.Capture(context.Background(), device.CaptureRequest{Interface: "va", Protocol: "tcp", Port: 179, Duration: 500 * time.Millisecond})
	if err != nil || res.Packets != 0 || len(res.PCAP) != 24 {
		t.Errorf("empty capture: %v, %d packets, %d bytes", err, res.Packets, len(res.PCAP))
	}
	// The packet limit stops tcpdump before the duration.
	go func() {
		time.Sleep(1500 * time.Millisecond)
		_ = exec.Command("ip", "netns", "exec", a, "ping", "-c", "4", "-i", "0.2", "198.51.100.2").Run()
	}()
	start := time.Now()
	res, err = drv.Capture(context.Background(), device.CaptureRequest{Interface: "va", Protocol: "icmp", Direction: "in", MaxPackets: 2, Duration: 60 * time.Second})
	if err != nil || res.Packets != 2 || !res.Truncated {
		t.Fatalf("maxPackets 2: %v, %d packets", err, res.Packets)
	}
	if time.Since(start) > 50*time.Second {
		t.Error("the capture ran for its whole duration although the packet limit was reached")
	}
	if _, err := drv.Capture(context.Background(), device.CaptureRequest{Interface: "nosuch0"}); err == nil {
		t.Error("capture on a missing interface: no error")
	}
}

func netipMust(s string) netip.Addr { return netip.MustParseAddr(s) }
