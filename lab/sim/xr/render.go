package xr

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// render prints a configuration as XR's running-config; the parser reads
// it back into the same configuration.
func render(c dialect.Config, changed time.Time, by string) string {
	var b strings.Builder
	d := c.Dev
	b.WriteString("Building configuration...\n")
	fmt.Fprintf(&b, "!! IOS XR Configuration %s\n", d.SoftwareVersion)
	if !changed.IsZero() {
		fmt.Fprintf(&b, "!! Last configuration change at %s by %s\n", changed.UTC().Format("Mon Jan _2 15:04:05 2006"), cmp.Or(by, "system"))
	}
	b.WriteString("!\nhostname " + c.Hostname + "\n")
	for _, u := range d.Users {
		b.WriteString("username " + u.Name + "\n")
		if u.Role != "" {
			b.WriteString(" group " + u.Role + "\n")
		}
		b.WriteString(" secret 0 " + u.Password + "\n!\n")
	}
	for _, v := range d.VRFs {
		b.WriteString("vrf " + v.Name + "\n")
		if v.RD != "" {
			b.WriteString(" rd " + v.RD + "\n")
		}
		b.WriteString(" address-family ipv4 unicast\n !\n!\n")
	}
	for _, v := range d.VLANs {
		fmt.Fprintf(&b, "vlan %d\n", v.ID)
		if v.Name != "" {
			b.WriteString(" name " + v.Name + "\n")
		}
		b.WriteString("!\n")
	}
	for _, a := range d.ACLs {
		renderACL(&b, a)
	}
	for _, it := range d.Interfaces {
		renderInterface(&b, it)
	}
	renderStatic(&b, d.Routes)
	b.WriteString(routingText(d)) // OSPF, BGP: render_routing.go
	for _, s := range d.SNMPCommunities {
		b.WriteString("snmp-server community " + s + " RO\n")
	}
	b.WriteString("end\n")
	return b.String()
}

// running is the running configuration as the device prints it.
func running(v *dialect.View) string {
	at, by := v.Device.LastCommit()
	return render(v.Config, at, by)
}

func renderACL(b *strings.Builder, a topology.ACL) {
	fam := "ipv4"
	if dialect.ACLFamily(a) == "ACL_IPV6" {
		fam = "ipv6"
	}
	b.WriteString(fam + " access-list " + a.Name + "\n")
	for _, r := range a.Rules {
		proto := cmp.Or(r.Protocol, "ip")
		if proto == "ip" {
			proto = fam
		}
		src := aceAddr(r.Source)
		if r.SrcPort > 0 {
			src += fmt.Sprintf(" eq %d", r.SrcPort)
		}
		fmt.Fprintf(b, " %d %s %s %s %s", r.Seq, r.Action, proto, src, aceAddr(r.Destination))
		if r.DstPort > 0 {
			fmt.Fprintf(b, " eq %d", r.DstPort)
		}
		b.WriteString("\n")
	}
	b.WriteString("!\n")
}

func renderInterface(b *strings.Builder, it topology.Interface) {
	b.WriteString("interface " + it.Name + "\n")
	if it.Description != "" {
		b.WriteString(" description " + it.Description + "\n")
	}
	if it.MTU != 0 && it.MTU != 1500 {
		fmt.Fprintf(b, " mtu %d\n", it.MTU)
	}
	if it.VRF != "" {
		b.WriteString(" vrf " + it.VRF + "\n")
	}
	v4, v6 := dialect.SplitAddrs(it)
	for i, p := range v4 {
		fmt.Fprintf(b, " ipv4 address %s %s", p.Addr(), dialect.DottedMask(p.Bits(), false))
		if i > 0 {
			b.WriteString(" secondary")
		}
		b.WriteString("\n")
	}
	for _, p := range v6 {
		b.WriteString(" ipv6 address " + p.String() + "\n")
	}
	switch {
	case it.AccessVLAN > 0:
		fmt.Fprintf(b, " switchport mode access\n switchport access vlan %d\n", it.AccessVLAN)
	case len(it.TrunkVLANs) > 0:
		b.WriteString(" switchport mode trunk\n switchport trunk allowed vlan " + dialect.JoinInts(it.TrunkVLANs, ",") + "\n")
	}
	if it.IngressACL != "" {
		b.WriteString(" ipv4 access-group " + it.IngressACL + " ingress\n")
	}
	if it.EgressACL != "" {
		b.WriteString(" ipv4 access-group " + it.EgressACL + " egress\n")
	}
	if it.Shutdown {
		b.WriteString(" shutdown\n")
	}
	b.WriteString("!\n")
}

// renderStatic is the "router static" section: the global table's routes,
// then each VRF's, by address family.
func renderStatic(b *strings.Builder, routes []topology.StaticRoute) {
	if len(routes) == 0 {
		return
	}
	b.WriteString("router static\n")
	vrfs := []string{""}
	for _, r := range routes {
		if !slices.Contains(vrfs, r.VRF) {
			vrfs = append(vrfs, r.VRF)
		}
	}
	for _, vrf := range vrfs {
		ind := " "
		if vrf != "" {
			b.WriteString(" vrf " + vrf + "\n")
			ind = "  "
		}
		for _, fam := range []string{"ipv4", "ipv6"} {
			lines := staticLines(routes, vrf, fam, ind)
			if len(lines) > 0 {
				b.WriteString(ind + "address-family " + fam + " unicast\n")
				b.WriteString(strings.Join(lines, ""))
				b.WriteString(ind + "!\n")
			}
		}
		if vrf != "" {
			b.WriteString(" !\n")
		}
	}
	b.WriteString("!\n")
}

// staticLines are the route lines of one VRF and address family.
func staticLines(routes []topology.StaticRoute, vrf, fam, ind string) []string {
	var lines []string
	for _, r := range routes {
		if r.VRF != vrf || strings.Contains(r.Prefix, ":") != (fam == "ipv6") {
			continue
		}
		l := r.Prefix
		switch {
		case r.Discard:
			l += " Null0"
		default:
			if r.Interface != "" {
				l += " " + r.Interface
			}
			if r.NextHop != "" {
				l += " " + r.NextHop
			}
		}
		if r.Distance > 0 {
			l += " " + strconv.Itoa(r.Distance)
		}
		lines = append(lines, ind+" "+l+"\n")
	}
	return lines
}

// aceAddr writes an ACE address: any, host A, or A/LEN.
func aceAddr(p string) string {
	if p == "" {
		return "any"
	}
	pp, err := netip.ParsePrefix(p)
	if err == nil && pp.Bits() == pp.Addr().BitLen() {
		return "host " + pp.Addr().String()
	}
	if err == nil && pp.Addr().Is4() {
		return pp.Addr().String() + " " + dialect.DottedMask(pp.Bits(), true)
	}
	return p
}
