package twin

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/netmcp/netmcp/device/sim/netsim"
	"github.com/netmcp/netmcp/device/sim/topology"
)

// Faults the twin check applies to both labs: the real lab's RealFaults
// that the simulator models today, each by the means of ApplySimFault.
var Faults = []string{"bgp_acl_block", "frr_service_down", "icmp_acl_block", "link_down", "mtu_mismatch"}

// SimWithFault returns the simulated network of topo with a named fault
// applied to it once converged (ApplySimFault).
func SimWithFault(topo topology.Topology, f topology.Fault) (*netsim.Network, error) {
	n, err := newSim(topo)
	if err != nil {
		return nil, err
	}
	return n, ApplySimFault(n, f)
}

// ApplySimFault applies a named fault to a simulated network in the form
// the simulator's model takes today: link_down as the model's link-down
// fault, frr_service_down by name, mtu_mismatch as the interface's
// configured MTU (the real lab changes the MTU and restarts OSPF, since an
// MTU change alone leaves an adjacency up, in FRR as in the model; a
// configuration change is such a restart in the model), and the two ACL
// faults as what they are on a router, an ACL in the device's
// configuration bound to the interface ("in" or "out"). When the
// simulator's Lab.InjectFault takes every named fault, this becomes a
// call to it.
func ApplySimFault(n *netsim.Network, f topology.Fault) error {
	if err := f.CheckSpec(); err != nil {
		return err
	}
	switch f.Name {
	case "link_down":
		return n.SetFaults(append(n.Faults(), topology.Fault{Kind: topology.FaultLinkDown, Link: f.Target}))
	case "frr_service_down":
		return n.SetFaults(append(n.Faults(), f))
	case "mtu_mismatch":
		mtu, err := strconv.Atoi(f.Param("mtu"))
		if err != nil || mtu < 68 {
			return fmt.Errorf("mtu_mismatch: mtu %q: want a number from 68", f.Param("mtu"))
		}
		return editDevice(n, f, func(_ *topology.Device, i *topology.Interface) { i.MTU = mtu })
	case "bgp_acl_block", "icmp_acl_block":
		name := "NETMCP-" + f.Name
		return editDevice(n, f, func(dev *topology.Device, i *topology.Interface) {
			dev.ACLs = append(slices.DeleteFunc(slices.Clone(dev.ACLs), func(a topology.ACL) bool { return a.Name == name }),
				topology.ACL{Name: name, Rules: aclRules(f.Name)})
			if f.Param("direction") == "out" {
				i.EgressACL = name
			} else {
				i.IngressACL = name
			}
		})
	}
	return fmt.Errorf("fault %s: the twin check applies %v", f.Name, Faults)
}

// aclRules are the rules of an ACL fault: what the real lab's nftables
// rules drop, then everything else permitted.
func aclRules(name string) []topology.ACLEntry {
	permit := topology.ACLEntry{Seq: 100, Action: "permit", Protocol: "ip"}
	switch name {
	case "bgp_acl_block":
		return []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: 179},
			{Seq: 20, Action: "deny", Protocol: "tcp", SrcPort: 179}, permit}
	default: // icmp_acl_block
		return []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "icmp"}, permit}
	}
}

// editDevice changes the configuration of the device of the fault's
// target interface, and of that interface.
func editDevice(n *netsim.Network, f topology.Fault, edit func(*topology.Device, *topology.Interface)) error {
	dn, in, ok := topology.SplitEnd(f.Target)
	if !ok {
		return fmt.Errorf("%s: target %q is not device:interface", f.Name, f.Target)
	}
	dev, ok := n.Device(dn)
	if !ok {
		return fmt.Errorf("%s: no device %s", f.Name, dn)
	}
	k := slices.IndexFunc(dev.Interfaces, func(i topology.Interface) bool { return i.Name == in })
	if k < 0 {
		return fmt.Errorf("%s: %s has no interface %s", f.Name, dn, in)
	}
	dev.Interfaces = slices.Clone(dev.Interfaces)
	edit(&dev, &dev.Interfaces[k])
	return n.UpdateDevice(dev)
}
