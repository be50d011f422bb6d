package netsim

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// acl is an ACL compiled once per build: its rules in sequence order with
// their prefixes parsed, and the families it filters.
type acl struct {
	rules []aclRule
	// filters4 and filters6 tell whether the ACL filters the family: an
	// ACL whose rules all name prefixes of the other family does not.
	filters4, filters6 bool
}

// aclRule is one compiled rule; an invalid src or dst prefix matches any address.
type aclRule struct {
	permit   bool
	protocol string // lower case
	srcPort  int
	dstPort  int
	src, dst netip.Prefix
}

// compileACL compiles an ACL of a validated topology.
func compileACL(a topology.ACL) *acl {
	entries := slices.Clone(a.Rules)
	slices.SortStableFunc(entries, func(x, y topology.ACLEntry) int { return cmp.Compare(x.Seq, y.Seq) })
	c := &acl{}
	for _, e := range entries {
		src, sAny, _ := parseAddrOrPrefix(e.Source)
		dst, dAny, _ := parseAddrOrPrefix(e.Destination)
		c.filters4 = c.filters4 || (sAny || familyOf(src.Addr()) == 4) && (dAny || familyOf(dst.Addr()) == 4)
		c.filters6 = c.filters6 || (sAny || familyOf(src.Addr()) == 6) && (dAny || familyOf(dst.Addr()) == 6)
		c.rules = append(c.rules, aclRule{permit: strings.EqualFold(e.Action, "permit"),
			protocol: strings.ToLower(e.Protocol), srcPort: e.SrcPort, dstPort: e.DstPort, src: src, dst: dst})
	}
	return c
}

// aclPermits evaluates a named ACL on a packet: the first matching rule
// decides and a packet matching none is denied. An ACL that does not
// filter the packet's family, and an ACL name that is not defined, permit
// everything (as on routers).
func aclPermits(d *device, name string, p *packet) bool {
	if name == "" {
		return true
	}
	a, ok := d.acls[name]
	if !ok {
		return true
	}
	if fam := familyOf(p.dst); (fam == 4 && !a.filters4) || (fam == 6 && !a.filters6) {
		return true
	}
	for i := range a.rules {
		if a.rules[i].matches(p) {
			return a.rules[i].permit
		}
	}
	return false
}

// matches tells whether the rule matches a packet.
func (r *aclRule) matches(p *packet) bool {
	switch r.protocol {
	case "", "ip", "ipv6":
		if p.proto == protoARP {
			return false // ARP is not IP
		}
	case "icmp", "icmpv6":
		if p.proto != protoICMP {
			return false
		}
	case "tcp", "udp", "ospf", "arp":
		if p.proto != r.protocol {
			return false
		}
	default:
		return false
	}
	if r.dstPort != 0 && (!p.hasPorts() || p.dport != r.dstPort) {
		return false
	}
	if r.srcPort != 0 && (!p.hasPorts() || p.sport != r.srcPort) {
		return false
	}
	return prefixMatches(r.src, p.src) && prefixMatches(r.dst, p.dst)
}

// prefixMatches tells whether a is in pfx; the invalid prefix is "any".
func prefixMatches(pfx netip.Prefix, a netip.Addr) bool {
	return !pfx.IsValid() || pfx.Contains(a)
}

// faultDrops tells whether an "acl-drop" fault on the interface drops the packet.
func faultDrops(it *iface, p *packet) bool {
	for _, pfx := range it.aclDrops {
		if !pfx.IsValid() || pfx.Contains(p.dst) {
			return true
		}
	}
	return false
}
