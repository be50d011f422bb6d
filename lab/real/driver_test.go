//go:build linux

package real

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
)

// Paths of the shared contract (COMMON.md).
const (
	ospfArea0 = "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols/" +
		"protocol[identifier=openconfig-policy-types:OSPF][name=ospf]/ospfv2/areas/area[identifier=0.0.0.0]"
	bgpNeighbors = "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols/" +
		"protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/neighbors"
)

// openDriver opens the linux driver of a lab device.
func openDriver(t *testing.T, l *Lab, dev string) *linux.Driver {
	t.Helper()
	drv, err := linux.Open(l.Namespace(dev))
	if err != nil {
		t.Fatal(err)
	}
	return drv
}

// getString reads one leaf as a string ("" and the error when absent).
func getString(ctx context.Context, drv *linux.Driver, path string) (string, error) {
	v, err := drv.Get(ctx, device.Operational, path)
	if err != nil {
		return "", err
	}
	return fmt.Sprint(v), nil
}

func testDriver(ctx context.Context, t *testing.T, l *Lab) {
	r1, r2 := openDriver(t, l, "r1"), openDriver(t, l, "r2")
	if got := r2.Info().CLIDialect; got != linux.DialectFRR {
		t.Errorf("r2 dialect = %q, want %q", got, linux.DialectFRR)
	}
	tests := []struct {
		drv  *linux.Driver
		path string
		want string
	}{
		// Interfaces from netlink, by their topology names.
		{r1, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0]/state/oper-status", "UP"},
		{r1, "/openconfig-interfaces:interfaces/interface[name=TenGigE0/0/0/0]/state/admin-status", "UP"},
		{r1, "/openconfig-interfaces:interfaces/interface[name=TenGigE0/0/0/0]/state/oper-status", "LOWER_LAYER_DOWN"},
		{r1, "/openconfig-interfaces:interfaces/interface[name=TenGigE0/0/0/0]/state/mtu", "9000"},
		{r2, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0/2]/state/admin-status", "DOWN"},
		{r1, "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/0]/subinterfaces/subinterface[index=0]/ipv4/addresses/address[ip=10.0.12.1]/state/prefix-length", "30"},
		// OSPF from ospfd.
		{r2, ospfArea0 + "/interfaces/interface[id=GigabitEthernet0/0/0/0]/neighbors/neighbor[router-id=10.255.0.1]/state/adjacency-state", "openconfig-ospf-types:FULL"},
		{r2, ospfArea0 + "/interfaces/interface[id=GigabitEthernet0/0/0/1]/state/network-type", "openconfig-ospf-types:POINT_TO_POINT_NETWORK"},
		{r2, ospfArea0 + "/interfaces/interface[id=GigabitEthernet0/0/0/1]/timers/state/hello-interval", "10"},
		// BGP from bgpd.
		{r2, bgpNeighbors + "/neighbor[neighbor-address=10.255.0.3]/state/session-state", "ESTABLISHED"},
		{r2, bgpNeighbors + "/neighbor[neighbor-address=10.255.0.3]/state/peer-type", "INTERNAL"},
		{r2, bgpNeighbors + "/neighbor[neighbor-address=10.0.12.1]/state/peer-type", "EXTERNAL"},
		{r2, bgpNeighbors + "/neighbor[neighbor-address=10.0.12.1]/state/peer-as", "65001"},
		{r1, "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/global/state/as", "65001"},
		// LLDP from lldpd: r1 behind r2's Gi0/0/0/0, with its custom TLV.
		{r2, "/openconfig-lldp:lldp/interfaces/interface[name=GigabitEthernet0/0/0/0]/neighbors/neighbor[id=*]/state/system-name", "r1"},
	}
	// The reads run at once: each is a few vtysh and netlink calls, mostly
	// waiting.
	var wg sync.WaitGroup
	for _, tc := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := tc.path
			if strings.Contains(path, "[id=*]") {
				// The neighbour id is lldpd's: read the interface's neighbours.
				// r1 is seen with its management address, its port, its host
				// name (lldpd's own UTS namespace, and its configuration) and
				// its custom TLV (OUI 00:00:5e subtype 1, "netmcp").
				list := path[:strings.Index(path, "/neighbor[id=*]")]
				waitFor(t, 15*time.Second, "LLDP: r1 behind r2's Gi0/0/0/0 with its name and custom TLV", func() (bool, string) {
					v, err := tc.drv.Get(ctx, device.Operational, list)
					s := fmt.Sprint(v)
					for _, want := range []string{"management-address:10.255.0.1", "port-description:GigabitEthernet0/0/0",
						"system-name:r1", "oui:00:00:5e", "oui-subtype:1", "value:6e:65:74:6d:63:70"} {
						if !strings.Contains(s, want) {
							return false, fmt.Sprintf("no %q in %s %v", want, s, err)
						}
					}
					return true, ""
				})
				return
			}
			got, err := getString(ctx, tc.drv, path)
			if err != nil || got != tc.want {
				t.Errorf("Get %s = %q, %v; want %q", path, got, err, tc.want)
			}
		}()
	}
	wg.Wait()
	// The RIB: r1 has h3's LAN from BGP, active, next hop r2.
	v, err := r1.Get(ctx, device.Operational, "/ietf-routing:routing/ribs/rib[name=ipv4-master]/routes")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range v.(map[string]any)["route"].([]any) {
		m := r.(map[string]any)
		if m["destination-prefix"] == "10.3.0.0/24" && m["source-protocol"] == "netmcp:bgp" && m["active"] != nil {
			nh := m["next-hop"].(map[string]any)
			found = nh["next-hop-address"] == "10.0.12.2"
		}
	}
	if !found {
		t.Errorf("r1's RIB lacks 10.3.0.0/24 from BGP via 10.0.12.2: %v", v)
	}
	// A model the driver does not serve.
	if _, err := r1.Get(ctx, device.Operational, "/openconfig-system:system"); !isCode(err, netproto.CodeConfigIncompatible) {
		t.Errorf("Get of an unserved model = %v, want -32084", err)
	}

	// CLI: vtysh show commands and the fixed ip reads; nothing else.
	out, err := r2.Exec(ctx, "show ip ospf neighbor")
	if err != nil || !strings.Contains(out, "10.255.0.1") || !strings.Contains(out, "Full") {
		t.Errorf("show ip ospf neighbor = %q, %v", out, err)
	}
	if out, err := r2.Exec(ctx, "show bgp summary"); err != nil || !strings.Contains(out, "10.255.0.3") {
		t.Errorf("show bgp summary = %q, %v", out, err)
	}
	if out, err := r2.Exec(ctx, "ip -j addr"); err != nil || !strings.Contains(out, "10.0.23.1") {
		t.Errorf("ip -j addr = %q, %v", out, err)
	}
	for _, bad := range []string{"configure terminal", "show running-config | include password", "show ip route; reboot",
		"write memory", "show $(id)", "clear ip ospf process"} {
		if _, err := r2.Exec(ctx, bad); !isCode(err, netproto.CodeConfigIncompatible) {
			t.Errorf("Exec(%q) = %v, want -32084", bad, err)
		}
	}
}

func isCode(err error, code int) bool {
	var ne *netproto.Error
	return errors.As(err, &ne) && ne.Code == code
}

// waitFor polls cond until it holds or timeout (a quiet machine's figure,
// stretched by testwait on a busy one) passes; the last message explains a
// failure.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) time.Duration {
	t.Helper()
	timeout = testwait.Timeout(timeout)
	start := time.Now()
	msg := ""
	for time.Since(start) < timeout {
		var ok bool
		if ok, msg = cond(); ok {
			return time.Since(start)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("%s: not within %s: %s", what, timeout, msg)
	return timeout
}
