package netsim

import (
	"net/netip"
	"sort"
	"strings"

	"github.com/netmcp/netmcp/device/sim/topology"
)

// aclPermits evaluates a named ACL on a packet: the first matching rule
// decides and a packet matching none is denied. An ACL whose rules all
// name prefixes of the other address family does not filter this family,
// and an ACL name that is not defined permits everything (as on routers).
func aclPermits(d *device, name string, p *packet) bool {
	if name == "" {
		return true
	}
	acl, ok := d.acls[name]
	if !ok {
		return true
	}
	fam := familyOf(p.dst)
	rules := append([]topology.ACLEntry(nil), acl.Rules...)
	sort.SliceStable(rules, func(a, b int) bool { return rules[a].Seq < rules[b].Seq })
	applies := false
	for _, e := range rules {
		sp, sAny, _ := parseAddrOrPrefix(e.Source)
		dp, dAny, _ := parseAddrOrPrefix(e.Destination)
		if (sAny || familyOf(sp.Addr()) == fam) && (dAny || familyOf(dp.Addr()) == fam) {
			applies = true
			break
		}
	}
	if !applies {
		return true
	}
	for _, e := range rules {
		if ruleMatches(e, p) {
			return strings.EqualFold(e.Action, "permit")
		}
	}
	return false
}

// ruleMatches tells whether one ACL rule matches a packet.
func ruleMatches(e topology.ACLEntry, p *packet) bool {
	switch strings.ToLower(e.Protocol) {
	case "", "ip", "ipv6":
	case "icmp", "icmpv6":
		if p.proto != protoICMP {
			return false
		}
	case "tcp", "udp":
		if p.proto != strings.ToLower(e.Protocol) {
			return false
		}
	default:
		return false
	}
	if e.DstPort != 0 && (p.proto == protoICMP || p.dport != e.DstPort) {
		return false
	}
	return prefixMatches(e.Source, p.src) && prefixMatches(e.Destination, p.dst)
}

func prefixMatches(spec string, a netip.Addr) bool {
	pfx, any, err := parseAddrOrPrefix(spec)
	if err != nil {
		return false
	}
	return any || pfx.Contains(a)
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
