package dialect

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// Config is a device's configuration as the parsers edit it: the topology
// device plus the hostname (which may differ from the lab name).
type Config struct {
	Dev      topology.Device
	Hostname string
}

// Interface returns d's interface named name (case-insensitively),
// creating it if create is set; nil when absent and not created.
func Interface(d *topology.Device, name string, create bool) *topology.Interface {
	for i := range d.Interfaces {
		if strings.EqualFold(d.Interfaces[i].Name, name) {
			return &d.Interfaces[i]
		}
	}
	if !create {
		return nil
	}
	it := topology.Interface{Name: name}
	if t := GuessType(name); t != "ethernetCsmacd" {
		it.Type = t
	}
	if it.Type == "l3ipvlan" {
		it.RoutedVLAN = trailingNumber(name)
	}
	d.Interfaces = append(d.Interfaces, it)
	return &d.Interfaces[len(d.Interfaces)-1]
}

// Iface returns the interface named name, creating it if create is set.
func (c *Config) Iface(name string, create bool) *topology.Interface {
	return Interface(&c.Dev, name, create)
}

// RemoveInterface deletes a (logical) interface.
func (c *Config) RemoveInterface(name string) bool {
	n := len(c.Dev.Interfaces)
	c.Dev.Interfaces = slices.DeleteFunc(c.Dev.Interfaces, func(it topology.Interface) bool {
		return strings.EqualFold(it.Name, name)
	})
	return len(c.Dev.Interfaces) != n
}

// findOrAppend returns the element of *list that match accepts, appending
// fresh when there is none.
func findOrAppend[T any](list *[]T, match func(T) bool, fresh T) *T {
	if i := slices.IndexFunc(*list, match); i >= 0 {
		return &(*list)[i]
	}
	*list = append(*list, fresh)
	return &(*list)[len(*list)-1]
}

// VLAN returns the VLAN with id, creating it.
func (c *Config) VLAN(id int) *topology.VLAN {
	return findOrAppend(&c.Dev.VLANs, func(v topology.VLAN) bool { return v.ID == id }, topology.VLAN{ID: id})
}

// RemoveVLAN deletes the VLAN with id.
func (c *Config) RemoveVLAN(id int) {
	c.Dev.VLANs = slices.DeleteFunc(c.Dev.VLANs, func(v topology.VLAN) bool { return v.ID == id })
}

// VRF returns the VRF named name, creating it.
func (c *Config) VRF(name string) *topology.VRF {
	return findOrAppend(&c.Dev.VRFs, func(v topology.VRF) bool { return v.Name == name }, topology.VRF{Name: name})
}

// RemoveVRF deletes the VRF named name.
func (c *Config) RemoveVRF(name string) {
	c.Dev.VRFs = slices.DeleteFunc(c.Dev.VRFs, func(v topology.VRF) bool { return v.Name == name })
}

// HasVRF reports whether the VRF named name is configured.
func (c *Config) HasVRF(name string) bool {
	return slices.ContainsFunc(c.Dev.VRFs, func(v topology.VRF) bool { return v.Name == name })
}

// ACL returns the ACL named name, creating it.
func (c *Config) ACL(name string) *topology.ACL {
	return findOrAppend(&c.Dev.ACLs, func(a topology.ACL) bool { return a.Name == name }, topology.ACL{Name: name})
}

// RemoveACL deletes the ACL named name.
func (c *Config) RemoveACL(name string) {
	c.Dev.ACLs = slices.DeleteFunc(c.Dev.ACLs, func(a topology.ACL) bool { return a.Name == name })
}

// HasACL reports whether the ACL named name is configured.
func (c *Config) HasACL(name string) bool {
	return slices.ContainsFunc(c.Dev.ACLs, func(a topology.ACL) bool { return a.Name == name })
}

// User returns the local user named name, creating it.
func (c *Config) User(name string) *topology.User {
	return findOrAppend(&c.Dev.Users, func(u topology.User) bool { return u.Name == name }, topology.User{Name: name})
}

// RemoveUser deletes the local user named name.
func (c *Config) RemoveUser(name string) {
	c.Dev.Users = slices.DeleteFunc(c.Dev.Users, func(u topology.User) bool { return u.Name == name })
}

// SetCommunity adds (or with remove deletes) an SNMP community.
func (c *Config) SetCommunity(name string, remove bool) {
	if remove {
		c.Dev.SNMPCommunities = slices.DeleteFunc(c.Dev.SNMPCommunities, func(x string) bool { return x == name })
	} else if !slices.Contains(c.Dev.SNMPCommunities, name) {
		c.Dev.SNMPCommunities = append(c.Dev.SNMPCommunities, name)
	}
}

// AddRoute adds a static route, replacing one with the same prefix, VRF
// and next hop.
func (c *Config) AddRoute(r topology.StaticRoute) {
	c.RemoveRoute(r, true)
	c.Dev.Routes = append(c.Dev.Routes, r)
}

// RemoveRoute removes static routes of a prefix and VRF (only those with
// r's next hop when exact) and returns how many it removed.
func (c *Config) RemoveRoute(r topology.StaticRoute, exact bool) int {
	n := len(c.Dev.Routes)
	c.Dev.Routes = slices.DeleteFunc(c.Dev.Routes, func(x topology.StaticRoute) bool {
		if x.Prefix != r.Prefix || x.VRF != r.VRF {
			return false
		}
		return !exact || (x.NextHop == r.NextHop && x.Interface == r.Interface && x.Discard == r.Discard)
	})
	return n - len(c.Dev.Routes)
}

// Clone deep-copies the slices a parser edits, so that parsing into the
// copy leaves c unchanged.
func (c Config) Clone() Config {
	out := c
	d := &out.Dev
	d.Interfaces = append(d.Interfaces[:0:0], c.Dev.Interfaces...)
	for i := range d.Interfaces {
		d.Interfaces[i].Addresses = append([]string(nil), d.Interfaces[i].Addresses...)
		d.Interfaces[i].TrunkVLANs = append([]int(nil), d.Interfaces[i].TrunkVLANs...)
	}
	d.VLANs = append(d.VLANs[:0:0], c.Dev.VLANs...)
	d.VRFs = append(d.VRFs[:0:0], c.Dev.VRFs...)
	d.Routes = append(d.Routes[:0:0], c.Dev.Routes...)
	d.ACLs = append(d.ACLs[:0:0], c.Dev.ACLs...)
	for i := range d.ACLs {
		d.ACLs[i].Rules = append(d.ACLs[i].Rules[:0:0], d.ACLs[i].Rules...)
	}
	d.Users = append(d.Users[:0:0], c.Dev.Users...)
	d.SNMPCommunities = append(d.SNMPCommunities[:0:0], c.Dev.SNMPCommunities...)
	cloneRouting(d) // OSPF and BGP: routing.go
	return out
}

// setAddress adds an address to an interface; a primary IPv4 address
// replaces the previous IPv4 addresses, as on routers.
func setAddress(it *topology.Interface, p netip.Prefix, secondary bool) {
	s := netip.PrefixFrom(p.Addr(), p.Bits()).String()
	if p.Addr().Is4() && !secondary {
		it.Addresses = slices.DeleteFunc(it.Addresses, func(a string) bool { return !strings.Contains(a, ":") })
	}
	if !slices.Contains(it.Addresses, s) {
		it.Addresses = append(it.Addresses, s)
	}
}

// EditAddress applies the arguments of an "ip address" (v6: "ipv6
// address") command to an interface: "A M|A/LEN [SECONDARY]" adds, and
// with remove deletes that address, or every address of the family when
// args is empty. secondary is the dialect's keyword for an IPv4 address
// that does not replace the primary. It reports false when args do not
// parse as an address of the family.
func EditAddress(it *topology.Interface, args []string, remove, v6 bool, secondary string) bool {
	if remove && len(args) == 0 {
		RemoveAddress(it, netip.Prefix{}, v6)
		return true
	}
	p, used, err := ParseAddrMask(args, 0)
	if err != nil || p.Addr().Is6() != v6 {
		return false
	}
	if remove {
		RemoveAddress(it, p, v6)
	} else {
		setAddress(it, p, v6 || (len(args) > used && args[used] == secondary))
	}
	return true
}

// RemoveAddress removes an address (all of a family when p is invalid).
func RemoveAddress(it *topology.Interface, p netip.Prefix, v6 bool) {
	it.Addresses = slices.DeleteFunc(it.Addresses, func(a string) bool {
		ap, err := netip.ParsePrefix(a)
		if err != nil || ap.Addr().Is6() != v6 {
			return false
		}
		return !p.IsValid() || ap.Addr() == p.Addr()
	})
}

// SetRule adds or replaces an ACL rule; seq 0 picks the next multiple of step.
func SetRule(a *topology.ACL, r topology.ACLEntry, step int) {
	if r.Seq == 0 {
		for _, e := range a.Rules {
			r.Seq = max(r.Seq, e.Seq)
		}
		r.Seq = (r.Seq/step + 1) * step
	}
	a.Rules = slices.DeleteFunc(a.Rules, func(e topology.ACLEntry) bool { return e.Seq == r.Seq })
	a.Rules = append(a.Rules, r)
	slices.SortFunc(a.Rules, func(x, y topology.ACLEntry) int { return x.Seq - y.Seq })
}

// RemoveRule deletes the ACL rule with sequence number seq.
func RemoveRule(a *topology.ACL, seq int) {
	a.Rules = slices.DeleteFunc(a.Rules, func(e topology.ACLEntry) bool { return e.Seq == seq })
}

// SplitAddrs splits an interface's addresses by family.
func SplitAddrs(it topology.Interface) (v4, v6 []netip.Prefix) {
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

// GuessType is the YANG interface type a name implies: softwareLoopback
// for loopbacks, l3ipvlan for VLAN interfaces, ethernetCsmacd otherwise.
func GuessType(name string) string {
	l := strings.ToLower(name)
	switch {
	case strings.HasPrefix(l, "loopback"):
		return "softwareLoopback"
	case strings.HasPrefix(l, "vlan"), strings.HasPrefix(l, "bvi"):
		return "l3ipvlan"
	}
	return "ethernetCsmacd"
}

// ACLFamily is the openconfig ACL type of an ACL: ACL_IPV6 when a rule
// names an IPv6 prefix, ACL_IPV4 otherwise.
func ACLFamily(a topology.ACL) string {
	for _, r := range a.Rules {
		for _, s := range []string{r.Source, r.Destination} {
			if strings.Contains(s, ":") {
				return "ACL_IPV6"
			}
		}
	}
	return "ACL_IPV4"
}
