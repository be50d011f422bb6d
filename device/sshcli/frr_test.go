package sshcli_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/sshcli"
	"github.com/netmcp/netmcp/netproto"
)

func openFRR(t testing.TB, l *frrLab) *sshcli.Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	drv, err := device.Open(ctx, l.url(""), device.Options{StateDir: filepath.Join(l.dir, "state")})
	if err != nil {
		t.Fatalf("open %s: %v", l.url(""), err)
	}
	t.Cleanup(func() { drv.Close() })
	return drv.(*sshcli.Driver)
}

func code(err error) int {
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return ne.Code
	}
	return 0
}

// TestFRRReads reads vtysh over OpenSSH: the interfaces tree has exactly
// the namespace's links, routes come from "show ip route json", and
// non-read commands never reach the CLI.
func TestFRRReads(t *testing.T) {
	l := newFRRLab(t)
	drv := openFRR(t, l)
	ctx := context.Background()

	if info := drv.Info(); info.CLIDialect != "frr" || info.Name != "127.0.0.1" {
		t.Errorf("Info = %+v", info)
	}
	out, err := drv.Exec(ctx, "show version")
	if err != nil || !strings.Contains(out, "FRRouting") {
		t.Fatalf("show version = %q, %v", out, err)
	}
	if strings.Contains(out, "show version") || strings.HasSuffix(strings.TrimSpace(out), "#") {
		t.Errorf("output keeps the echo or the prompt: %q", out)
	}

	v, err := drv.Get(ctx, device.Operational, "/ietf-interfaces:interfaces/interface")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range v.([]any) {
		got = append(got, e.(map[string]any)["name"].(string))
	}
	want := linkNames(t, l.ns)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("interfaces %v, ip link shows %v", got, want)
	}
	eth0, err := drv.Get(ctx, device.Operational, "/ietf-interfaces:interfaces/interface[name='eth0']")
	if err != nil {
		t.Fatal(err)
	}
	m := eth0.(map[string]any)
	addr := m["ietf-ip:ipv4"].(map[string]any)["address"].([]any)[0].(map[string]any)
	if m["oper-status"] != "up" || addr["ip"] != "198.51.100.1" || addr["prefix-length"] != float64(30) {
		t.Errorf("eth0 = %v", m)
	}

	rib, err := drv.Get(ctx, device.Operational, "/ietf-routing:routing/ribs/rib[name='ipv4-master']/routes/route[destination-prefix='198.51.100.0/30']")
	if err != nil {
		t.Fatal(err)
	}
	if r := rib.(map[string]any); r["source-protocol"] != "ietf-routing:direct" || r["next-hop"].(map[string]any)["outgoing-interface"] != "eth0" {
		t.Errorf("connected route = %v", r)
	}

	for _, bad := range []string{"configure terminal", "show version\nconfigure terminal", "show version\x1a", "exit", "write memory", ""} {
		if _, err := drv.Exec(ctx, bad); code(err) != netproto.CodeConfigIncompatible {
			t.Errorf("Exec(%q) = %v, want -32084", bad, err)
		}
	}
	if _, err := drv.Exec(ctx, "show no-such-thing"); code(err) != netproto.CodeConfigIncompatible || !strings.Contains(err.Error(), "Unknown command") {
		t.Errorf("unknown command: %v", err)
	}
	// The session survives a refused command.
	if _, err := drv.Exec(ctx, "show version"); err != nil || drv.Logins() != 1 {
		t.Errorf("after a refusal: %v, logins %d", err, drv.Logins())
	}
}

// TestFRRCommitRollback changes the configuration through vtysh in
// configuration mode, with netmcp's snapshot-and-rollback, and checks each
// step with vtysh directly.
func TestFRRCommitRollback(t *testing.T) {
	l := newFRRLab(t)
	drv := openFRR(t, l)
	ctx := context.Background()
	alice := device.Owner{Session: "s1", User: "alice"}
	const line = "ip route 192.0.2.0/24 Null0"

	if err := drv.Configure(ctx, alice, []string{line}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(l.vtysh(t, "show running-config"), line) {
		t.Fatal("Configure changed the device before Commit")
	}
	d, err := drv.Diff(ctx, alice)
	if err != nil || !strings.Contains(d.Unified, line) {
		t.Fatalf("Diff = %+v, %v", d, err)
	}
	if err := drv.Configure(ctx, device.Owner{Session: "s2"}, []string{"ip route 192.0.2.128/25 Null0"}); err == nil {
		t.Error("a second session configured while the first holds the candidate")
	}
	res, err := drv.Commit(ctx, alice, device.CommitOptions{Comment: "blackhole"})
	if err != nil || res.Status != device.StatusCommitted {
		t.Fatalf("Commit = %+v, %v", res, err)
	}
	if !strings.Contains(l.vtysh(t, "show running-config"), line) {
		t.Fatal("the committed route is not in vtysh's running-config")
	}
	r, err := drv.Get(ctx, device.Operational, "/ietf-routing:routing/ribs/rib[name='ipv4-master']/routes/route[destination-prefix='192.0.2.0/24']/next-hop")
	if err != nil || r.(map[string]any)["special-next-hop"] != "blackhole" {
		t.Errorf("route after commit: %v, %v", r, err)
	}

	// A refused line: the line before it is undone from the snapshot.
	if err := drv.Configure(ctx, alice, []string{"ip route 198.51.100.128/25 Null0", "ip route not-a-prefix Null0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := drv.Commit(ctx, alice, device.CommitOptions{}); code(err) != netproto.CodeConfigIncompatible || !strings.Contains(err.Error(), "not-a-prefix") {
		t.Fatalf("Commit of a refused line = %v, want -32084 naming it", err)
	}
	if rc := l.vtysh(t, "show running-config"); strings.Contains(rc, "198.51.100.128/25") || !strings.Contains(rc, line) {
		t.Fatalf("after a refused commit the running-config is not the snapshot:\n%s", rc)
	}
	if err := drv.Discard(ctx, alice); err != nil {
		t.Fatal(err)
	}

	// Rollback restores the configuration from before the commit.
	if _, err := drv.Rollback(ctx, alice, ""); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if strings.Contains(l.vtysh(t, "show running-config"), line) {
		t.Fatal("the route is still configured after Rollback")
	}

	// A confirmed commit, cancelled: the change is undone.
	if err := drv.Configure(ctx, alice, []string{"interface eth0", "description uplink via ssh"}); err != nil {
		t.Fatal(err)
	}
	if _, err := drv.Commit(ctx, alice, device.CommitOptions{Confirmed: 120}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(l.vtysh(t, "show running-config"), "description uplink via ssh") {
		t.Fatal("confirmed commit did not reach the device")
	}
	if _, err := drv.CancelCommit(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(l.vtysh(t, "show running-config"), "uplink via ssh") {
		t.Fatal("CancelCommit left the description on the device")
	}
	h, err := drv.History(ctx)
	if err != nil || len(h) < 3 {
		t.Fatalf("History = %v, %v", h, err)
	}
}

// TestFRRHostKey refuses a server whose key is not the known one.
func TestFRRHostKey(t *testing.T) {
	l := newFRRLab(t)
	_, otherPub := keygen(t, l.dir, "other_ed25519")
	wrong := filepath.Join(l.dir, "wrong_known_hosts")
	line := strings.Fields(otherPub)
	if err := os.WriteFile(wrong, []byte("[127.0.0.1]:"+strconv.Itoa(l.port)+" "+line[0]+" "+line[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	u := strings.Replace(l.url(""), "known-hosts="+l.knownHosts, "known-hosts="+wrong, 1)
	_, err := device.Open(context.Background(), u, device.Options{})
	if code(err) != netproto.CodeAccessDenied {
		t.Fatalf("Open with a wrong host key = %v, want -32083", err)
	}
}
