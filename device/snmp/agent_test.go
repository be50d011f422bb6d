//go:build linux

package snmp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/drivertest"
	"github.com/netmcp/netmcp/device/snmp"
	"github.com/netmcp/netmcp/device/snmp/snmptest"
	"github.com/netmcp/netmcp/netproto"
)

func open(t *testing.T, url string) device.Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := device.Open(ctx, url, device.Options{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// ipLink is one interface of `ip -j -s link`.
type ipLink struct {
	Name      string   `json:"ifname"`
	Index     int      `json:"ifindex"`
	MTU       int      `json:"mtu"`
	Flags     []string `json:"flags"`
	OperState string   `json:"operstate"`
	Address   string   `json:"address"`
	Stats     struct {
		RX struct {
			Bytes, Packets, Errors, Dropped, Multicast uint64
		} `json:"rx"`
		TX struct {
			Bytes, Packets, Errors, Dropped uint64
		} `json:"tx"`
	} `json:"stats64"`
}

func ipLinks(t *testing.T, a *snmptest.Agent) map[string]ipLink {
	t.Helper()
	out, err := a.Exec(ctx(t), "ip", "-j", "-s", "link", "show")
	if err != nil {
		t.Fatalf("ip -j -s link: %v: %s", err, out)
	}
	var l []ipLink
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("ip -j -s link: %v", err)
	}
	m := map[string]ipLink{}
	for _, e := range l {
		m[e.Name] = e
	}
	return m
}

// ocIfs returns the openconfig interfaces by name.
func ocIfs(t *testing.T, d device.Driver) map[string]map[string]any {
	t.Helper()
	v, err := d.Get(ctx(t), device.Operational, "/openconfig-interfaces:interfaces")
	if err != nil {
		t.Fatalf("Get interfaces: %v", err)
	}
	l, _ := v.(map[string]any)["interface"].([]any)
	out := map[string]map[string]any{}
	for _, e := range l {
		m := e.(map[string]any)
		out[m["name"].(string)] = m
	}
	return out
}

func state(m map[string]any) map[string]any { return m["state"].(map[string]any) }

func counter(m map[string]any, name string) string {
	return state(m)["counters"].(map[string]any)[name].(string)
}

// TestInterfacesMatchIPLink: names, status, MTU, MAC and counters from
// SNMP match what `ip -s link` says in the agent's namespace.
func TestInterfacesMatchIPLink(t *testing.T) {
	a := snmptest.Start(t)
	d := open(t, a.URLv2c())
	links := ipLinks(t, a)
	ifs := ocIfs(t, d)
	var names, want []string
	for n := range ifs {
		names = append(names, n)
	}
	for n := range links {
		want = append(want, n)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("SNMP interfaces %v, ip link %v", names, want)
	}
	for n, l := range links {
		st := state(ifs[n])
		adminUp := slices.Contains(l.Flags, "UP")
		if (st["admin-status"] == "UP") != adminUp || st["enabled"] != adminUp {
			t.Errorf("%s: admin-status %v enabled %v, ip link flags %v", n, st["admin-status"], st["enabled"], l.Flags)
		}
		operUp := l.OperState == "UP" || (l.OperState == "UNKNOWN" && slices.Contains(l.Flags, "LOWER_UP"))
		if (st["oper-status"] == "UP") != operUp {
			t.Errorf("%s: oper-status %v, ip link operstate %s flags %v", n, st["oper-status"], l.OperState, l.Flags)
		}
		if l.MTU <= 65535 && st["mtu"] != float64(l.MTU) {
			t.Errorf("%s: mtu %v, ip link %d", n, st["mtu"], l.MTU)
		}
		if st["ifindex"] != float64(l.Index) {
			t.Errorf("%s: ifindex %v, ip link %d", n, st["ifindex"], l.Index)
		}
	}
	// The ietf-interfaces view carries the MAC and the speed.
	v, err := d.Get(ctx(t), "", fmt.Sprintf("/ietf-interfaces:interfaces/interface[name='%s']", snmptest.QuietIf))
	if err != nil {
		t.Fatal(err)
	}
	ietf := v.(map[string]any)
	if ietf["phys-address"] != links[snmptest.QuietIf].Address || ietf["speed"] == nil {
		t.Errorf("ietf %s: phys-address %v (ip link %s), speed %v", snmptest.QuietIf, ietf["phys-address"], links[snmptest.QuietIf].Address, ietf["speed"])
	}

	// Counters: move the quiet link's, then wait until one SNMP read lies
	// between two equal `ip -s link` reads (net-snmp caches its tables for
	// a few seconds, so the first reads may be older).
	if err := a.PingFromPeer(ctx(t), 20, 1000); err != nil {
		t.Fatal(err)
	}
	var last string
	deadline := time.Now().Add(45 * time.Second)
	for {
		before := ipLinks(t, a)[snmptest.QuietIf]
		m := ocIfs(t, d)[snmptest.QuietIf]
		after := ipLinks(t, a)[snmptest.QuietIf]
		if before.Stats != after.Stats {
			continue // traffic in between: read again
		}
		s := after.Stats
		got := map[string]uint64{}
		for _, k := range []string{"in-octets", "in-pkts", "in-errors", "in-discards", "in-multicast-pkts", "out-octets", "out-pkts", "out-errors", "out-discards"} {
			fmt.Sscan(counter(m, k), new(uint64))
			var n uint64
			fmt.Sscan(counter(m, k), &n)
			got[k] = n
		}
		wantC := map[string]uint64{"in-octets": s.RX.Bytes, "in-pkts": s.RX.Packets, "in-errors": s.RX.Errors,
			"in-discards": s.RX.Dropped, "in-multicast-pkts": s.RX.Multicast, "out-octets": s.TX.Bytes,
			"out-pkts": s.TX.Packets, "out-errors": s.TX.Errors, "out-discards": s.TX.Dropped}
		diff := ""
		for k, w := range wantC {
			if got[k] != w {
				diff += fmt.Sprintf(" %s snmp %d ip %d;", k, got[k], w)
			}
		}
		if diff == "" {
			if s.RX.Packets < 20 || s.RX.Bytes < 20*1000 {
				t.Errorf("the pings did not reach %s: %+v", snmptest.QuietIf, s)
			}
			return
		}
		last = diff
		if time.Now().After(deadline) {
			t.Fatalf("SNMP counters of %s never matched ip -s link:%s", snmptest.QuietIf, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestAddressesAndRoutes: IP-MIB addresses and the forwarding table.
func TestAddressesAndRoutes(t *testing.T) {
	a := snmptest.Start(t)
	d := open(t, a.URLv2c())
	q := ocIfs(t, d)[snmptest.QuietIf]
	b, _ := json.Marshal(q["subinterfaces"])
	for _, want := range []string{`"ip":"192.0.2.1"`, `"prefix-length":30`, `"ip":"2001:db8:5f::1"`, `"prefix-length":64`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("subinterfaces of %s lack %s: %s", snmptest.QuietIf, want, b)
		}
	}
	v, err := d.Get(ctx(t), device.Operational, "/ietf-routing:routing/ribs/rib[name='ipv4-master']/routes")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(v)
	for _, want := range []string{`"destination-prefix":"192.0.2.0/30"`, `"outgoing-interface":"q0"`, `"source-protocol":"ietf-routing:direct"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("ipv4-master lacks %s: %s", want, b)
		}
	}
	v, err = d.Get(ctx(t), device.Operational, "/ietf-routing:routing/ribs/rib[name='ipv6-master']")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(v)
	if !strings.Contains(string(b), `"destination-prefix":"2001:db8:5f::/64"`) {
		t.Errorf("ipv6-master lacks 2001:db8:5f::/64: %s", b)
	}
	out, err := d.Exec(ctx(t), "show ip route")
	if err != nil || !strings.Contains(out, "192.0.2.0/30") {
		t.Errorf("show ip route: %v\n%s", err, out)
	}
	sys, err := d.Get(ctx(t), device.Operational, "/openconfig-system:system/state/hostname")
	if err != nil || sys == "" {
		t.Errorf("hostname: %v %v", sys, err)
	}
}

// TestV3AuthPriv: SNMPv3 with SHA/AES works; wrong keys are reported as
// such, without the keys.
func TestV3AuthPriv(t *testing.T) {
	a := snmptest.Start(t)
	d := open(t, a.URLv3())
	if got := d.(*snmp.Driver).Config().SecurityLevel(); got != "authPriv" {
		t.Fatalf("security level %s", got)
	}
	if n := len(ocIfs(t, d)); n < 3 {
		t.Errorf("v3 read %d interfaces, want lo, up0, q0", n)
	}
	out, err := d.Exec(ctx(t), "get 1.3.6.1.2.1.1.5.0")
	if err != nil || !strings.Contains(out, ".1.3.6.1.2.1.1.5.0 = STRING:") {
		t.Errorf("get sysName over v3: %v %q", err, out)
	}
	t.Setenv("NETMCP_TEST_WRONG_KEY", "wrong-pass-phrase")
	for _, tc := range []struct{ name, url string }{
		{"wrong auth key", strings.Replace(a.URLv3(), "auth-file="+escape(a.AuthFile), "auth-env=NETMCP_TEST_WRONG_KEY", 1)},
		{"wrong priv key", strings.Replace(a.URLv3(), "priv-file="+escape(a.PrivFile), "priv-env=NETMCP_TEST_WRONG_KEY", 1)},
		{"unknown user", strings.Replace(a.URLv3(), snmptest.User+"@", "mallory@", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := device.Open(ctx(t), tc.url+"&timeout=500ms&retries=0", device.Options{})
			if err == nil {
				t.Fatal("opened with wrong credentials")
			}
			var ne *netproto.Error
			if !errors.As(err, &ne) || (ne.Code != netproto.CodeAccessDenied && ne.Code != netproto.CodeTimeout) {
				t.Fatalf("error %v, want access denied or the timeout hint", err)
			}
			if ne.Code == netproto.CodeTimeout && !strings.Contains(err.Error(), "wrong community or v3 credentials") {
				t.Errorf("timeout without the hint: %v", err)
			}
			for _, s := range []string{"wrong-pass-phrase", snmptest.AuthPass, snmptest.PrivPass} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("the error shows a key: %v", err)
				}
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
}

func escape(s string) string { return strings.ReplaceAll(s, "/", "%2F") }

// TestWrongCommunityIsATimeoutWithHint: an agent drops a request with a
// wrong community silently; the driver says so.
func TestWrongCommunityIsATimeoutWithHint(t *testing.T) {
	a := snmptest.Start(t)
	t.Setenv("NETMCP_TEST_COMMUNITY", "not-the-community")
	_, err := device.Open(ctx(t), fmt.Sprintf("snmp://%s?community-env=NETMCP_TEST_COMMUNITY&timeout=400ms&retries=1", a.Addr()), device.Options{})
	var ne *netproto.Error
	if !errors.As(err, &ne) || ne.Code != netproto.CodeTimeout || !ne.RetryPossible {
		t.Fatalf("error %v, want -32081 retryable", err)
	}
	if !strings.Contains(ne.Detail, "no answer in 800ms: wrong community or v3 credentials, ACL, or agent down") {
		t.Errorf("detail lacks the hint: %s", ne.Detail)
	}
	if strings.Contains(err.Error(), "not-the-community") {
		t.Errorf("the error shows the community: %v", err)
	}

	// An agent that hangs after the open: the same hint on Get.
	d := open(t, a.URLv2c()+"&timeout=400ms&retries=0")
	a.Pause()
	_, err = d.Get(ctx(t), "", "/openconfig-interfaces:interfaces")
	if !errors.As(err, &ne) || ne.Code != netproto.CodeTimeout || !strings.Contains(ne.Detail, "agent down") {
		t.Errorf("Get from a hung agent: %v", err)
	}
	// An agent that is gone: its host says the port is closed.
	a.Stop()
	_, err = d.Get(ctx(t), "", "/openconfig-interfaces:interfaces")
	if !errors.As(err, &ne) || (ne.Code != netproto.CodeUnreachable && ne.Code != netproto.CodeTimeout) || !strings.Contains(ne.Detail, "agent down") {
		t.Errorf("Get from a stopped agent: %v", err)
	}
}

// TestCounterEvents: while subscribed, counter changes become interface
// events.
func TestCounterEvents(t *testing.T) {
	a := snmptest.Start(t)
	d := open(t, a.URLv2c()+"&poll=300ms")
	tel := d.(device.Telemetry)
	events := make(chan device.Event, 1000)
	stop := tel.Subscribe(func(ev device.Event) {
		select {
		case events <- ev:
		default:
		}
	})
	defer stop()
	// The first poll reports every interface.
	seen := map[string]bool{}
	timeout := time.After(30 * time.Second)
	for !seen[snmptest.QuietIf] {
		select {
		case ev := <-events:
			if ev.Kind == device.EventInterface {
				seen[ev.Name] = true
			}
		case <-timeout:
			t.Fatalf("no first event for %s (saw %v)", snmptest.QuietIf, seen)
		}
	}
	// Traffic on the quiet link makes another event for it.
	drain := true
	for drain {
		select {
		case <-events:
		default:
			drain = false
		}
	}
	if err := a.PingFromPeer(ctx(t), 5, 100); err != nil {
		t.Fatal(err)
	}
	timeout = time.After(45 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == device.EventInterface && ev.Name == snmptest.QuietIf {
				return
			}
		case <-timeout:
			t.Fatalf("no event for %s after traffic", snmptest.QuietIf)
		}
	}
}

// TestMemory: HOST-RESOURCES-MIB's RAM row (net-snmp on Linux has it).
func TestMemory(t *testing.T) {
	a := snmptest.Start(t)
	d := open(t, a.URLv2c())
	m, err := d.(device.Telemetry).Memory(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if m.Total == 0 || m.Used > m.Total || m.Free != m.Total-m.Used {
		t.Errorf("memory %+v", m)
	}
	// CPU may be missing for the agent's first minute: then -32084, never garbage.
	c, err := d.(device.Telemetry).CPU(ctx(t))
	var ne *netproto.Error
	switch {
	case err == nil && (c.Percent < 0 || c.Percent > 100):
		t.Errorf("cpu %+v", c)
	case err != nil && !(errors.As(err, &ne) && ne.Code == netproto.CodeConfigIncompatible):
		t.Errorf("cpu: %v", err)
	}
	if _, err := d.(device.Telemetry).Syslog(ctx(t), 10); err == nil {
		t.Error("syslog over SNMP")
	}
}

// TestConformance runs the shared driver table over SNMPv2c and v3.
func TestConformance(t *testing.T) {
	a := snmptest.Start(t)
	caps := drivertest.Capabilities{YANG: true, Configurer: false, Telemetry: true,
		InterfacesCommand: "show interfaces", Remote: true}
	for name, url := range map[string]string{"v2c": a.URLv2c(), "v3": a.URLv3()} {
		t.Run(name, func(t *testing.T) {
			drivertest.Run(t, caps, func(t *testing.T) device.Driver {
				d, err := device.Open(ctx(t), url, device.Options{})
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				return d
			})
		})
	}
}

func TestMain(m *testing.M) {
	os.Setenv("MIBS", "")
	os.Exit(m.Run())
}

// TestCancelWhileWaiting: cancelling the context ends a request waiting
// for an agent that does not answer, long before the request's timeout.
func TestCancelWhileWaiting(t *testing.T) {
	a := snmptest.Start(t)
	d := open(t, a.URLv2c()+"&timeout=50s&retries=0")
	a.Pause() // it receives, but does not answer
	c, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := d.Get(c, "", "/openconfig-interfaces:interfaces"); done <- err }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Get after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("Get still waits for the agent after its context was cancelled")
	}
	// A second caller waiting for the session honours its context too.
	c2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	if _, err := d.Exec(c2, "show version"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Exec with a deadline against a silent agent: %v", err)
	}
}
