package sshcli_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/sshcli"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/simssh"
)

// simOverSSH serves device name of the default simulated lab over SSH and
// opens it through the ssh:// driver.
func simOverSSH(t testing.TB, name string) (*sim.Driver, *simssh.Server, *sshcli.Driver) {
	t.Helper()
	topo, err := sim.LoadTopology("")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	sd, err := lab.Device(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	hostKey, _ := ssh.NewSignerFromKey(hostPriv)
	clientPub, clientPriv, _ := ed25519.GenerateKey(rand.Reader)
	sshPub, _ := ssh.NewPublicKey(clientPub)
	srv, err := simssh.Start(sd, hostKey, sshPub)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "id_ed25519")
	known := filepath.Join(dir, "known_hosts")
	os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600)
	os.WriteFile(known, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", srv.Addr().Port, ssh.MarshalAuthorizedKey(hostKey.PublicKey()))), 0o600)
	u := fmt.Sprintf("ssh://admin@127.0.0.1:%d?dialect=%s&key-file=%s&known-hosts=%s&name=%s",
		srv.Addr().Port, sd.Info().CLIDialect, keyFile, known, name)
	drv, err := device.Open(context.Background(), u, device.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	t.Cleanup(func() { drv.Close() })
	return sd, srv, drv.(*sshcli.Driver)
}

func trimLines(s string) string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func names(t testing.TB, v any, key string) []string {
	t.Helper()
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		out = append(out, fmt.Sprint(e.(map[string]any)[key]))
	}
	slices.Sort(out)
	return out
}

// TestSimDialectsOverSSH drives the simulator's huawei-vrp and cisco-iosxr
// CLIs over real SSH: reads equal the simulator's own output (paging off:
// the configuration is longer than a page), show output parses into the
// same YANG trees the sim driver serves, a configuration change is
// committed by the dialect's "commit", and a dropped connection is
// followed by a new login.
func TestSimDialectsOverSSH(t *testing.T) {
	tests := []struct {
		device, dialect string
		reads           []string
		config          []string
		ifName          string
	}{
		{"r1", "huawei-vrp", []string{"display interface brief", "display ip routing-table", "display current-configuration"},
			[]string{"interface GigabitEthernet0/0/0", "description set over ssh"}, "GigabitEthernet0/0/0"},
		{"r2", "cisco-iosxr", []string{"show interfaces brief", "show route", "show running-config"},
			[]string{"interface GigabitEthernet0/0/0/2", "description set over ssh"}, "GigabitEthernet0/0/0/2"},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			sd, srv, drv := simOverSSH(t, tc.device)
			ctx := context.Background()
			if drv.Info().CLIDialect != tc.dialect {
				t.Fatalf("dialect %q", drv.Info().CLIDialect)
			}
			for _, cmd := range tc.reads {
				got, err := drv.Exec(ctx, cmd)
				if err != nil {
					t.Fatalf("%s: %v", cmd, err)
				}
				want, _ := sd.Exec(ctx, cmd)
				// Timestamps in the XR header may differ by a second.
				if g, w := trimLines(got), trimLines(want); g != w && !(strings.HasPrefix(cmd, "show ") && dropFirst(g) == dropFirst(w)) {
					t.Errorf("%s over SSH:\n%s\nsimulator:\n%s", cmd, g, w)
				}
			}
			if _, err := drv.Exec(ctx, strings.Fields(tc.reads[0])[0]+" no-such-thing"); code(err) == 0 {
				t.Errorf("a refused command gave %v", err)
			}

			for _, p := range []string{"/ietf-interfaces:interfaces/interface"} {
				got, err := drv.Get(ctx, device.Operational, p)
				if err != nil {
					t.Fatal(err)
				}
				want, err := sd.Get(ctx, device.Operational, p)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := names(t, got, "name"), names(t, want, "name"); !slices.Equal(g, w) {
					t.Errorf("interfaces %v, simulator %v", g, w)
				}
				if g, w := names(t, got, "oper-status"), names(t, want, "oper-status"); !slices.Equal(g, w) {
					t.Errorf("oper-status %v, simulator %v", g, w)
				}
			}
			const rib = "/ietf-routing:routing/ribs/rib[name='ipv4-master']/routes/route"
			got, err := drv.Get(ctx, device.Operational, rib)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := sd.Get(ctx, device.Operational, rib)
			var active, gotActive []any
			for _, r := range got.([]any) {
				if _, ok := r.(map[string]any)["active"]; ok {
					gotActive = append(gotActive, r)
				}
			}
			for _, r := range want.([]any) {
				if _, ok := r.(map[string]any)["active"]; ok {
					active = append(active, r)
				}
			}
			g, w := names(t, gotActive, "destination-prefix"), names(t, active, "destination-prefix")
			if tc.dialect == "cisco-iosxr" {
				// XR lists local /32s ("L") besides the simulator's RIB.
				g = slices.DeleteFunc(g, func(p string) bool { return !slices.Contains(w, p) && strings.HasSuffix(p, "/32") })
			}
			if !slices.Equal(g, w) {
				t.Errorf("active IPv4 routes %v, simulator %v", g, w)
			}

			owner := device.Owner{Session: "s1", User: "alice"}
			if err := drv.Configure(ctx, owner, tc.config); err != nil {
				t.Fatal(err)
			}
			if _, err := drv.Commit(ctx, owner, device.CommitOptions{}); err != nil {
				t.Fatalf("Commit: %v", err)
			}
			v, err := sd.Get(ctx, device.Running, "/openconfig-interfaces:interfaces/interface[name='"+tc.ifName+"']/config/description")
			if err != nil || v != "set over ssh" {
				t.Fatalf("simulator's description after commit over SSH = %v, %v", v, err)
			}
			if err := drv.Configure(ctx, owner, []string{"no-such-command at all"}); err != nil {
				t.Fatal(err)
			}
			if _, err := drv.Commit(ctx, owner, device.CommitOptions{}); code(err) == 0 {
				t.Errorf("a refused line committed: %v", err)
			}
			drv.Discard(ctx, owner)
			if _, err := drv.Rollback(ctx, owner, ""); err != nil {
				t.Fatalf("Rollback: %v", err)
			}
			if v, err := sd.Get(ctx, device.Running, "/openconfig-interfaces:interfaces/interface[name='"+tc.ifName+"']/config/description"); err == nil && v == "set over ssh" {
				t.Errorf("description still set after Rollback")
			}

			srv.DropAll()
			if _, err := drv.Exec(ctx, tc.reads[0]); err != nil {
				t.Fatalf("Exec after the connection dropped: %v", err)
			}
			if n := drv.Logins(); n != 2 {
				t.Errorf("logins %d, want 2", n)
			}
		})
	}
}

func dropFirst(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	return rest
}
