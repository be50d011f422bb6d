package sim

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// renderConfig renders a configuration as the dialect's running-config
// text. The text parses back (parseConfigText) into the same configuration.
// Secrets are printed as configured: redaction belongs to the MCP layer.
func renderConfig(c devConfig, dialect string, changed time.Time, by string) string {
	if dialect == DialectXR {
		return renderXR(c, changed, by)
	}
	return renderVRP(c, changed, by)
}

// parseConfigText parses a whole configuration file of a dialect into a
// configuration, starting from base's non-configuration facts.
func parseConfigText(text string, dialect string, base topology.Device) (devConfig, error) {
	d := base
	d.Interfaces, d.VLANs, d.VRFs, d.Routes, d.ACLs, d.Users, d.SNMPCommunities = nil, nil, nil, nil, nil, nil, nil
	d.OSPF, d.BGP = nil, nil
	c := devConfig{dev: d, hostname: base.Name}
	baseIf := map[string]topology.Interface{}
	for _, it := range base.Interfaces {
		baseIf[it.Name] = it
	}
	s, err := newSession(&c, dialect)
	if err != nil {
		return c, err
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimSpace(l)
		if t == "Building configuration..." || t == "end" || t == "return" {
			continue
		}
		lines = append(lines, l)
	}
	if err := s.apply(lines); err != nil {
		return c, err
	}
	for i, it := range c.dev.Interfaces {
		b := baseIf[it.Name]
		c.dev.Interfaces[i].MAC, c.dev.Interfaces[i].IGPCost, c.dev.Interfaces[i].Passive = b.MAC, b.IGPCost, b.Passive
		if c.dev.Interfaces[i].Type == "" {
			c.dev.Interfaces[i].Type = b.Type
		}
	}
	return c, nil
}

func splitAddrs(it topology.Interface) (v4, v6 []netip.Prefix) {
	for _, a := range it.Addresses {
		p, err := netip.ParsePrefix(a)
		if err != nil {
			continue
		}
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	return v4, v6
}

func renderVRP(c devConfig, changed time.Time, by string) string {
	var b strings.Builder
	d := c.dev
	fmt.Fprintf(&b, "!Software Version %s\n", d.SoftwareVersion)
	if !changed.IsZero() {
		fmt.Fprintf(&b, "!Last configuration was updated at %s by %s\n", changed.UTC().Format("2006-01-02 15:04:05+00:00"), cmp.Or(by, "system"))
	}
	b.WriteString("#\nsysname " + c.hostname + "\n")
	if len(d.VLANs) > 0 {
		var ids []string
		for _, v := range d.VLANs {
			ids = append(ids, strconv.Itoa(v.ID))
		}
		b.WriteString("#\nvlan batch " + strings.Join(ids, " ") + "\n")
		for _, v := range d.VLANs {
			if v.Name != "" {
				fmt.Fprintf(&b, "#\nvlan %d\n name %s\n", v.ID, v.Name)
			}
		}
	}
	for _, v := range d.VRFs {
		fmt.Fprintf(&b, "#\nip vpn-instance %s\n ipv4-family\n", v.Name)
		if v.RD != "" {
			fmt.Fprintf(&b, "  route-distinguisher %s\n", v.RD)
		}
	}
	for _, a := range d.ACLs {
		fmt.Fprintf(&b, "#\nacl name %s advance\n", a.Name)
		for _, r := range a.Rules {
			fmt.Fprintf(&b, " rule %d %s %s", r.Seq, r.Action, cmp.Or(r.Protocol, "ip"))
			if r.Source != "" {
				b.WriteString(" source " + wildcardText(r.Source))
			}
			if r.Destination != "" {
				b.WriteString(" destination " + wildcardText(r.Destination))
			}
			if r.DstPort > 0 {
				fmt.Fprintf(&b, " destination-port eq %d", r.DstPort)
			}
			if r.SrcPort > 0 {
				fmt.Fprintf(&b, " source-port eq %d", r.SrcPort)
			}
			b.WriteString("\n")
		}
	}
	if len(d.Users) > 0 {
		b.WriteString("#\naaa\n")
		for _, u := range d.Users {
			fmt.Fprintf(&b, " local-user %s password irreversible-cipher %s\n", u.Name, u.Password)
			if u.Role != "" {
				fmt.Fprintf(&b, " local-user %s user-group %s\n", u.Name, u.Role)
			}
			fmt.Fprintf(&b, " local-user %s service-type ssh\n", u.Name)
		}
	}
	for _, it := range d.Interfaces {
		b.WriteString("#\ninterface " + it.Name + "\n")
		if it.Description != "" {
			b.WriteString(" description " + it.Description + "\n")
		}
		if it.MTU != 0 && it.MTU != 1500 {
			fmt.Fprintf(&b, " mtu %d\n", it.MTU)
		}
		if it.Shutdown {
			b.WriteString(" shutdown\n")
		} else if guessType(it.Name) == "ethernetCsmacd" {
			b.WriteString(" undo shutdown\n")
		}
		switch {
		case it.AccessVLAN > 0:
			fmt.Fprintf(&b, " portswitch\n port link-type access\n port default vlan %d\n", it.AccessVLAN)
		case len(it.TrunkVLANs) > 0:
			b.WriteString(" portswitch\n port link-type trunk\n port trunk allow-pass vlan " + joinInts(it.TrunkVLANs, " ") + "\n")
		}
		if it.VRF != "" {
			b.WriteString(" ip binding vpn-instance " + it.VRF + "\n")
		}
		v4, v6 := splitAddrs(it)
		for i, p := range v4 {
			fmt.Fprintf(&b, " ip address %s %s", p.Addr(), dottedMask(p.Bits(), false))
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
		b.WriteString(vrpInterfaceOSPFText(it)) // config_text_routing.go
	}
	for _, s := range d.SNMPCommunities {
		b.WriteString("#\nsnmp-agent community read cipher " + s + "\n")
	}
	b.WriteString(vrpRoutingText(d)) // OSPF, BGP: config_text_routing.go
	if len(d.Routes) > 0 {
		b.WriteString("#\n")
		for _, r := range d.Routes {
			p, err := netip.ParsePrefix(r.Prefix)
			if err != nil {
				continue
			}
			if p.Addr().Is4() {
				b.WriteString("ip route-static ")
			} else {
				b.WriteString("ipv6 route-static ")
			}
			if r.VRF != "" {
				b.WriteString("vpn-instance " + r.VRF + " ")
			}
			if p.Addr().Is4() {
				fmt.Fprintf(&b, "%s %s", p.Addr(), dottedMask(p.Bits(), false))
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
		}
	}
	b.WriteString("#\nreturn\n")
	return b.String()
}

func renderXR(c devConfig, changed time.Time, by string) string {
	var b strings.Builder
	d := c.dev
	b.WriteString("Building configuration...\n")
	fmt.Fprintf(&b, "!! IOS XR Configuration %s\n", d.SoftwareVersion)
	if !changed.IsZero() {
		fmt.Fprintf(&b, "!! Last configuration change at %s by %s\n", changed.UTC().Format("Mon Jan _2 15:04:05 2006"), cmp.Or(by, "system"))
	}
	b.WriteString("!\nhostname " + c.hostname + "\n")
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
		fam := "ipv4"
		if aclFamily(a) == "ACL_IPV6" {
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
			fmt.Fprintf(&b, " %d %s %s %s %s", r.Seq, r.Action, proto, src, aceAddr(r.Destination))
			if r.DstPort > 0 {
				fmt.Fprintf(&b, " eq %d", r.DstPort)
			}
			b.WriteString("\n")
		}
		b.WriteString("!\n")
	}
	for _, it := range d.Interfaces {
		b.WriteString("interface " + it.Name + "\n")
		if it.Description != "" {
			b.WriteString(" description " + it.Description + "\n")
		}
		if it.MTU != 0 && it.MTU != 1500 {
			fmt.Fprintf(&b, " mtu %d\n", it.MTU)
		}
		if it.VRF != "" {
			b.WriteString(" vrf " + it.VRF + "\n")
		}
		v4, v6 := splitAddrs(it)
		for i, p := range v4 {
			fmt.Fprintf(&b, " ipv4 address %s %s", p.Addr(), dottedMask(p.Bits(), false))
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
			fmt.Fprintf(&b, " switchport mode access\n switchport access vlan %d\n", it.AccessVLAN)
		case len(it.TrunkVLANs) > 0:
			b.WriteString(" switchport mode trunk\n switchport trunk allowed vlan " + joinInts(it.TrunkVLANs, ",") + "\n")
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
	if len(d.Routes) > 0 {
		b.WriteString("router static\n")
		vrfs := []string{""}
		for _, r := range d.Routes {
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
				var lines []string
				for _, r := range d.Routes {
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
	b.WriteString(xrRoutingText(d)) // OSPF, BGP: config_text_routing.go
	for _, s := range d.SNMPCommunities {
		b.WriteString("snmp-server community " + s + " RO\n")
	}
	b.WriteString("end\n")
	return b.String()
}

// wildcardText writes a prefix as VRP/IOS "A W" (0 for a host).
func wildcardText(p string) string {
	pp, err := netip.ParsePrefix(p)
	if err != nil || pp.Addr().Is6() {
		return p
	}
	if pp.Bits() == 32 {
		return pp.Addr().String() + " 0"
	}
	return pp.Addr().String() + " " + dottedMask(pp.Bits(), true)
}

// aceAddr writes an XR ACE address: any, host A, or A/LEN.
func aceAddr(p string) string {
	if p == "" {
		return "any"
	}
	pp, err := netip.ParsePrefix(p)
	if err == nil && pp.Bits() == pp.Addr().BitLen() {
		return "host " + pp.Addr().String()
	}
	if err == nil && pp.Addr().Is4() {
		return pp.Addr().String() + " " + dottedMask(pp.Bits(), true)
	}
	return p
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}
