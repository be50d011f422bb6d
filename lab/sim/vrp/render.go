package vrp

import (
	"cmp"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// render prints a configuration as VRP's current-configuration; the
// parser reads it back into the same configuration.
func render(c dialect.Config, changed time.Time, by string) string {
	var b strings.Builder
	d := c.Dev
	fmt.Fprintf(&b, "!Software Version %s\n", d.SoftwareVersion)
	if !changed.IsZero() {
		fmt.Fprintf(&b, "!Last configuration was updated at %s by %s\n", changed.UTC().Format("2006-01-02 15:04:05+00:00"), cmp.Or(by, "system"))
	}
	b.WriteString("#\nsysname " + c.Hostname + "\n")
	renderVLANs(&b, d)
	for _, v := range d.VRFs {
		fmt.Fprintf(&b, "#\nip vpn-instance %s\n ipv4-family\n", v.Name)
		if v.RD != "" {
			fmt.Fprintf(&b, "  route-distinguisher %s\n", v.RD)
		}
	}
	renderACLs(&b, d)
	renderUsers(&b, d)
	for _, it := range d.Interfaces {
		renderInterface(&b, it)
	}
	for _, s := range d.SNMPCommunities {
		b.WriteString("#\nsnmp-agent community read cipher " + s + "\n")
	}
	b.WriteString(routingText(d)) // OSPF, BGP: render_routing.go
	renderRoutes(&b, d)
	b.WriteString("#\nreturn\n")
	return b.String()
}

// running is the running configuration as the device prints it.
func running(v *dialect.View) string {
	at, by := v.Device.LastCommit()
	return render(v.Config, at, by)
}

func renderVLANs(b *strings.Builder, d topology.Device) {
	if len(d.VLANs) == 0 {
		return
	}
	var ids []string
	for _, v := range d.VLANs {
		ids = append(ids, strconv.Itoa(v.ID))
	}
	b.WriteString("#\nvlan batch " + strings.Join(ids, " ") + "\n")
	for _, v := range d.VLANs {
		if v.Name != "" {
			fmt.Fprintf(b, "#\nvlan %d\n name %s\n", v.ID, v.Name)
		}
	}
}

func renderACLs(b *strings.Builder, d topology.Device) {
	for _, a := range d.ACLs {
		fmt.Fprintf(b, "#\nacl name %s advance\n", a.Name)
		for _, r := range a.Rules {
			fmt.Fprintf(b, " rule %d %s %s", r.Seq, r.Action, cmp.Or(r.Protocol, "ip"))
			if r.Source != "" {
				b.WriteString(" source " + wildcardText(r.Source))
			}
			if r.Destination != "" {
				b.WriteString(" destination " + wildcardText(r.Destination))
			}
			if r.DstPort > 0 {
				fmt.Fprintf(b, " destination-port eq %d", r.DstPort)
			}
			if r.SrcPort > 0 {
				fmt.Fprintf(b, " source-port eq %d", r.SrcPort)
			}
			b.WriteString("\n")
		}
	}
}

func renderUsers(b *strings.Builder, d topology.Device) {
	if len(d.Users) == 0 {
		return
	}
	b.WriteString("#\naaa\n")
	for _, u := range d.Users {
		fmt.Fprintf(b, " local-user %s password irreversible-cipher %s\n", u.Name, u.Password)
		if u.Role != "" {
			fmt.Fprintf(b, " local-user %s user-group %s\n", u.Name, u.Role)
		}
		fmt.Fprintf(b, " local-user %s service-type ssh\n", u.Name)
	}
}

func renderInterface(b *strings.Builder, it topology.Interface) {
	b.WriteString("#\ninterface " + it.Name + "\n")
	if it.Description != "" {
		b.WriteString(" description " + it.Description + "\n")
	}
	if it.MTU != 0 && it.MTU != 1500 {
		fmt.Fprintf(b, " mtu %d\n", it.MTU)
	}
	if it.Shutdown {
		b.WriteString(" shutdown\n")
	} else if dialect.GuessType(it.Name) == "ethernetCsmacd" {
		b.WriteString(" undo shutdown\n")
	}
	switch {
	case it.AccessVLAN > 0:
		fmt.Fprintf(b, " portswitch\n port link-type access\n port default vlan %d\n", it.AccessVLAN)
	case len(it.TrunkVLANs) > 0:
		b.WriteString(" portswitch\n port link-type trunk\n port trunk allow-pass vlan " + dialect.JoinInts(it.TrunkVLANs, " ") + "\n")
	}
	if it.VRF != "" {
		b.WriteString(" ip binding vpn-instance " + it.VRF + "\n")
	}
	v4, v6 := dialect.SplitAddrs(it)
	for i, p := range v4 {
		fmt.Fprintf(b, " ip address %s %s", p.Addr(), dialect.DottedMask(p.Bits(), false))
		if i > 0 {
			b.WriteString(" sub")
		}
		b.WriteString("\n")
	}
	if len(v6) > 0 {
		b.WriteString(" ipv6 enable\n")
		for _, p := range v6 {
			b.WriteString(" ipv6 address " + strings.ToUpper(p.String()) + "\n")
		}
	}
	if it.IngressACL != "" {
		b.WriteString(" traffic-filter inbound acl name " + it.IngressACL + "\n")
	}
	if it.EgressACL != "" {
		b.WriteString(" traffic-filter outbound acl name " + it.EgressACL + "\n")
	}
	b.WriteString(interfaceOSPFText(it)) // render_routing.go
}

func renderRoutes(b *strings.Builder, d topology.Device) {
	if len(d.Routes) == 0 {
		return
	}
	b.WriteString("#\n")
	for _, r := range d.Routes {
		p, err := netip.ParsePrefix(r.Prefix)
		if err != nil {
			continue
		}
		b.WriteString(routeLine(r, p))
	}
}

// routeLine is one "ip route-static" (ipv6 route-static) line.
func routeLine(r topology.StaticRoute, p netip.Prefix) string {
	var b strings.Builder
	if p.Addr().Is4() {
		b.WriteString("ip route-static ")
	} else {
		b.WriteString("ipv6 route-static ")
	}
	if r.VRF != "" {
		b.WriteString("vpn-instance " + r.VRF + " ")
	}
	if p.Addr().Is4() {
		fmt.Fprintf(&b, "%s %s", p.Addr(), dialect.DottedMask(p.Bits(), false))
	} else {
		fmt.Fprintf(&b, "%s %d", p.Addr(), p.Bits())
	}
	switch {
	case r.Discard:
		b.WriteString(" NULL0")
	default:
		if r.Interface != "" {
			b.WriteString(" " + r.Interface)
		}
		if r.NextHop != "" {
			b.WriteString(" " + r.NextHop)
		}
	}
	if r.Distance > 0 {
		fmt.Fprintf(&b, " preference %d", r.Distance)
	}
	b.WriteString("\n")
	return b.String()
}

// wildcardText writes a prefix as VRP "A W" (0 for a host).
func wildcardText(p string) string {
	pp, err := netip.ParsePrefix(p)
	if err != nil || pp.Addr().Is6() {
		return p
	}
	if pp.Bits() == 32 {
		return pp.Addr().String() + " 0"
	}
	return pp.Addr().String() + " " + dialect.DottedMask(pp.Bits(), true)
}
