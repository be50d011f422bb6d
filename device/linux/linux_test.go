//go:build linux

package linux_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// newPair creates two network namespaces joined by a veth pair,
// 198.51.100.1/30 (a) — 198.51.100.2/30 (b), and removes them at the end.
// It skips the test when not root.
func newPair(t *testing.T) (a, b string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces (run the tests as root, as CI does)")
	}
	for _, bin := range []string{"ip", "ping"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("needs %s (apt-get install iproute2 iputils-ping)", bin)
		}
	}
	a, b = fmt.Sprintf("lxa%d", os.Getpid()), fmt.Sprintf("lxb%d", os.Getpid())
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if out, err := exec.Command("ip", "netns", "add", a).CombinedOutput(); err != nil {
		t.Skipf("ip netns add failed (no namespace support?): %v: %s", err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", a).Run()
		_ = exec.Command("ip", "netns", "del", b).Run()
	})
	run("ip", "netns", "add", b)
	run("ip", "link", "add", "va", "netns", a, "type", "veth", "peer", "name", "vb", "netns", b)
	for ns, dev := range map[string]string{a: "va", b: "vb"} {
		addr := map[string]string{a: "198.51.100.1/30", b: "198.51.100.2/30"}[ns]
		run("ip", "-n", ns, "link", "set", "lo", "up")
		run("ip", "-n", ns, "addr", "add", addr, "dev", dev)
		run("ip", "-n", ns, "link", "set", dev, "up")
	}
	return a, b
}

func TestNamespacePing(t *testing.T) {
	a, _ := newPair(t)
	drv, err := device.Open(context.Background(), "linux://"+a, device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	dg := drv.(device.Diagnoser)
	req := diag.Request{Tool: "ping", Destination: "198.51.100.2", Count: 3, IntervalMs: 200}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	res, err := dg.Diagnose(context.Background(), req, func(l string) { lines = append(lines, l) })
	if err != nil {
		t.Fatal(err)
	}
	p, err := diag.ParsePing(res.Output)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || *p.PacketsReceived != 3 || *p.PacketLossPercent != 0 {
		t.Fatalf("exit %d, parsed %+v\n%s", res.ExitCode, p, res.Output)
	}
	if len(lines) < 5 || !strings.HasPrefix(lines[0], "PING 198.51.100.2") {
		t.Fatalf("lines not streamed: %q", lines)
	}

	// Unreachable from a: the peer's address range only.
	req = diag.Request{Tool: "ping", Destination: "192.0.2.99", Count: 1}
	_ = req.Validate()
	res, err = dg.Diagnose(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 2 || !strings.Contains(res.Output, "Network is unreachable") {
		t.Fatalf("no route: exit %d output %q", res.ExitCode, res.Output)
	}
}

func TestNamespaceCancel(t *testing.T) {
	a, _ := newPair(t)
	drv, err := linux.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	req := diag.Request{Tool: "ping", Destination: "198.51.100.2", Count: 100, IntervalMs: 200}
	_ = req.Validate()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := drv.Diagnose(ctx, req, func(string) {
			select {
			case first <- struct{}{}:
			default:
			}
		})
		done <- err
	}()
	<-first
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(t0); d > time.Second {
			t.Fatalf("stopped after %s", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("ping still running 3 s after cancel")
	}
}

func TestNamespaceExec(t *testing.T) {
	a, _ := newPair(t)
	drv, err := linux.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	out, err := drv.Exec(context.Background(), "ip  -j   addr")
	if err != nil {
		t.Fatal(err)
	}
	var ifs []struct {
		Ifname   string `json:"ifname"`
		AddrInfo []struct {
			Local string `json:"local"`
		} `json:"addr_info"`
	}
	if err := json.Unmarshal([]byte(out), &ifs); err != nil {
		t.Fatalf("ip -j addr: %v: %s", err, out)
	}
	var names []string
	found := false
	for _, i := range ifs {
		names = append(names, i.Ifname)
		for _, ai := range i.AddrInfo {
			found = found || (i.Ifname == "va" && ai.Local == "198.51.100.1")
		}
	}
	if len(ifs) != 2 || !found {
		t.Fatalf("namespace %s interfaces %v (want lo and va with 198.51.100.1)", a, names)
	}
	for _, c := range []string{"ip -j route", "ip -j link", "ip -j -6 route", "ip -j neigh"} {
		out, err := drv.Exec(context.Background(), c)
		if err != nil || !json.Valid([]byte(out)) {
			t.Errorf("%s: %v %q", c, err, out)
		}
	}
}

func TestRefusals(t *testing.T) {
	drv, err := linux.Open("")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"ip -j addr; reboot", "ip addr flush dev eth0", "rm -rf /", "ip -j addr show dev $(id)", ""} {
		_, err := drv.Exec(context.Background(), cmd)
		var ne *netproto.Error
		if !errors.As(err, &ne) || ne.Code != netproto.CodeConfigIncompatible || !strings.Contains(ne.Detail, "ip -j addr") {
			t.Errorf("Exec(%q) = %v, want -32084 listing the commands", cmd, err)
		}
	}
	_, err = drv.Get(context.Background(), device.Running, "/ietf-interfaces:interfaces")
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != netproto.CodeConfigIncompatible {
		t.Fatalf("Get = %v, want -32084", err)
	}
	_, err = drv.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: "127.0.0.1", VRF: "mgmt"}, nil)
	if !errors.As(err, &ne) || ne.Code != netproto.CodeConfigIncompatible {
		t.Fatalf("VRF = %v, want -32084", err)
	}
	// A request that bypassed validation is validated again by diag.Run.
	_, err = drv.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: "-f"}, nil)
	if !errors.Is(err, diag.ErrInvalidRequest) {
		t.Fatalf("Diagnose(-f) = %v, want ErrInvalidRequest", err)
	}
}

func TestOpenURLs(t *testing.T) {
	tests := []struct {
		url     string
		wantErr string
		netns   string
	}{
		{url: "linux://", netns: ""},
		{url: "linux:///", netns: ""},
		{url: "linux://no-such-ns-netmcp", wantErr: "no network namespace"},
		{url: "linux://bad$name", wantErr: `namespace name "bad$name"`},
		{url: "linux://user@ns", wantErr: "want linux://"},
		{url: "linux://ns:22", wantErr: "want linux://"},
		{url: "linux://ns/path", wantErr: "want linux://"},
	}
	for _, tc := range tests {
		drv, err := device.Open(context.Background(), tc.url, device.Options{})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Open(%q) = %v, want error containing %q", tc.url, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Open(%q): %v", tc.url, err)
			continue
		}
		info := drv.Info()
		if info.CLIDialect != "linux" || info.Name == "" || drv.(*linux.Driver).Netns() != tc.netns {
			t.Errorf("Open(%q): info %+v", tc.url, info)
		}
	}
}

func TestHostLoopbackPing(t *testing.T) {
	if _, err := exec.LookPath("ping"); err != nil {
		t.Skip("needs ping (apt-get install iputils-ping)")
	}
	drv, _ := linux.Open("")
	res, err := drv.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: "127.0.0.1", Count: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := diag.ParsePing(res.Output)
	if err != nil || *p.PacketsReceived != 1 {
		t.Fatalf("ping 127.0.0.1: %v %s", err, res.Output)
	}
}
