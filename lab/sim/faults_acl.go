package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// The ACL faults in the simulator: each is a real ACL in the device's
// configuration, its deny rules followed by a "permit ip" rule, bound
// inbound or outbound on the target interface.

// registerACLFaults binds the ACL faults.
func registerACLFaults(b *fault.Backend[*faultOp]) {
	b.Register("icmp_acl_block", configFault(aclChange("NIKA-ICMP-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "icmp"}}
	})))
	b.Register("bgp_acl_block", configFault(aclChange("NIKA-BGP-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "tcp", DstPort: 179}, {Action: "deny", Protocol: "tcp", SrcPort: 179}}
	})))
	b.Register("ospf_acl_block", configFault(aclChange("NIKA-OSPF-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "ospf"}}
	})))
	b.Register("http_acl_block", configFault(aclChange("NIKA-HTTP-BLOCK", func(f topology.Fault) []topology.ACLEntry {
		port, _ := strconv.Atoi(f.Param("port"))
		return []topology.ACLEntry{{Action: "deny", Protocol: "tcp", DstPort: port}}
	})))
	b.Register("arp_acl_block", configFault(aclChange("NIKA-ARP-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "arp"}}
	})))
}

// aclChange makes an ACL fault: an ACL called name with rules' deny rules
// and a "permit ip", bound on the target interface in the fault's
// direction; on a device target (dns_port_blocked), on each of its
// addressed interfaces but loopbacks.
func aclChange(name string, rules func(f topology.Fault) []topology.ACLEntry) configChange {
	return func(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
		_, ifn := faultTarget(f)
		var ifs []string
		if ifn != "" {
			ifs = []string{ifn}
		} else { // dns_port_blocked on a device: its own addressed interfaces
			if d.DNS == nil {
				return d, "", fmt.Errorf("%s: %s runs no DNS service (target an interface instead)", where, d.Name)
			}
			for _, it := range d.Interfaces {
				if len(it.Addresses) > 0 && !strings.EqualFold(it.Type, "softwareLoopback") {
					ifs = append(ifs, it.Name)
				}
			}
		}
		rs := rules(f)
		rs = append(rs, topology.ACLEntry{Action: "permit", Protocol: "ip"})
		for i := range rs {
			rs[i].Seq = 10 * (i + 1)
		}
		if slices.ContainsFunc(d.ACLs, func(a topology.ACL) bool { return a.Name == name }) {
			return d, "", fmt.Errorf("%s: %s already has an ACL %s", where, d.Name, name)
		}
		d.ACLs = append(d.ACLs, topology.ACL{Name: name, Rules: rs})
		var notes []string
		for _, n := range ifs {
			it, err := ifaceOf(&d, n, where)
			if err != nil {
				return d, "", err
			}
			bind := &it.IngressACL
			dir := "inbound"
			if f.Param("direction") == "out" {
				bind, dir = &it.EgressACL, "outbound"
			}
			if *bind != "" {
				notes = append(notes, fmt.Sprintf("replaces ACL %s %s on %s", *bind, dir, n))
			}
			*bind = name
			notes = append(notes, fmt.Sprintf("ACL %s %s on %s", name, dir, n))
		}
		return d, strings.Join(notes, "; "), nil
	}
}
