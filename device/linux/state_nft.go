//go:build linux

package linux

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
)

// memACL is the top-level member of the ACL tree.
const memACL = "openconfig-acl:acl"

// The namespace's nftables rules as openconfig-acl, under the paths the
// simulator uses (docs/datamodel.md): an ACL set per table, interface and
// direction, bound on that interface as an ingress or egress set. A rule
// whose every match is modelled (the interface, IP protocol, addresses,
// TCP/UDP ports, ICMP, ARP) and whose verdict is drop, reject or accept
// becomes an acl-entry; any other rule (numgen, ct state, sets, jumps,
// negations) is left out, as an ACL model cannot say it.

// nftRuleset is the part of `nft -j list ruleset` read here.
type nftRuleset struct {
	Nftables []struct {
		Chain *struct {
			Family string `json:"family"`
			Table  string `json:"table"`
			Name   string `json:"name"`
			Hook   string `json:"hook"`
			Type   string `json:"type"`
			Policy string `json:"policy"`
			Dev    any    `json:"dev"` // netdev chains: a device name or a list of them
		} `json:"chain"`
		Rule *struct {
			Family string            `json:"family"`
			Table  string            `json:"table"`
			Chain  string            `json:"chain"`
			Expr   []json.RawMessage `json:"expr"`
		} `json:"rule"`
	} `json:"nftables"`
}

// nftEntry is one rule in openconfig-acl's terms.
type nftEntry struct {
	ARP      bool
	V6       bool
	Protocol string // openconfig identity (IP_TCP, ...) or a number; "" any
	Src, Dst string
	SrcPort  int
	DstPort  int
	Drop     bool
}

// nftMatch is a rule's interface match and entry, or ok false for a rule
// the ACL model cannot say.
type nftMatch struct {
	iif, oif string
	e        nftEntry
}

// readNFT runs `nft -j list ruleset` in the namespace (argv, no shell).
func (d *Driver) readNFT(ctx context.Context) (*nftRuleset, error) {
	out, err := d.run(ctx, append(d.prefix(), "nft", "-j", "list", "ruleset"))
	if err != nil {
		return nil, err
	}
	var rs nftRuleset
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		return nil, fmt.Errorf("linux: nft -j list ruleset: %w", err)
	}
	return &rs, nil
}

// aclTree renders the ruleset as openconfig-acl; names maps Linux
// interface names to the names the interfaces tree uses, and ifaces lists
// the Linux names a rule without an interface match applies to.
func aclTree(rs *nftRuleset, names map[string]string, ifaces []string) obj {
	type chainKey struct{ family, table, name string }
	type chainInfo struct {
		hook, typ, policy string
		devs              []string
	}
	chains := map[chainKey]chainInfo{}
	for _, it := range rs.Nftables {
		if c := it.Chain; c != nil && c.Hook != "" {
			ci := chainInfo{hook: c.Hook, typ: c.Type, policy: c.Policy}
			switch v := c.Dev.(type) {
			case string:
				ci.devs = []string{v}
			case []any:
				for _, x := range v {
					if s, ok := x.(string); ok {
						ci.devs = append(ci.devs, s)
					}
				}
			}
			chains[chainKey{c.Family, c.Table, c.Name}] = ci
		}
	}
	type setKey struct{ family, table, ifname, dir string }
	var order []setKey
	sets := map[setKey][]nftEntry{}
	policy := map[setKey]string{}
	add := func(k setKey, e nftEntry, pol string) {
		if _, ok := sets[k]; !ok {
			order = append(order, k)
			policy[k] = pol
		}
		if !slices.Contains(sets[k], e) { // the same rule in input and forward
			sets[k] = append(sets[k], e)
		}
	}
	for _, it := range rs.Nftables {
		r := it.Rule
		if r == nil {
			continue
		}
		ci, ok := chains[chainKey{r.Family, r.Table, r.Chain}]
		if !ok || (ci.typ != "" && ci.typ != "filter") {
			continue // a regular chain (reached by jumps) or a nat/route chain
		}
		m, ok := nftRule(r.Family, r.Expr)
		if !ok {
			continue
		}
		var dir string
		var on []string
		switch ci.hook {
		case "input", "prerouting", "ingress":
			dir, on = "ingress", []string{m.iif}
		case "output", "postrouting", "egress":
			dir, on = "egress", []string{m.oif}
		case "forward":
			switch {
			case m.iif != "":
				dir, on = "ingress", []string{m.iif}
			case m.oif != "":
				dir, on = "egress", []string{m.oif}
			default:
				dir, on = "ingress", []string{""}
			}
		default:
			continue
		}
		if dir == "ingress" && m.oif != "" && ci.hook != "forward" || dir == "egress" && m.iif != "" && ci.hook != "forward" {
			continue // matches what the hook never sees
		}
		if on[0] == "" {
			on = ifaces
			if len(ci.devs) > 0 { // a netdev chain is bound to its devices
				on = ci.devs
			}
		}
		if r.Family == "arp" {
			m.e.ARP = true
		}
		for _, ifn := range on {
			add(setKey{r.Family, r.Table, ifn, dir}, m.e, ci.policy)
		}
	}
	if len(order) == 0 {
		return obj{}
	}
	var setList []any
	binds := map[string][]any{}
	var bindOrder []string
	for _, k := range order {
		name := fmt.Sprintf("nft-%s-%s-%s-%s", k.family, k.table, k.ifname, map[string]string{"ingress": "in", "egress": "out"}[k.dir])
		typ := map[string]string{"ip": "ACL_IPV4", "ip6": "ACL_IPV6", "arp": "ACL_L2", "bridge": "ACL_L2"}[k.family]
		if typ == "" {
			typ = "ACL_MIXED"
		}
		// The chain's policy decides what no rule matched: an ACL's last
		// entry (not its implicit deny).
		final := nftEntry{ARP: k.family == "arp", Drop: policy[k] == "drop"}
		var ents []any
		for i, e := range append(sets[k], final) {
			ents = append(ents, e.tree(10*(i+1)))
		}
		setList = append(setList, obj{"name": name, "type": typ, "config": obj{"name": name, "type": typ},
			"acl-entries": obj{"acl-entry": ents}})
		id := names[k.ifname]
		if id == "" {
			id = k.ifname
		}
		if _, ok := binds[id]; !ok {
			bindOrder = append(bindOrder, id)
		}
		binds[id] = append(binds[id], obj{"dir": k.dir, "set": obj{"set-name": name, "type": typ, "config": obj{"set-name": name, "type": typ}}})
	}
	var ifList []any
	for _, id := range bindOrder {
		n := obj{"id": id, "config": obj{"id": id}}
		for _, b := range binds[id] {
			bm := b.(obj)
			dir := bm["dir"].(string)
			key := dir + "-acl-sets"
			sub, _ := n[key].(obj)
			if sub == nil {
				sub = obj{dir + "-acl-set": []any{}}
				n[key] = sub
			}
			sub[dir+"-acl-set"] = append(sub[dir+"-acl-set"].([]any), bm["set"])
		}
		ifList = append(ifList, n)
	}
	return obj{"acl-sets": obj{"acl-set": setList}, "interfaces": obj{"interface": ifList}}
}

// tree renders an entry as an openconfig acl-entry.
func (e nftEntry) tree(seq int) obj {
	action := "ACCEPT"
	if e.Drop {
		action = "DROP"
	}
	ent := obj{"sequence-id": num(seq), "config": obj{"sequence-id": num(seq)},
		"actions": obj{"config": obj{"forwarding-action": action}}}
	if e.ARP {
		ent["l2"] = obj{"config": obj{"ethertype": "openconfig-packet-match-types:ETHERTYPE_ARP"}}
		return ent
	}
	af, anyPfx := "ipv4", "0.0.0.0/0"
	if e.V6 {
		af, anyPfx = "ipv6", "::/0"
	}
	m := obj{"source-address": cmp.Or(e.Src, anyPfx), "destination-address": cmp.Or(e.Dst, anyPfx)}
	if e.Protocol != "" {
		if n, err := strconv.Atoi(e.Protocol); err == nil {
			m["protocol"] = num(n)
		} else {
			m["protocol"] = e.Protocol
		}
	}
	ent[af] = obj{"config": m}
	if e.SrcPort > 0 || e.DstPort > 0 {
		tc := obj{}
		if e.DstPort > 0 {
			tc["destination-port"] = num(e.DstPort)
		}
		if e.SrcPort > 0 {
			tc["source-port"] = num(e.SrcPort)
		}
		ent["transport"] = obj{"config": tc}
	}
	return ent
}

// ipProtocols maps nftables' protocol words to openconfig identities or
// IP protocol numbers.
var ipProtocols = map[string]string{"tcp": "IP_TCP", "udp": "IP_UDP", "icmp": "IP_ICMP", "ospf": "89", "ipv6-icmp": "58", "icmpv6": "58"}

// nftProto normalises a protocol value (a word or a number).
func nftProto(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		if p, ok := ipProtocols[x]; ok {
			return p, true
		}
		return "", false
	case float64:
		switch int(x) {
		case 6:
			return "IP_TCP", true
		case 17:
			return "IP_UDP", true
		case 1:
			return "IP_ICMP", true
		}
		return strconv.Itoa(int(x)), true
	}
	return "", false
}

// nftRule reads one rule's expressions.
func nftRule(family string, exprs []json.RawMessage) (nftMatch, bool) {
	var m nftMatch
	verdict := false
	m.e.V6 = family == "ip6"
	setProto := func(p string) bool {
		if m.e.Protocol != "" && m.e.Protocol != p {
			return false
		}
		m.e.Protocol = p
		return true
	}
	for _, raw := range exprs {
		var x map[string]json.RawMessage
		if err := json.Unmarshal(raw, &x); err != nil || len(x) != 1 {
			return m, false
		}
		for k, v := range x {
			switch k {
			case "counter", "log", "limit":
				// no effect on the verdict's traffic
			case "drop":
				m.e.Drop, verdict = true, true
			case "reject":
				m.e.Drop, verdict = true, true
			case "accept":
				verdict = true
			case "match":
				if !m.match(v, setProto) {
					return m, false
				}
			default:
				return m, false // numgen, ct, jump, goto, return, queue, ...
			}
		}
	}
	return m, verdict
}

// match reads one "match" expression; false for one the ACL model cannot
// say.
func (m *nftMatch) match(raw json.RawMessage, setProto func(string) bool) bool {
	var x struct {
		Op   string `json:"op"`
		Left struct {
			Meta    *struct{ Key string } `json:"meta"`
			Payload *struct {
				Protocol string `json:"protocol"`
				Field    string `json:"field"`
			} `json:"payload"`
		} `json:"left"`
		Right any `json:"right"`
	}
	if err := json.Unmarshal(raw, &x); err != nil || (x.Op != "==" && x.Op != "in") {
		return false
	}
	str, isStr := x.Right.(string)
	switch {
	case x.Left.Meta != nil:
		switch x.Left.Meta.Key {
		case "iifname", "iif":
			m.iif = str
			return isStr
		case "oifname", "oif":
			m.oif = str
			return isStr
		case "l4proto":
			p, ok := nftProto(x.Right)
			if p == "58" {
				m.e.V6 = true
			}
			return ok && setProto(p)
		case "nfproto":
			switch str {
			case "ipv4":
				return !m.e.V6
			case "ipv6":
				m.e.V6 = true
				return true
			}
		case "protocol":
			switch str {
			case "arp":
				m.e.ARP = true
				return true
			case "ip":
				return !m.e.V6
			case "ip6":
				m.e.V6 = true
				return true
			}
		}
		return false
	case x.Left.Payload != nil:
		p := x.Left.Payload
		switch p.Protocol + " " + p.Field {
		case "ether type":
			if str == "arp" {
				m.e.ARP = true
				return true
			}
			return false
		case "ip protocol", "ip6 nexthdr":
			pr, ok := nftProto(x.Right)
			m.e.V6 = m.e.V6 || p.Protocol == "ip6"
			return ok && setProto(pr)
		case "ip saddr", "ip daddr", "ip6 saddr", "ip6 daddr":
			pfx, ok := nftPrefix(x.Right)
			if !ok {
				return false
			}
			m.e.V6 = m.e.V6 || p.Protocol == "ip6"
			if p.Field == "saddr" {
				m.e.Src = pfx
			} else {
				m.e.Dst = pfx
			}
			return true
		case "tcp dport", "tcp sport", "udp dport", "udp sport":
			port, ok := x.Right.(float64)
			if !ok || !setProto(map[string]string{"tcp": "IP_TCP", "udp": "IP_UDP"}[p.Protocol]) {
				return false
			}
			if p.Field == "dport" {
				m.e.DstPort = int(port)
			} else {
				m.e.SrcPort = int(port)
			}
			return true
		case "icmp type":
			// openconfig-acl's entry has no ICMP type: the entry says
			// ICMP (this rule drops echo requests of it).
			return setProto("IP_ICMP")
		case "icmpv6 type":
			m.e.V6 = true
			return setProto("58")
		}
	}
	return false
}

// nftPrefix reads an address or {"prefix": {"addr", "len"}} as a prefix.
func nftPrefix(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		a, err := netip.ParseAddr(x)
		if err != nil {
			return "", false
		}
		return netip.PrefixFrom(a, a.BitLen()).String(), true
	case map[string]any:
		p, _ := x["prefix"].(map[string]any)
		addr, _ := p["addr"].(string)
		bits, _ := p["len"].(float64)
		a, err := netip.ParseAddr(addr)
		if err != nil {
			return "", false
		}
		pf, err := a.Prefix(int(bits))
		if err != nil {
			return "", false
		}
		return pf.String(), true
	}
	return "", false
}

// acl reads the namespace's nftables rules as openconfig-acl.
func (d *Driver) acl(ctx context.Context, nl *nlState, names map[string]string) (obj, error) {
	rs, err := d.readNFT(ctx)
	if err != nil {
		return nil, err
	}
	var ifaces []string
	for _, i := range nl.Ifaces {
		if i.Linux != "lo" {
			ifaces = append(ifaces, i.Linux)
		}
	}
	return aclTree(rs, names, ifaces), nil
}
