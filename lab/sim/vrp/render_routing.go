package vrp

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// This file renders the OSPF and BGP sections of the current
// configuration; configure_routing.go reads them back.

// redist names a redistribution source.
var redist = map[string]string{"connected": "direct", "static": "static", "ospf": "ospf 1", "bgp": "bgp"}

// interfaceOSPFText is the "ospf ..." lines of an interface section.
func interfaceOSPFText(it topology.Interface) string {
	o := it.OSPF
	if o == nil {
		return ""
	}
	var b strings.Builder
	if o.Cost > 0 {
		fmt.Fprintf(&b, " ospf cost %d\n", o.Cost)
	}
	switch o.NetworkType {
	case topology.OSPFPointToPoint:
		b.WriteString(" ospf network-type p2p\n")
	case topology.OSPFBroadcast:
		b.WriteString(" ospf network-type broadcast\n")
	}
	if o.Priority != nil {
		fmt.Fprintf(&b, " ospf dr-priority %d\n", *o.Priority)
	}
	if o.Hello > 0 {
		fmt.Fprintf(&b, " ospf timer hello %d\n", o.Hello)
	}
	if o.Dead > 0 {
		fmt.Fprintf(&b, " ospf timer dead %d\n", o.Dead)
	}
	if o.MTUIgnore {
		b.WriteString(" undo ospf mtu-enable\n")
	}
	fmt.Fprintf(&b, " ospf enable 1 area %s\n", dialect.DottedArea(o.Area))
	return b.String()
}

// routingText is the "bgp" and "ospf" sections of a configuration.
func routingText(d topology.Device) string {
	var b strings.Builder
	if g := d.BGP; g != nil {
		bgpText(&b, g)
	}
	areas := dialect.OSPFAreas(d)
	if o := d.OSPF; o != nil || len(areas) > 0 {
		ospfText(&b, d, areas)
	}
	return b.String()
}

func bgpText(b *strings.Builder, g *topology.BGP) {
	fmt.Fprintf(b, "#\nbgp %d\n", g.ASN)
	if g.RouterID != "" {
		b.WriteString(" router-id " + g.RouterID + "\n")
	}
	if g.Keepalive > 0 || g.Hold > 0 {
		fmt.Fprintf(b, " timer keepalive %d hold %d\n", g.Keepalive, g.Hold)
	}
	for _, n := range g.Neighbors {
		peerText(b, n)
	}
	for _, v6 := range []bool{false, true} {
		lines := familyLines(g, v6)
		if len(lines) == 0 && v6 {
			continue
		}
		if v6 {
			b.WriteString(" #\n ipv6-family unicast\n")
		} else {
			b.WriteString(" #\n ipv4-family unicast\n  undo synchronization\n")
		}
		b.WriteString(strings.Join(lines, ""))
	}
}

// peerText is a peer's lines in the BGP view.
func peerText(b *strings.Builder, n topology.BGPNeighbor) {
	fmt.Fprintf(b, " peer %s as-number %d\n", n.Address, n.RemoteAS)
	if n.Description != "" {
		fmt.Fprintf(b, " peer %s description %s\n", n.Address, n.Description)
	}
	if n.UpdateSource != "" {
		fmt.Fprintf(b, " peer %s connect-interface %s\n", n.Address, n.UpdateSource)
	}
	if n.EBGPMultihop > 0 {
		fmt.Fprintf(b, " peer %s ebgp-max-hop %d\n", n.Address, n.EBGPMultihop)
	}
	if n.Password != "" {
		fmt.Fprintf(b, " peer %s password cipher %s\n", n.Address, n.Password)
	}
	if n.Shutdown {
		fmt.Fprintf(b, " peer %s ignore\n", n.Address)
	}
}

// familyLines are the lines of the IPv4 (v6: IPv6) unicast family view.
func familyLines(g *topology.BGP, v6 bool) []string {
	var lines []string
	for _, p := range g.Networks {
		pp, err := netip.ParsePrefix(p)
		if err != nil || pp.Addr().Is6() != v6 {
			continue
		}
		if v6 {
			lines = append(lines, fmt.Sprintf("  network %s %d\n", pp.Addr(), pp.Bits()))
		} else {
			lines = append(lines, fmt.Sprintf("  network %s %s\n", pp.Addr(), dialect.DottedMask(pp.Bits(), false)))
		}
	}
	if !v6 {
		for _, r := range g.Redistribute {
			lines = append(lines, "  import-route "+redist[r]+"\n")
		}
	}
	for _, n := range g.Neighbors {
		if dialect.PeerIs6(n.Address) != v6 {
			continue
		}
		lines = append(lines, fmt.Sprintf("  peer %s enable\n", n.Address))
		if n.NextHopSelf {
			lines = append(lines, fmt.Sprintf("  peer %s next-hop-local\n", n.Address))
		}
		if n.MaxPrefix > 0 {
			lines = append(lines, fmt.Sprintf("  peer %s route-limit %d\n", n.Address, n.MaxPrefix))
		}
	}
	return lines
}

func ospfText(b *strings.Builder, d topology.Device, areas []string) {
	o := d.OSPF
	if o == nil {
		o = &topology.OSPF{}
	}
	b.WriteString("#\nospf 1")
	if o.RouterID != "" {
		b.WriteString(" router-id " + o.RouterID)
	}
	b.WriteString("\n")
	if o.DefaultOriginate {
		b.WriteString(" default-route-advertise always\n")
	}
	if o.ReferenceBandwidthMbps > 0 {
		fmt.Fprintf(b, " bandwidth-reference %d\n", o.ReferenceBandwidthMbps)
	}
	for _, r := range o.Redistribute {
		b.WriteString(" import-route " + redist[r] + "\n")
	}
	for _, it := range d.Interfaces {
		if it.OSPF != nil && it.OSPF.Passive {
			b.WriteString(" silent-interface " + it.Name + "\n")
		}
	}
	for _, a := range areas {
		b.WriteString(" area " + a + "\n")
	}
}
