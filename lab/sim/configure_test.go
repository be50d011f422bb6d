package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// TestConfigureEdits checks that CLI lines of each dialect become the
// expected candidate change.
func TestConfigureEdits(t *testing.T) {
	tests := []struct {
		dev   string
		lines []string
		path  string // Get on the candidate
		want  string // substring of the value's fmt form
	}{
		{"r1", []string{"interface GigabitEthernet0/0/0", "description uplink to r2", "mtu 9000"},
			"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0']/config", "mtu:9000"},
		{"r1", []string{"interface GigabitEthernet0/0/0", "shutdown"},
			"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0']/config/enabled", "false"},
		{"r1", []string{"vlan 200", "name guests", "quit", "interface GigabitEthernet0/0/1", "port default vlan 200"},
			"/openconfig-vlan:vlans/vlan[vlan-id='200']/config/name", "guests"},
		{"r1", []string{"ip route-static 10.50.0.0 255.255.0.0 10.0.12.2 preference 20"},
			"/ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='static']/static-routes/ietf-ipv4-unicast-routing:ipv4/route[destination-prefix='10.50.0.0/16']/next-hop/next-hop-address", "10.0.12.2"},
		{"r1", []string{"ip route-static 10.50.0.0 255.255.0.0 10.0.12.2 preference 20"},
			"/ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='static']/static-routes/ietf-ipv4-unicast-routing:ipv4/route[destination-prefix='10.50.0.0/16']/preference", "20"},
		{"r1", []string{"sysname edge-1"}, "/openconfig-system:system/config/hostname", "edge-1"},
		{"r2", []string{"interface Loopback7", "ipv4 address 10.7.7.7/32", "ipv6 address 2001:db8:7::7/128"},
			"/openconfig-interfaces:interfaces/interface[name='Loopback7']/subinterfaces/subinterface[index='0']/ipv4/addresses/address[ip='10.7.7.7']/config/prefix-length", "32"},
		{"r2", []string{"interface GigabitEthernet0/0/0/2", "no shutdown"},
			"/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/2']/config/enabled", "true"},
		{"r2", []string{"ipv4 access-list EDGE", "10 deny tcp any host 10.255.0.2 eq 22", "20 permit ipv4 any any", "exit",
			"interface GigabitEthernet0/0/0/0", "ipv4 access-group EDGE ingress"},
			"/openconfig-acl:acl/interfaces/interface[id='GigabitEthernet0/0/0/0']/ingress-acl-sets/ingress-acl-set[set-name='EDGE'][type='ACL_IPV4']/set-name", "EDGE"},
		{"r2", []string{"router static", "address-family ipv6 unicast", "2001:db8:99::/48 Null0"},
			"/ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='static']/static-routes/ietf-ipv6-unicast-routing:ipv6/route[destination-prefix='2001:db8:99::/48']/next-hop/special-next-hop", "blackhole"},
	}
	for _, tc := range tests {
		t.Run(tc.dev+"/"+strings.Join(tc.lines, ";"), func(t *testing.T) {
			lab, _ := newTestLab(t)
			d := mustDevice(t, lab, tc.dev)
			ctx := context.Background()
			if err := d.Configure(ctx, alice, tc.lines); err != nil {
				t.Fatalf("Configure: %v", err)
			}
			holder, ok := d.store.LockHolder()
			if !ok || holder != alice {
				t.Errorf("Configure did not take the candidate lock (holder %v)", holder)
			}
			v, err := d.Get(ctx, device.Candidate, tc.path)
			if err != nil {
				t.Fatalf("Get candidate: %v", err)
			}
			if got := strings.NewReplacer("map[", "", "]", "").Replace(fmtValue(v)); !strings.Contains(got, tc.want) {
				t.Errorf("candidate %s = %s, want %s", tc.path, got, tc.want)
			}
			if _, err := d.Get(ctx, device.Running, tc.path); err == nil && tc.want != "true" {
				// running keeps the old value until commit
				if rv, _ := d.Get(ctx, device.Running, tc.path); fmtValue(rv) == fmtValue(v) {
					t.Errorf("running already has the change")
				}
			}
			if _, err := d.Commit(ctx, alice, device.CommitOptions{}); err != nil {
				t.Fatalf("Commit: %v", err)
			}
		})
	}
}

// TestConfigureRejects checks that bad lines change nothing and say why.
func TestConfigureRejects(t *testing.T) {
	tests := []struct {
		dev    string
		lines  []string
		code   int
		detail string
	}{
		{"r1", []string{"vlan 4095"}, netproto.CodeConfigIncompatible, "4095"},
		{"r2", []string{"interface GigabitEthernet0/0/0/0", "ipv4 address 10.1.1.1"}, netproto.CodeConfigIncompatible, "ipv4 address"},
		{"r1", []string{"interface GigabitEthernet0/0/0", "frobnicate"}, netproto.CodeConfigIncompatible, "huawei-vrp"},
		{"r2", []string{"show version"}, netproto.CodeConfigIncompatible, "cisco-iosxr"},
		{"r1", []string{"interface GigabitEthernet0/0/0", "ip binding vpn-instance nope"}, netproto.CodeConfigIncompatible, "nope"},
		{"r2", []string{"interface GigabitEthernet0/0/0/0", "ipv4 access-group MISSING ingress"}, netproto.CodeConfigIncompatible, "MISSING"},
		{"r1", []string{"interface GigabitEthernet0/0/0", "description ok", "mtu 99999"}, netproto.CodeConfigIncompatible, "line 3"},
		{"r1", []string{"undo ip route-static 10.77.0.0 255.255.0.0"}, netproto.CodeConfigIncompatible, "no such static route"},
		{"r2", []string{"no ip route 10.77.0.0/16"}, netproto.CodeConfigIncompatible, "no such static route"},
	}
	for _, tc := range tests {
		t.Run(tc.dev+"/"+strings.Join(tc.lines, ";"), func(t *testing.T) {
			lab, _ := newTestLab(t)
			d := mustDevice(t, lab, tc.dev)
			ctx := context.Background()
			err := d.Configure(ctx, alice, tc.lines)
			if codeOf(err) != tc.code || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("err = %v, want code %d mentioning %q", err, tc.code, tc.detail)
			}
			diff, err := d.Diff(ctx, alice)
			if err != nil || len(diff.Changes) != 0 {
				t.Errorf("candidate changed after a rejected Configure: %+v, %v", diff.Changes, err)
			}
		})
	}
}

// TestConfigureLocked checks that a second session cannot edit a locked candidate.
func TestConfigureLocked(t *testing.T) {
	lab, _ := newTestLab(t)
	d := mustDevice(t, lab, "r2")
	ctx := context.Background()
	if err := d.Configure(ctx, alice, []string{"hostname r2-a"}); err != nil {
		t.Fatal(err)
	}
	bob := device.Owner{Session: "s2", User: "bob"}
	if err := d.Configure(ctx, bob, []string{"hostname r2-b"}); err == nil {
		t.Fatal("bob edited alice's locked candidate")
	}
	d.Release(alice)
	if err := d.Configure(ctx, bob, []string{"hostname r2-b"}); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// TestFiles checks the configuration files: secrets in running-config,
// candidate-config written back with a change, startup-config.
func TestFiles(t *testing.T) {
	lab, _ := newTestLab(t)
	ctx := context.Background()
	for _, tc := range []struct{ dev, secret, community string }{{"r1", "Huawei@123", "s3cr3t-ro"}, {"r2", "C1sco!xr", "xr-community-ro"}} {
		d := mustDevice(t, lab, tc.dev)
		run, err := d.ReadFile(ctx, FileRunning)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(run), tc.secret) || !strings.Contains(string(run), tc.community) {
			t.Errorf("%s running-config lacks its secrets (redaction is the MCP layer's job):\n%s", tc.dev, run)
		}
		v, err := d.Get(ctx, device.Running, "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password")
		if err != nil || v != tc.secret {
			t.Errorf("%s admin password in running = %v, %v", tc.dev, v, err)
		}
		edited := strings.Replace(string(run), "hostname "+tc.dev, "hostname "+tc.dev+"-new", 1)
		edited = strings.Replace(edited, "sysname "+tc.dev, "sysname "+tc.dev+"-new", 1)
		if err := d.WriteFile(ctx, alice, FileCandidate, []byte(edited)); err != nil {
			t.Fatalf("%s WriteFile candidate: %v", tc.dev, err)
		}
		diff, err := d.Diff(ctx, alice)
		if err != nil || len(diff.Changes) != 1 || !strings.Contains(diff.Changes[0].Path, "hostname") {
			t.Errorf("%s diff after writing candidate-config = %+v, %v", tc.dev, diff.Changes, err)
		}
		if err := d.WriteFile(ctx, alice, FileCandidate, []byte("interface X\n bogus words\n")); codeOf(err) != netproto.CodeConfigIncompatible {
			t.Errorf("%s bad candidate-config: err = %v", tc.dev, err)
		}
		if err := d.WriteFile(ctx, alice, FileRunning, run); err == nil {
			t.Errorf("%s running-config is writable", tc.dev)
		}
		if err := d.WriteFile(ctx, alice, FileStartup, []byte(edited)); err != nil {
			t.Fatalf("%s WriteFile startup: %v", tc.dev, err)
		}
		st, _ := d.ReadFile(ctx, FileStartup)
		if !strings.Contains(string(st), tc.dev+"-new") {
			t.Errorf("%s startup-config not replaced:\n%s", tc.dev, st)
		}
		if err := d.Discard(ctx, alice); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAddressCommands checks the address commands of both dialects on an
// interface holding 10.0.0.1/24 and 2001:db8::1/64: a primary IPv4
// address replaces the IPv4 ones, a secondary one adds, and removal takes
// one address or, without arguments, the whole family.
func TestAddressCommands(t *testing.T) {
	tests := []struct {
		dialect string
		lines   []string
		want    string // the interface's addresses, space-separated
	}{
		{DialectVRP, []string{"ip address 10.1.0.1 255.255.255.0"}, "2001:db8::1/64 10.1.0.1/24"},
		{DialectVRP, []string{"ip address 10.1.0.1 24 sub"}, "10.0.0.1/24 2001:db8::1/64 10.1.0.1/24"},
		{DialectVRP, []string{"undo ip address 10.0.0.1 24"}, "2001:db8::1/64"},
		{DialectVRP, []string{"undo ip address"}, "2001:db8::1/64"},
		{DialectVRP, []string{"ipv6 address 2001:db8:1::1/64"}, "10.0.0.1/24 2001:db8::1/64 2001:db8:1::1/64"},
		{DialectVRP, []string{"undo ipv6 address"}, "10.0.0.1/24"},
		{DialectXR, []string{"ipv4 address 10.1.0.1/24"}, "2001:db8::1/64 10.1.0.1/24"},
		{DialectXR, []string{"ipv4 address 10.1.0.1 255.255.255.0 secondary"}, "10.0.0.1/24 2001:db8::1/64 10.1.0.1/24"},
		{DialectXR, []string{"no ipv4 address 10.0.0.1/24"}, "2001:db8::1/64"},
		{DialectXR, []string{"no ipv6 address 2001:db8::1/64"}, "10.0.0.1/24"},
		{DialectXR, []string{"no ipv6 address"}, "10.0.0.1/24"},
	}
	for _, tc := range tests {
		t.Run(tc.dialect+"/"+strings.Join(tc.lines, ";"), func(t *testing.T) {
			c := devConfig{dev: topology.Device{Interfaces: []topology.Interface{
				{Name: "GE1", Addresses: []string{"10.0.0.1/24", "2001:db8::1/64"}}}}}
			if err := applyLines(&c, tc.dialect, append([]string{"interface GE1"}, tc.lines...)); err != nil {
				t.Fatalf("apply: %v", err)
			}
			if got := strings.Join(c.dev.Interfaces[0].Addresses, " "); got != tc.want {
				t.Errorf("addresses = %q, want %q", got, tc.want)
			}
		})
	}
	for _, dialect := range []string{DialectVRP, DialectXR} {
		c := devConfig{dev: topology.Device{Interfaces: []topology.Interface{{Name: "GE1"}}}}
		if err := applyLines(&c, dialect, []string{"interface GE1", "ipv6 address 10.1.0.1/24"}); err == nil {
			t.Errorf("%s accepted an IPv4 address in ipv6 address", dialect)
		}
	}
}
