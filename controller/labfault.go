package controller

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"

	"github.com/netmcp/netmcp/device/sim/topology"
)

// Fallbacks for named faults on a simulator that does not model them yet.
// The NIKA fault names of topology.Catalog are injected with
// Lab.InjectFault; until the simulator's models implement a name, the
// callers of these functions (netmcp ask --lab --fault) fall back to what
// the simulator has today: an older fault kind with the same effect
// (LegacyFault), or the configuration difference the fault is defined as
// (ConfigFault: its ACL, its MTU), applied to the topology before the lab
// starts.

// LegacyFault returns the older fault kind that has the named fault's
// effect, when there is one.
func LegacyFault(f topology.Fault) (topology.Fault, bool) {
	switch f.Name {
	case "link_down":
		return topology.Fault{Kind: topology.FaultLinkDown, Link: f.Target}, true
	case "link_high_packet_corruption":
		p, err := strconv.ParseFloat(f.Param("percent"), 64)
		if err != nil || p <= 0 || p > 100 {
			return topology.Fault{}, false
		}
		return topology.Fault{Kind: topology.FaultLoss, Link: f.Target, Percent: p}, true
	case "link_high_latency":
		d, err := strconv.ParseFloat(f.Param("delay-ms"), 64)
		if err != nil || d <= 0 {
			return topology.Fault{}, false
		}
		return topology.Fault{Kind: topology.FaultDelay, Link: f.Target, DelayMS: d}, true
	}
	return topology.Fault{}, false
}

// ConfigFault applies a named fault that is a configuration difference
// (an ACL on an interface, an interface MTU) to the topology, as the
// fault catalog defines it. It reports false for the other names.
func ConfigFault(topo *topology.Topology, f topology.Fault) (bool, error) {
	var rules []topology.ACLEntry
	switch f.Name {
	case "mtu_mismatch", "link_fragmentation_disabled":
		mtu, err := strconv.Atoi(f.Param("mtu"))
		if err != nil {
			return false, fmt.Errorf("fault %s: mtu %q: %w", f.Name, f.Param("mtu"), err)
		}
		it, err := faultIface(topo, f)
		if err != nil {
			return false, err
		}
		it.MTU = mtu
		return true, nil
	case "icmp_acl_block":
		rules = []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "icmp"}}
	case "bgp_acl_block":
		rules = []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: 179}, {Seq: 20, Action: "deny", Protocol: "tcp", SrcPort: 179}}
	case "ospf_acl_block":
		rules = []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "ospf"}}
	case "http_acl_block":
		port, err := strconv.Atoi(f.Param("port"))
		if err != nil {
			return false, fmt.Errorf("fault %s: port %q: %w", f.Name, f.Param("port"), err)
		}
		rules = []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: port}}
	case "arp_acl_block":
		rules = []topology.ACLEntry{{Seq: 10, Action: "deny", Protocol: "arp"}}
	case "host_incorrect_ip", "host_missing_ip", "host_incorrect_gateway":
		return hostFault(topo, f)
	default:
		return false, nil
	}
	it, err := faultIface(topo, f)
	if err != nil {
		return false, err
	}
	dev, _, _ := topology.SplitEnd(f.Target)
	d := &topo.Devices[slices.IndexFunc(topo.Devices, func(d topology.Device) bool { return d.Name == dev })]
	name := "NIKA-" + f.Name
	rules = append(rules, topology.ACLEntry{Seq: 100, Action: "permit", Protocol: "ip"})
	d.ACLs = append(slices.Clone(d.ACLs), topology.ACL{Name: name, Rules: rules})
	if f.Param("direction") == "out" {
		it.EgressACL = name
	} else {
		it.IngressACL = name
	}
	return true, nil
}

// faultIface returns the topology interface a fault targets.
func faultIface(topo *topology.Topology, f topology.Fault) (*topology.Interface, error) {
	dev, ifn, ok := topology.SplitEnd(f.Target)
	if !ok {
		return nil, fmt.Errorf("fault %s: target %q: want device:interface", f.Name, f.Target)
	}
	topo.Devices = slices.Clone(topo.Devices)
	for i := range topo.Devices {
		d := &topo.Devices[i]
		if d.Name != dev {
			continue
		}
		d.Interfaces = slices.Clone(d.Interfaces)
		for j := range d.Interfaces {
			if d.Interfaces[j].Name == ifn {
				return &d.Interfaces[j], nil
			}
		}
		return nil, fmt.Errorf("fault %s: %s has no interface %s", f.Name, dev, ifn)
	}
	return nil, fmt.Errorf("fault %s: no device %s", f.Name, dev)
}

// HostsOf returns the hosts of a topology with their addresses.
func HostsOf(topo topology.Topology) []Host {
	var out []Host
	for _, d := range topo.Devices {
		if d.Kind != topology.KindHost {
			continue
		}
		h := Host{Name: d.Name}
		for _, it := range d.Interfaces {
			for _, a := range it.Addresses {
				if p, err := parsePrefix(a); err == nil {
					h.Addrs = append(h.Addrs, p.Addr())
				}
			}
		}
		out = append(out, h)
	}
	return out
}

// FaultDevices returns the devices a fault's target concerns, the
// ground truth of NIKA's localization: both ends of a link for a link
// fault, the device otherwise.
func FaultDevices(topo topology.Topology, f topology.Fault) []string {
	target := f.Target
	if f.Name == "" {
		target = f.Link
		if target == "" {
			target = f.Interface
		}
	}
	dev, _, isEnd := topology.SplitEnd(target)
	if !isEnd {
		return []string{target}
	}
	spec, _ := topology.LookupFault(f.Name)
	linkFault := f.Name == "" && f.Link != "" || len(spec.Targets) > 0 && spec.Targets[0] == topology.TargetLink
	if !linkFault {
		return []string{dev}
	}
	out := []string{dev}
	for _, l := range topo.Links {
		switch target {
		case l.A:
			d, _, _ := topology.SplitEnd(l.B)
			out = append(out, d)
		case l.B:
			d, _, _ := topology.SplitEnd(l.A)
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hostFault applies a host addressing fault to the topology: a wrong
// address (default: the same host number in 192.0.2.0/24, outside its
// LAN), no address, or a wrong gateway (default: the LAN's .254).
func hostFault(topo *topology.Topology, f topology.Fault) (bool, error) {
	topo.Devices = slices.Clone(topo.Devices)
	i := slices.IndexFunc(topo.Devices, func(d topology.Device) bool { return d.Name == f.Target })
	if i < 0 || topo.Devices[i].Kind != topology.KindHost {
		return false, fmt.Errorf("fault %s: no host %s", f.Name, f.Target)
	}
	d := &topo.Devices[i]
	d.Interfaces = slices.Clone(d.Interfaces)
	j := 0
	if name := f.Params["interface"]; name != "" {
		j = slices.IndexFunc(d.Interfaces, func(it topology.Interface) bool { return it.Name == name })
		if j < 0 {
			return false, fmt.Errorf("fault %s: %s has no interface %s", f.Name, d.Name, name)
		}
	}
	if len(d.Interfaces) == 0 || len(d.Interfaces[j].Addresses) == 0 {
		return false, fmt.Errorf("fault %s: %s has no addressed interface", f.Name, d.Name)
	}
	it := &d.Interfaces[j]
	p, err := netip.ParsePrefix(it.Addresses[0])
	if err != nil || !p.Addr().Is4() {
		return false, fmt.Errorf("fault %s: %s's first address %q is not IPv4", f.Name, d.Name, it.Addresses[0])
	}
	switch f.Name {
	case "host_incorrect_ip":
		addr := f.Params["address"]
		if addr == "" {
			b := p.Addr().As4()
			addr = netip.PrefixFrom(netip.AddrFrom4([4]byte{192, 0, 2, b[3]}), 24).String()
		}
		it.Addresses = append([]string{addr}, it.Addresses[1:]...)
	case "host_missing_ip":
		var keep []string
		for _, a := range it.Addresses {
			if q, err := netip.ParsePrefix(a); err == nil && q.Addr().Is6() {
				keep = append(keep, a)
			}
		}
		it.Addresses = keep
	case "host_incorrect_gateway":
		gw := f.Params["gateway"]
		if gw == "" {
			b := p.Masked().Addr().As4()
			b[3] = 254
			gw = netip.AddrFrom4(b).String()
		}
		d.Gateway = gw
	}
	return true, nil
}
