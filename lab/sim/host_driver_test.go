package sim

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

func mustHost(t *testing.T, lab *Lab, name string) *HostDriver {
	t.Helper()
	h, err := lab.Host(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// execAll runs commands on a host and fails on an error.
func execOut(t *testing.T, h *HostDriver, cmd string) string {
	t.Helper()
	out, err := h.Exec(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%s: %s: %v", h.name, cmd, err)
	}
	return out
}

// setHost changes a host's configuration in the model, as a host fault does.
func setHost(t *testing.T, lab *Lab, name string, f func(d *topology.Device)) {
	t.Helper()
	d, ok := lab.Network().Device(name)
	if !ok {
		t.Fatalf("no device %s", name)
	}
	f(&d)
	if err := lab.Network().UpdateDevice(d); err != nil {
		t.Fatal(err)
	}
}

// TestHostDriverHealthy checks the host's shell view in the default lab.
func TestHostDriverHealthy(t *testing.T) {
	lab, _ := newTestLab(t)
	if got := lab.Hosts(); !slices.Equal(got, []string{"h1", "h3"}) {
		t.Fatalf("Hosts() = %v", got)
	}
	if got := lab.Routers(); !slices.Equal(got, []string{"r1", "r2", "r3"}) {
		t.Fatalf("Routers() = %v", got)
	}
	h3 := mustHost(t, lab, "h3")
	if info := h3.Info(); info.CLIDialect != "linux" || info.Name != "h3" || info.SupportsRollback {
		t.Errorf("Info = %+v", info)
	}
	var drv device.Driver = h3
	if _, ok := drv.(device.Configurer); ok {
		t.Error("a host takes configuration")
	}
	mac := "00:50:56:12:34:56"
	for _, tc := range []struct{ cmd, want string }{
		{"ip addr", "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP group default qlen 1000\n    link/ether " + mac + " brd ff:ff:ff:ff:ff:ff\n    inet 10.3.0.10/24 brd 10.3.0.255 scope global eth0\n       valid_lft forever preferred_lft forever\n    inet6 2001:db8:3::10/64 scope global \n"},
		{"ip a", "inet6 fe80::250:56ff:fe12:3456/64 scope link"},
		{"ip link", "link/ether " + mac + " brd ff:ff:ff:ff:ff:ff\n"}, // its own MAC: no permaddr
		{"ip -4 addr show", "inet 127.0.0.1/8 scope host lo"},
		{"ip route", "default via 10.3.0.1 dev eth0 proto static\n10.3.0.0/24 dev eth0 proto kernel scope link src 10.3.0.10\n"},
		{"ip -6 route", "default via 2001:db8:3::1 dev eth0 proto static metric 1024 pref medium\n"},
		{"ip neigh", "10.3.0.1 dev eth0 lladdr "},
		{"cat /etc/resolv.conf", "nameserver 10.3.0.10\n"},
		{"cat /etc/bind/db.lab.example", "$ORIGIN lab.example.\n$TTL 300\n"},
		{"cat /etc/bind/db.lab.example", "\nns\t\tIN\tA\t10.3.0.10\n"},
		{"hostname", "h3\n"},
		{"ping -c 2 10.0.12.1", "2 packets transmitted, 2 received, 0% packet loss"},
		{"ping -c 1 r1.lab.example", "PING r1.lab.example (10.255.0.1)"},
		{"dig r1.lab.example", "r1.lab.example.\t\t300\tIN\tA\t10.255.0.1"},
		{"dig @10.3.0.10 h3.lab.example AAAA", "2001:db8:3::10"},
		{"traceroute 10.0.12.1", " 1  10.3.0.1 (10.3.0.1)"},
		{"traceroute r1.lab.example", "traceroute to r1.lab.example (10.255.0.1), 30 hops max"},
	} {
		if out := execOut(t, h3, tc.cmd); !strings.Contains(out, tc.want) {
			t.Errorf("%s:\n%s\nlacks %q", tc.cmd, out, tc.want)
		}
	}
	var links []map[string]any
	if err := json.Unmarshal([]byte(execOut(t, h3, "ip -j addr")), &links); err != nil || len(links) != 2 || links[1]["ifname"] != "eth0" || links[1]["operstate"] != "UP" {
		t.Fatalf("ip -j addr: %v %v", links, err)
	}
	ai := links[1]["addr_info"].([]any)[0].(map[string]any)
	if ai["local"] != "10.3.0.10" || ai["prefixlen"] != float64(24) || ai["broadcast"] != "10.3.0.255" {
		t.Errorf("addr_info %v", ai)
	}
	var routes []map[string]any
	if err := json.Unmarshal([]byte(execOut(t, h3, "ip -j route")), &routes); err != nil || len(routes) != 2 || routes[0]["dst"] != "default" || routes[0]["gateway"] != "10.3.0.1" {
		t.Fatalf("ip -j route: %v %v", routes, err)
	}
	_, err := h3.Exec(context.Background(), "ip addr add 10.3.0.11/24 dev eth0")
	var perr *netproto.Error
	if !errors.As(err, &perr) || perr.Code != netproto.CodeConfigIncompatible || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("ip addr add: %v", err)
	}
	for _, h := range []*HostDriver{h3, mustHost(t, lab, "h1")} {
		// A zone the host does not serve has no file (h1 serves none).
		if _, err := h.Exec(context.Background(), "cat /etc/bind/db.other.example"); err == nil || !strings.Contains(err.Error(), "No such file") {
			t.Errorf("%s: cat of a zone it does not serve: %v", h.name, err)
		}
	}

	// YANG: openconfig interfaces with state, the gateway as the default route.
	ctx := context.Background()
	st, err := h3.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces/interface[name='eth0']/state")
	if err != nil || st.(map[string]any)["oper-status"] != "UP" {
		t.Errorf("eth0 state: %v %v", st, err)
	}
	run, err := h3.Get(ctx, device.Running, "/openconfig-interfaces:interfaces/interface[name='eth0']")
	if err != nil || !strings.Contains(mustJSON(run), `"ip":"10.3.0.10"`) {
		t.Errorf("eth0 running: %v %v", mustJSON(run), err)
	}
	rt, err := h3.Get(ctx, device.Running, "/ietf-routing:routing")
	if err != nil || !strings.Contains(mustJSON(rt), `"next-hop-address":"10.3.0.1"`) {
		t.Errorf("routing: %v %v", mustJSON(rt), err)
	}
	if _, err := h3.Get(ctx, device.Candidate, "/openconfig-interfaces:interfaces"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("candidate: %v", err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestHostDriverFaults checks what a host's shell shows under each host
// fault's configuration.
func TestHostDriverFaults(t *testing.T) {
	tests := []struct {
		name   string
		set    func(d *topology.Device)
		fault  *topology.Fault
		checks []struct{ cmd, want string }
	}{
		{name: "host_incorrect_gateway", set: func(d *topology.Device) { d.Gateway = "10.3.0.99" },
			checks: []struct{ cmd, want string }{
				{"ip route", "default via 10.3.0.99 dev eth0"},
				{"ip neigh", "10.3.0.99 dev eth0 FAILED"},
				{"ping -c 1 10.0.12.1", "From 10.3.0.10 icmp_seq=1 Destination Host Unreachable"},
			}},
		{name: "host_incorrect_ip", set: func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.1.10/24"} },
			checks: []struct{ cmd, want string }{
				{"ip addr", "inet 10.3.1.10/24 brd 10.3.1.255 scope global eth0"},
				{"ip route", "10.3.1.0/24 dev eth0 proto kernel scope link src 10.3.1.10\n"},
				{"ping -c 1 10.3.0.1", "Network is unreachable"},
			}},
		{name: "host_incorrect_netmask", set: func(d *topology.Device) { d.Interfaces[0].Addresses = []string{"10.3.0.10/30"} },
			checks: []struct{ cmd, want string }{
				{"ip addr", "inet 10.3.0.10/30 brd 10.3.0.11 scope global eth0"},
				{"ping -c 1 10.3.0.1", "Network is unreachable"},
			}},
		{name: "host_missing_ip", set: func(d *topology.Device) { d.Interfaces[0].Addresses = nil },
			checks: []struct{ cmd, want string }{
				{"ip -4 addr", "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP>"},
				{"ip route", ""},
			}},
		{name: "host_static_blackhole", set: func(d *topology.Device) {
			d.Routes = append(d.Routes, topology.StaticRoute{Prefix: "10.0.12.0/30", Discard: true})
		},
			checks: []struct{ cmd, want string }{
				{"ip route", "blackhole 10.0.12.0/30 proto static\n"},
				{"ping -c 1 10.0.12.1", "ping: connect: Invalid argument"}, // EINVAL on a blackhole route, as iputils prints it
			}},
		{name: "host_incorrect_dns", set: func(d *topology.Device) { d.DNSServers = []string{"10.3.0.53"} },
			checks: []struct{ cmd, want string }{
				{"cat /etc/resolv.conf", "nameserver 10.3.0.53\n"},
				{"ip neigh", "10.3.0.53 dev eth0 FAILED"},
				{"dig r1.lab.example", ";; communications error to 10.3.0.53#53: host unreachable"},
				{"ping -c 1 r1.lab.example", "ping: r1.lab.example: Temporary failure in name resolution"},
			}},
		{name: "mac_address_conflict", set: func(d *topology.Device) { d.Interfaces[0].MAC = "00:50:56:ab:cd:ef" },
			checks: []struct{ cmd, want string }{
				// The hardware address stays what it was: iproute2 shows it.
				{"ip link", "link/ether 00:50:56:ab:cd:ef brd ff:ff:ff:ff:ff:ff permaddr 00:50:56:12:34:56\n"},
				{"ip -j link", `"address":"00:50:56:ab:cd:ef","broadcast":"ff:ff:ff:ff:ff:ff","permaddr":"00:50:56:12:34:56"`},
			}},
		{name: "dns_service_down", set: func(d *topology.Device) { d.DNS.Disabled = true },
			checks: []struct{ cmd, want string }{
				{"dig r1.lab.example", ";; communications error to 10.3.0.10#53: connection refused"},
			}},
		{name: "dns_record_error", set: func(d *topology.Device) { d.DNS.Zones[0].Records[0].Value = "10.255.0.99" },
			checks: []struct{ cmd, want string }{
				{"dig r1.lab.example", "IN\tA\t10.255.0.99"},
				{"ping -c 1 r1.lab.example", "PING r1.lab.example (10.255.0.99)"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lab, _ := newTestLab(t)
			setHost(t, lab, "h3", tc.set)
			h3 := mustHost(t, lab, "h3")
			for _, c := range tc.checks {
				out := execOut(t, h3, c.cmd)
				if c.want == "" && !strings.Contains(out, "default") && out != "" {
					t.Errorf("%s: %q, want no route", c.cmd, out)
				}
				if !strings.Contains(out, c.want) {
					t.Errorf("%s:\n%s\nlacks %q", c.cmd, out, c.want)
				}
			}
		})
	}
}

// TestHostCrashDriver checks that a crashed host answers nothing and that
// its gateway sees the link down.
func TestHostCrashDriver(t *testing.T) {
	lab, _ := newTestLab(t)
	if err := lab.InjectFault(topology.Fault{Name: "host_crash", Target: "h3"}); err != nil {
		t.Fatal(err)
	}
	h3 := mustHost(t, lab, "h3")
	_, err := h3.Exec(context.Background(), "ip addr")
	var perr *netproto.Error
	if !errors.As(err, &perr) || perr.Code != netproto.CodeUnreachable {
		t.Fatalf("exec on a crashed host: %v", err)
	}
	if _, err := h3.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: "10.3.0.1"}, nil); err == nil {
		t.Error("a crashed host ran ping")
	}
	st, _ := lab.Network().InterfaceState("r3", "GigabitEthernet0/0/1")
	if st.OperUp {
		t.Errorf("r3's port to h3 is up: %+v", st)
	}
	lab.ClearFaults()
	if out := execOut(t, h3, "ip route"); !strings.Contains(out, "default via 10.3.0.1") {
		t.Errorf("after recovery: %s", out)
	}
}

// TestOpenHost opens a host through device.Open.
func TestOpenHost(t *testing.T) {
	drv, err := device.Open(context.Background(), "sim://h1", device.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	if drv.Info().CLIDialect != "linux" {
		t.Errorf("sim://h1: %+v", drv.Info())
	}
	out, err := drv.Exec(context.Background(), "ip neigh")
	if err != nil || !strings.Contains(out, "10.0.0.1 dev eth0 lladdr") {
		t.Errorf("h1 ip neigh: %q %v", out, err)
	}
}

// TestConflictLogged checks that a router logs a host taking its address
// (host_ip_conflict with the gateway), once, and again after it recurs.
func TestConflictLogged(t *testing.T) {
	lab, _ := newTestLab(t)
	r3 := mustDevice(t, lab, "r3")
	count := func() int {
		logs, _ := r3.Syslog(context.Background(), 1000)
		n := 0
		for _, e := range logs {
			if strings.Contains(e.Mnemonic, "ARP_DUPLICATE_IPADDR") {
				if !strings.Contains(e.Message, "IpAddress=10.3.0.1, InterfaceName=GigabitEthernet0/0/1, MacAddress=0050-5612-3456") {
					t.Errorf("log %q", e.Message)
				}
				n++
			}
		}
		return n
	}
	h3, _ := lab.Network().Device("h3")
	wrong := h3
	wrong.Interfaces = []topology.Interface{h3.Interfaces[0]}
	wrong.Interfaces[0].Addresses = []string{"10.3.0.1/24"}
	for i, d := range []topology.Device{wrong, wrong, h3, wrong} {
		if err := lab.applyDevice(d); err != nil {
			t.Fatal(err)
		}
		if want := []int{1, 1, 1, 2}[i]; count() != want {
			t.Fatalf("step %d: %d duplicate-address logs, want %d", i, count(), want)
		}
	}
}
