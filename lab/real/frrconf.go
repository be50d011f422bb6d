//go:build linux

package real

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// frrConfig renders the integrated FRR configuration (frr.conf) of a
// router: static routes, the OSPF process (before the interfaces, so its
// router-id is set before any interface joins), interfaces with their
// OSPF settings, and the BGP process, from the topology. Two lab settings are
// added that the topology does not carry: OSPF's LSA throttling is off
// ("timers throttle lsa all 0", "timers lsa min-arrival 0": routes within
// a second instead of about eleven), and every BGP neighbour retries its
// connection after 2 s instead of 120 s ("timers connect 2"), so an iBGP
// session over loopbacks comes up as soon as OSPF has the route, and sends
// its updates at once ("advertisement-interval 0": FRR's traditional
// defaults hold eBGP updates for up to 30 s after the first, so a route
// learned just after a session came up reached the next AS half a minute
// later, as the simulator, which has no such timer, never does). And zebra
// installs routes with their next hops inline, not as kernel nexthop
// groups ("no zebra nexthop kernel enable"): when a link goes down the
// kernel deletes the groups through it, and after a flap FRR 8.4's zebra
// could hold routes as installed ("O>*") that the kernel no longer had,
// so a router dropped traffic its RIB said it routed. OSPF and BGP log
// their adjacency changes ("log-adjacency-changes", "bgp
// log-neighbor-changes": traditional defaults do not), which the linux
// driver's Syslog serves from the daemons' log files.
func frrConfig(d *planDevice) (string, error) {
	dev := d.Dev
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("frr version 8.4")
	w("frr defaults traditional")
	w("hostname %s", dev.Name)
	w("service integrated-vtysh-config")
	w("no zebra nexthop kernel enable")
	w("!")
	for _, r := range dev.Routes {
		if r.VRF != "" {
			continue
		}
		line, err := staticRoute(d, r)
		if err != nil {
			return "", err
		}
		w("%s", line)
	}
	w("!")
	if o := dev.OSPF; o != nil {
		w("router ospf")
		if id := routerID(d, o.RouterID); id != "" {
			w(" ospf router-id %s", id)
		}
		if o.ReferenceBandwidthMbps > 0 {
			w(" auto-cost reference-bandwidth %d", o.ReferenceBandwidthMbps)
		}
		for _, r := range o.Redistribute {
			w(" redistribute %s", r)
		}
		if o.DefaultOriginate {
			w(" default-information originate always")
		}
		w(" timers throttle lsa all 0")
		w(" timers lsa min-arrival 0")
		w(" log-adjacency-changes")
		w("exit")
		w("!")
	}
	for _, i := range d.Ifaces {
		w("interface %s", i.Linux)
		if i.Topol.Description != "" {
			w(" description %s", oneLine(i.Topol.Description))
		}
		if o := i.Topol.OSPF; o != nil && dev.OSPF != nil {
			w(" ip ospf area %s", o.Area)
			switch o.NetworkType {
			case "", topology.OSPFBroadcast:
			case topology.OSPFPointToPoint:
				w(" ip ospf network point-to-point")
			default:
				return "", fmt.Errorf("interface %s: OSPF network type %q (want point-to-point or broadcast)", i.Topo, o.NetworkType)
			}
			if o.Cost > 0 {
				w(" ip ospf cost %d", o.Cost)
			}
			if o.Hello > 0 {
				w(" ip ospf hello-interval %d", o.Hello)
			}
			if o.Dead > 0 {
				w(" ip ospf dead-interval %d", o.Dead)
			}
			if o.Priority != nil {
				w(" ip ospf priority %d", *o.Priority)
			}
			if o.Passive {
				w(" ip ospf passive")
			}
			if o.MTUIgnore {
				w(" ip ospf mtu-ignore")
			}
		}
		w("exit")
		w("!")
	}
	if bgp := dev.BGP; bgp != nil {
		if err := bgpConfig(w, d, bgp); err != nil {
			return "", err
		}
	}
	w("end")
	return b.String(), nil
}

// bgpConfig renders "router bgp".
func bgpConfig(w func(string, ...any), d *planDevice, bgp *topology.BGP) error {
	if bgp.ASN == 0 {
		return fmt.Errorf("bgp: asn missing")
	}
	w("router bgp %d", bgp.ASN)
	if id := routerID(d, bgp.RouterID); id != "" {
		w(" bgp router-id %s", id)
	}
	w(" no bgp ebgp-requires-policy")
	w(" bgp log-neighbor-changes")
	if bgp.Keepalive > 0 || bgp.Hold > 0 {
		ka, hold := bgp.Keepalive, bgp.Hold
		if ka == 0 {
			ka = 60
		}
		if hold == 0 {
			hold = 180
		}
		w(" timers bgp %d %d", ka, hold)
	}
	v4 := map[string]bool{}
	for _, n := range bgp.Neighbors {
		a, err := netip.ParseAddr(n.Address)
		if err != nil {
			return fmt.Errorf("bgp neighbor %q: %v", n.Address, err)
		}
		v4[n.Address] = a.Is4()
		w(" neighbor %s remote-as %d", n.Address, n.RemoteAS)
		if n.Description != "" {
			w(" neighbor %s description %s", n.Address, oneLine(n.Description))
		}
		if n.UpdateSource != "" {
			src, err := sourceAddr(d, n.UpdateSource, a.Is4())
			if err != nil {
				return fmt.Errorf("bgp neighbor %s: %w", n.Address, err)
			}
			w(" neighbor %s update-source %s", n.Address, src)
		}
		if n.EBGPMultihop > 1 {
			w(" neighbor %s ebgp-multihop %d", n.Address, n.EBGPMultihop)
		}
		if n.Password != "" {
			w(" neighbor %s password %s", n.Address, n.Password)
		}
		if n.Shutdown {
			w(" neighbor %s shutdown", n.Address)
		}
		w(" neighbor %s timers connect 2", n.Address)
		w(" neighbor %s advertisement-interval 0", n.Address)
	}
	for _, fam := range []struct {
		name string
		v4   bool
	}{{"ipv4 unicast", true}, {"ipv6 unicast", false}} {
		var lines []string
		for _, p := range bgp.Networks {
			pfx, err := netip.ParsePrefix(p)
			if err != nil {
				return fmt.Errorf("bgp network %q: %v", p, err)
			}
			if pfx.Addr().Is4() == fam.v4 {
				lines = append(lines, "network "+pfx.Masked().String())
			}
		}
		for _, r := range bgp.Redistribute {
			lines = append(lines, "redistribute "+r)
		}
		for _, n := range bgp.Neighbors {
			if v4[n.Address] != fam.v4 {
				continue
			}
			if !fam.v4 {
				lines = append(lines, "neighbor "+n.Address+" activate")
			}
			if n.NextHopSelf {
				lines = append(lines, "neighbor "+n.Address+" next-hop-self")
			}
			if n.MaxPrefix > 0 {
				lines = append(lines, fmt.Sprintf("neighbor %s maximum-prefix %d", n.Address, n.MaxPrefix))
			}
		}
		if len(lines) == 0 {
			continue
		}
		w(" !")
		w(" address-family %s", fam.name)
		for _, l := range lines {
			w("  %s", l)
		}
		w(" exit-address-family")
	}
	w("exit")
	w("!")
	return nil
}

// staticRoute renders one static route.
func staticRoute(d *planDevice, r topology.StaticRoute) (string, error) {
	pfx, err := netip.ParsePrefix(r.Prefix)
	if err != nil {
		return "", fmt.Errorf("static route %q: %v", r.Prefix, err)
	}
	cmd := "ip route"
	if pfx.Addr().Is6() {
		cmd = "ipv6 route"
	}
	line := cmd + " " + pfx.Masked().String()
	switch {
	case r.Discard:
		line += " blackhole"
	default:
		if r.NextHop != "" {
			if _, err := netip.ParseAddr(r.NextHop); err != nil {
				return "", fmt.Errorf("static route %s: next hop %q: %v", r.Prefix, r.NextHop, err)
			}
			line += " " + r.NextHop
		}
		if r.Interface != "" {
			i, ok := d.Iface(r.Interface)
			if !ok {
				return "", fmt.Errorf("static route %s: no interface %s", r.Prefix, r.Interface)
			}
			line += " " + i.Linux
		}
		if r.NextHop == "" && r.Interface == "" {
			return "", fmt.Errorf("static route %s: no next hop, interface or discard", r.Prefix)
		}
	}
	if r.Distance > 0 {
		line += fmt.Sprintf(" %d", r.Distance)
	}
	return line, nil
}

// routerID is explicit, else the device's router-id, else the first IPv4
// address of its first loopback ("" lets FRR choose).
func routerID(d *planDevice, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if d.Dev.RouterID != "" {
		return d.Dev.RouterID
	}
	for _, i := range d.Ifaces {
		if i.Kind == ifLoopback {
			for _, a := range i.Addrs {
				if a.Addr().Is4() {
					return a.Addr().String()
				}
			}
		}
	}
	return ""
}

// sourceAddr is the first address of the family of topology interface
// name: FRR's update-source by address, since several loopbacks share lo.
func sourceAddr(d *planDevice, name string, v4 bool) (string, error) {
	i, ok := d.Iface(name)
	if !ok {
		// Loopback0 and LoopBack0 name the same interface on many platforms.
		for _, pi := range d.Ifaces {
			if strings.EqualFold(pi.Topo, name) {
				i, ok = pi, true
				break
			}
		}
	}
	if !ok {
		return "", fmt.Errorf("update-source %s: no such interface", name)
	}
	for _, a := range i.Addrs {
		if a.Addr().Is4() == v4 {
			return a.Addr().String(), nil
		}
	}
	return "", fmt.Errorf("update-source %s: no address of the neighbour's family", name)
}

// oneLine keeps configuration text on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
