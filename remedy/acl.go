package remedy

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/yang"
)

// ACLSet is one ACL of a device.
type ACLSet struct {
	Name, Type string
	Entries    []ACLEntry
}

// ACLEntry is one rule of an ACL, in the terms of openconfig-acl.
type ACLEntry struct {
	Seq      int
	Drop     bool
	Protocol string // "" (any IP), ICMP, TCP, UDP, OSPF (89), ARP or a number
	Src, Dst netip.Prefix
	SrcPort  int
	DstPort  int
}

// ACLBinding applies an ACL to an interface in a direction.
type ACLBinding struct {
	Iface, Set, Type string
	Ingress          bool
}

// Dir is "in" or "out".
func (b ACLBinding) Dir() string {
	if b.Ingress {
		return "in"
	}
	return "out"
}

// String describes an entry as an operator reads it.
func (e ACLEntry) String() string {
	act := "permit"
	if e.Drop {
		act = "deny"
	}
	proto := strings.ToLower(e.Protocol)
	if proto == "" {
		proto = "ip"
	}
	s := fmt.Sprintf("%d %s %s %s %s", e.Seq, act, proto, prefixWord(e.Src), prefixWord(e.Dst))
	if e.SrcPort > 0 {
		s += fmt.Sprintf(" src-port %d", e.SrcPort)
	}
	if e.DstPort > 0 {
		s += fmt.Sprintf(" dst-port %d", e.DstPort)
	}
	return s
}

func prefixWord(p netip.Prefix) string {
	if !p.IsValid() || p.Bits() == 0 {
		return "any"
	}
	return p.String()
}

// aclProtocol normalises an openconfig protocol value.
func aclProtocol(v any) string {
	s := strings.ToUpper(yang.Identity(v))
	switch s {
	case "IP_ICMP", "1":
		return "ICMP"
	case "IP_TCP", "6":
		return "TCP"
	case "IP_UDP", "17":
		return "UDP"
	case "89", "IP_OSPF", "OSPF":
		return "OSPF"
	}
	return s
}

// ParseACL reads ACL sets and interface bindings from data, the "data" of
// a get of PathACL.
func ParseACL(data any) (map[string]*ACLSet, []ACLBinding) {
	sets := map[string]*ACLSet{}
	for _, s := range yang.List(yang.Member(data, "acl-sets", "acl-set")) {
		m := yang.Object(s)
		set := &ACLSet{Name: yang.Text(m["name"]), Type: yang.Identity(m["type"])}
		for _, e := range yang.List(yang.Member(m, "acl-entries", "acl-entry")) {
			em := yang.Object(e)
			seq, _ := yang.Int(em["sequence-id"])
			ent := ACLEntry{Seq: int(seq), Drop: yang.Identity(yang.Member(em, "actions", "config", "forwarding-action")) != "ACCEPT"}
			for _, fam := range []string{"ipv4", "ipv6"} {
				c := yang.Object(yang.Member(em, fam, "config"))
				if c == nil {
					continue
				}
				ent.Protocol = aclProtocol(c["protocol"])
				ent.Src, _ = netip.ParsePrefix(yang.Text(c["source-address"]))
				ent.Dst, _ = netip.ParsePrefix(yang.Text(c["destination-address"]))
			}
			if t := yang.Object(yang.Member(em, "transport", "config")); t != nil {
				srcPort, _ := yang.Int(t["source-port"])
				dstPort, _ := yang.Int(t["destination-port"])
				ent.SrcPort, ent.DstPort = int(srcPort), int(dstPort)
			}
			if yang.Member(em, "l2") != nil && strings.Contains(strings.ToUpper(yang.Text(yang.Member(em, "l2", "config", "ethertype"))), "ARP") {
				ent.Protocol = "ARP"
			}
			set.Entries = append(set.Entries, ent)
		}
		sets[set.Name] = set
	}
	var binds []ACLBinding
	for _, i := range yang.List(yang.Member(data, "interfaces", "interface")) {
		id := yang.Text(yang.Object(i)["id"])
		for _, dir := range []string{"ingress", "egress"} {
			for _, b := range yang.List(yang.Member(i, dir+"-acl-sets", dir+"-acl-set")) {
				binds = append(binds, ACLBinding{Iface: id, Set: yang.Text(yang.Leaf(yang.Object(b), "set-name")), Type: yang.Identity(yang.Leaf(yang.Object(b), "type")), Ingress: dir == "ingress"})
			}
		}
	}
	return sets, binds
}

// Traffic is a class of packets an ACL is checked against.
type Traffic struct {
	// Protocol is ICMP, TCP, UDP, OSPF or ARP.
	Protocol string
	// Port is the TCP/UDP port (either end) for TCP and UDP.
	Port int
	// Src and Dst are the addresses, when known (invalid = any).
	Src, Dst netip.Addr
}

// Drops returns the first entry of the set that decides traffic, when it
// drops it (ACLs are first-match; no entry matching means the implicit
// deny, reported with Seq 0).
func (s *ACLSet) Drops(t Traffic) (ACLEntry, bool) {
	for _, e := range s.Entries {
		if !e.matches(t) {
			continue
		}
		return e, e.Drop
	}
	return ACLEntry{Drop: true}, len(s.Entries) > 0
}

func (e ACLEntry) matches(t Traffic) bool {
	switch e.Protocol {
	case "", "IP":
		if t.Protocol == "ARP" {
			return false
		}
	case t.Protocol:
	default:
		return false
	}
	if e.Src.IsValid() && e.Src.Bits() > 0 && t.Src.IsValid() && !e.Src.Contains(t.Src) {
		return false
	}
	if e.Dst.IsValid() && e.Dst.Bits() > 0 && t.Dst.IsValid() && !e.Dst.Contains(t.Dst) {
		return false
	}
	if e.DstPort > 0 || e.SrcPort > 0 {
		if t.Protocol != "TCP" && t.Protocol != "UDP" {
			return false
		}
		// A session uses the well-known port at either end.
		if t.Port != e.DstPort && t.Port != e.SrcPort {
			return false
		}
	}
	return true
}

// ACLFinding is an ACL bound on an interface of Device that drops some
// traffic by Entry (Seq 0: its implicit deny).
type ACLFinding struct {
	Device  string
	Binding ACLBinding
	Entry   ACLEntry
	// Also are the set's later entries that drop the same traffic (they
	// would decide it once Entry is removed).
	Also []ACLEntry
}

// WithAlso fills Also from the set.
func (f ACLFinding) WithAlso(set *ACLSet, t Traffic) ACLFinding {
	if set == nil || f.Entry.Seq == 0 {
		return f
	}
	past := false
	for _, e := range set.Entries {
		if e.Seq == f.Entry.Seq {
			past = true
			continue
		}
		if !past || !e.matches(t) {
			continue
		}
		if !e.Drop {
			break
		}
		f.Also = append(f.Also, e)
	}
	return f
}

// DroppingACLs returns the ACLs bound on iface of device that drop t,
// given the device's ACL sets by name and their bindings.
func DroppingACLs(device string, sets map[string]*ACLSet, binds []ACLBinding, iface string, t Traffic) []ACLFinding {
	var out []ACLFinding
	for _, b := range binds {
		if b.Iface != iface {
			continue
		}
		set := sets[b.Set]
		if set == nil {
			continue
		}
		if e, drop := set.Drops(t); drop {
			out = append(out, ACLFinding{Device: device, Binding: b, Entry: e}.WithAlso(set, t))
		}
	}
	return out
}

// ACLCauseName is the NIKA name of an ACL that drops traffic of t.
func ACLCauseName(t Traffic) string {
	switch {
	case t.Protocol == "ICMP":
		return "icmp_acl_block"
	case t.Protocol == "OSPF":
		return "ospf_acl_block"
	case t.Protocol == "ARP":
		return "arp_acl_block"
	case t.Port == 179:
		return "bgp_acl_block"
	case t.Port == 53:
		return "dns_port_blocked"
	case t.Port == 80 || t.Port == 8080 || t.Port == 443:
		return "http_acl_block"
	}
	return "acl_block"
}
