package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file renders the OSPF and BGP sections of the running
// configuration in each dialect; the configure_routing_* parsers read
// them back.

// vrpRedist and xrRedist name a redistribution source in each dialect.
var (
	vrpRedist = map[string]string{"connected": "direct", "static": "static", "ospf": "ospf 1", "bgp": "bgp"}
	xrRedist  = map[string]string{"connected": "connected", "static": "static", "ospf": "ospf 1", "bgp": "bgp"}
)

// vrpInterfaceOSPFText is the "ospf ..." lines of a VRP interface section.
func vrpInterfaceOSPFText(it topology.Interface) string {
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
	fmt.Fprintf(&b, " ospf enable 1 area %s\n", dottedArea(o.Area))
	return b.String()
}

// ospfAreas lists the areas of a device's interfaces, dotted, in order of
// first use.
func ospfAreas(d topology.Device) []string {
	var out []string
	for _, it := range d.Interfaces {
		if it.OSPF != nil && !slices.Contains(out, dottedArea(it.OSPF.Area)) {
			out = append(out, dottedArea(it.OSPF.Area))
		}
	}
	return out
}

// peerIs6 tells whether a peer address is IPv6.
func peerIs6(addr string) bool {
	a, err := netip.ParseAddr(addr)
	return err == nil && a.Is6()
}

// vrpRoutingText is the "bgp" and "ospf" sections of a VRP configuration.
func vrpRoutingText(d topology.Device) string {
	var b strings.Builder
	if g := d.BGP; g != nil {
		fmt.Fprintf(&b, "#\nbgp %d\n", g.ASN)
		if g.RouterID != "" {
			b.WriteString(" router-id " + g.RouterID + "\n")
		}
		if g.Keepalive > 0 || g.Hold > 0 {
			fmt.Fprintf(&b, " timer keepalive %d hold %d\n", g.Keepalive, g.Hold)
		}
		for _, n := range g.Neighbors {
			fmt.Fprintf(&b, " peer %s as-number %d\n", n.Address, n.RemoteAS)
			if n.Description != "" {
				fmt.Fprintf(&b, " peer %s description %s\n", n.Address, n.Description)
			}
			if n.UpdateSource != "" {
				fmt.Fprintf(&b, " peer %s connect-interface %s\n", n.Address, n.UpdateSource)
			}
			if n.EBGPMultihop > 0 {
				fmt.Fprintf(&b, " peer %s ebgp-max-hop %d\n", n.Address, n.EBGPMultihop)
			}
			if n.Password != "" {
				fmt.Fprintf(&b, " peer %s password cipher %s\n", n.Address, n.Password)
			}
			if n.Shutdown {
				fmt.Fprintf(&b, " peer %s ignore\n", n.Address)
			}
		}
		for _, v6 := range []bool{false, true} {
			var lines []string
			for _, p := range g.Networks {
				pp, err := netip.ParsePrefix(p)
				if err != nil || pp.Addr().Is6() != v6 {
					continue
				}
				if v6 {
					lines = append(lines, fmt.Sprintf("  network %s %d\n", pp.Addr(), pp.Bits()))
				} else {
					lines = append(lines, fmt.Sprintf("  network %s %s\n", pp.Addr(), dottedMask(pp.Bits(), false)))
				}
			}
			if !v6 {
				for _, r := range g.Redistribute {
					lines = append(lines, "  import-route "+vrpRedist[r]+"\n")
				}
			}
			for _, n := range g.Neighbors {
				if peerIs6(n.Address) != v6 {
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
	areas := ospfAreas(d)
	if o := d.OSPF; o != nil || len(areas) > 0 {
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
			fmt.Fprintf(&b, " bandwidth-reference %d\n", o.ReferenceBandwidthMbps)
		}
		for _, r := range o.Redistribute {
			b.WriteString(" import-route " + vrpRedist[r] + "\n")
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
	return b.String()
}

// xrRoutingText is the "router ospf" and "router bgp" sections of an XR
// configuration.
func xrRoutingText(d topology.Device) string {
	var b strings.Builder
	areas := ospfAreas(d)
	if o := d.OSPF; o != nil || len(areas) > 0 {
		if o == nil {
			o = &topology.OSPF{}
		}
		b.WriteString("router ospf 1\n")
		if o.RouterID != "" {
			b.WriteString(" router-id " + o.RouterID + "\n")
		}
		for _, r := range o.Redistribute {
			b.WriteString(" redistribute " + xrRedist[r] + "\n")
		}
		if o.DefaultOriginate {
			b.WriteString(" default-information originate always\n")
		}
		if o.ReferenceBandwidthMbps > 0 {
			fmt.Fprintf(&b, " auto-cost reference-bandwidth %d\n", o.ReferenceBandwidthMbps)
		}
		for _, a := range areas {
			b.WriteString(" area " + areaNumber(a) + "\n")
			for _, it := range d.Interfaces {
				io := it.OSPF
				if io == nil || dottedArea(io.Area) != a {
					continue
				}
				b.WriteString("  interface " + it.Name + "\n")
				if io.Cost > 0 {
					fmt.Fprintf(&b, "   cost %d\n", io.Cost)
				}
				if io.NetworkType != "" {
					b.WriteString("   network " + io.NetworkType + "\n")
				}
				if io.Hello > 0 {
					fmt.Fprintf(&b, "   hello-interval %d\n", io.Hello)
				}
				if io.Dead > 0 {
					fmt.Fprintf(&b, "   dead-interval %d\n", io.Dead)
				}
				if io.Priority != nil {
					fmt.Fprintf(&b, "   priority %d\n", *io.Priority)
				}
				if io.Passive {
					b.WriteString("   passive enable\n")
				}
				if io.MTUIgnore {
					b.WriteString("   mtu-ignore enable\n")
				}
				b.WriteString("  !\n")
			}
			b.WriteString(" !\n")
		}
		b.WriteString("!\n")
	}
	if g := d.BGP; g != nil {
		fmt.Fprintf(&b, "router bgp %d\n", g.ASN)
		if g.RouterID != "" {
			b.WriteString(" bgp router-id " + g.RouterID + "\n")
		}
		if g.Keepalive > 0 || g.Hold > 0 {
			fmt.Fprintf(&b, " timers bgp %d %d\n", g.Keepalive, g.Hold)
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
					lines = append(lines, "  redistribute "+xrRedist[r]+"\n")
				}
			}
			hasPeer := slices.ContainsFunc(g.Neighbors, func(n topology.BGPNeighbor) bool { return peerIs6(n.Address) == v6 })
			if len(lines) == 0 && !hasPeer {
				continue
			}
			b.WriteString(" address-family " + xrFamily(v6) + " unicast\n" + strings.Join(lines, "") + " !\n")
		}
		for _, n := range g.Neighbors {
			b.WriteString(" neighbor " + n.Address + "\n")
			fmt.Fprintf(&b, "  remote-as %d\n", n.RemoteAS)
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
				fmt.Fprintf(&b, "  ebgp-multihop %d\n", n.EBGPMultihop)
			}
			if n.Shutdown {
				b.WriteString("  shutdown\n")
			}
			b.WriteString("  address-family " + xrFamily(peerIs6(n.Address)) + " unicast\n")
			if n.NextHopSelf {
				b.WriteString("   next-hop-self\n")
			}
			if n.MaxPrefix > 0 {
				fmt.Fprintf(&b, "   maximum-prefix %d\n", n.MaxPrefix)
			}
			b.WriteString("  !\n !\n")
		}
		b.WriteString("!\n")
	}
	return b.String()
}

func xrFamily(v6 bool) string {
	if v6 {
		return "ipv6"
	}
	return "ipv4"
}
