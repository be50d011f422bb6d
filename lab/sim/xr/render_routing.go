package xr

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// This file renders the "router ospf" and "router bgp" sections of the
// running configuration; configure_routing.go reads them back.

// redist names a redistribution source.
var redist = map[string]string{"connected": "connected", "static": "static", "ospf": "ospf 1", "bgp": "bgp"}

// routingText is the "router ospf" and "router bgp" sections.
func routingText(d topology.Device) string {
	var b strings.Builder
	areas := dialect.OSPFAreas(d)
	if o := d.OSPF; o != nil || len(areas) > 0 {
		ospfText(&b, d, areas)
	}
	if g := d.BGP; g != nil {
		bgpText(&b, g)
	}
	return b.String()
}

func ospfText(b *strings.Builder, d topology.Device, areas []string) {
	o := d.OSPF
	if o == nil {
		o = &topology.OSPF{}
	}
	b.WriteString("router ospf 1\n")
	if o.RouterID != "" {
		b.WriteString(" router-id " + o.RouterID + "\n")
	}
	for _, r := range o.Redistribute {
		b.WriteString(" redistribute " + redist[r] + "\n")
	}
	if o.DefaultOriginate {
		b.WriteString(" default-information originate always\n")
	}
	if o.ReferenceBandwidthMbps > 0 {
		fmt.Fprintf(b, " auto-cost reference-bandwidth %d\n", o.ReferenceBandwidthMbps)
	}
	for _, a := range areas {
		b.WriteString(" area " + areaNumber(a) + "\n")
		for _, it := range d.Interfaces {
			if io := it.OSPF; io != nil && dialect.DottedArea(io.Area) == a {
				ospfInterfaceText(b, it.Name, io)
			}
		}
		b.WriteString(" !\n")
	}
	b.WriteString("!\n")
}

// ospfInterfaceText is an interface's section of its area.
func ospfInterfaceText(b *strings.Builder, name string, io *topology.InterfaceOSPF) {
	b.WriteString("  interface " + name + "\n")
	if io.Cost > 0 {
		fmt.Fprintf(b, "   cost %d\n", io.Cost)
	}
	if io.NetworkType != "" {
		b.WriteString("   network " + io.NetworkType + "\n")
	}
	if io.Hello > 0 {
		fmt.Fprintf(b, "   hello-interval %d\n", io.Hello)
	}
	if io.Dead > 0 {
		fmt.Fprintf(b, "   dead-interval %d\n", io.Dead)
	}
	if io.Priority != nil {
		fmt.Fprintf(b, "   priority %d\n", *io.Priority)
	}
	if io.Passive {
		b.WriteString("   passive enable\n")
	}
	if io.MTUIgnore {
		b.WriteString("   mtu-ignore enable\n")
	}
	b.WriteString("  !\n")
}

func bgpText(b *strings.Builder, g *topology.BGP) {
	fmt.Fprintf(b, "router bgp %d\n", g.ASN)
	if g.RouterID != "" {
		b.WriteString(" bgp router-id " + g.RouterID + "\n")
	}
	if g.Keepalive > 0 || g.Hold > 0 {
		fmt.Fprintf(b, " timers bgp %d %d\n", g.Keepalive, g.Hold)
	}
	for _, v6 := range []bool{false, true} {
		var lines []string
		for _, p := range g.Networks {
			if pp, err := netip.ParsePrefix(p); err == nil && pp.Addr().Is6() == v6 {
				lines = append(lines, "  network "+pp.String()+"\n")
			}
		}
		if !v6 {
			for _, r := range g.Redistribute {
				lines = append(lines, "  redistribute "+redist[r]+"\n")
			}
		}
		hasPeer := slices.ContainsFunc(g.Neighbors, func(n topology.BGPNeighbor) bool { return dialect.PeerIs6(n.Address) == v6 })
		if len(lines) == 0 && !hasPeer {
			continue
		}
		b.WriteString(" address-family " + family(v6) + " unicast\n" + strings.Join(lines, "") + " !\n")
	}
	for _, n := range g.Neighbors {
		neighborText(b, n)
	}
	b.WriteString("!\n")
}

// neighborText is a neighbour's section of "router bgp".
func neighborText(b *strings.Builder, n topology.BGPNeighbor) {
	b.WriteString(" neighbor " + n.Address + "\n")
	fmt.Fprintf(b, "  remote-as %d\n", n.RemoteAS)
	if n.Description != "" {
		b.WriteString("  description " + n.Description + "\n")
	}
	if n.Password != "" {
		b.WriteString("  password clear " + n.Password + "\n")
	}
	if n.UpdateSource != "" {
		b.WriteString("  update-source " + n.UpdateSource + "\n")
	}
	if n.EBGPMultihop > 0 {
		fmt.Fprintf(b, "  ebgp-multihop %d\n", n.EBGPMultihop)
	}
	if n.Shutdown {
		b.WriteString("  shutdown\n")
	}
	b.WriteString("  address-family " + family(dialect.PeerIs6(n.Address)) + " unicast\n")
	if n.NextHopSelf {
		b.WriteString("   next-hop-self\n")
	}
	if n.MaxPrefix > 0 {
		fmt.Fprintf(b, "   maximum-prefix %d\n", n.MaxPrefix)
	}
	b.WriteString("  !\n !\n")
}

func family(v6 bool) string {
	if v6 {
		return "ipv6"
	}
	return "ipv4"
}

// areaNumber writes a dotted area as the decimal XR prints for small
// areas ("0.0.0.0" -> "0"), dotted otherwise.
func areaNumber(a string) string {
	d := dialect.DottedArea(a)
	ip, err := netip.ParseAddr(d)
	if err != nil || !ip.Is4() {
		return a
	}
	b := ip.As4()
	if b[0] == 0 && b[1] == 0 {
		return strconv.Itoa(int(b[2])<<8 | int(b[3]))
	}
	return d
}
