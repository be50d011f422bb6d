package netsim

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"time"

	"github.com/netmcp/netmcp/device/sim/topology"
)

// New builds a Network from a topology after validating it: unique device
// and interface names, parseable addresses and prefixes, links naming
// existing interfaces ("device:interface") and faults naming existing
// links and interfaces.
func New(t topology.Topology, opts Options) (*Network, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	t = cloneTopology(t)
	if err := validate(&t); err != nil {
		return nil, err
	}
	n := &Network{opts: opts, topo: t, counters: map[string]*Counters{}, lossSeq: map[string]uint64{}}
	n.state = build(&n.topo)
	return n, nil
}

// cloneTopology deep-copies a topology (every field is plain data).
func cloneTopology(t topology.Topology) topology.Topology {
	b, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("netsim: copying topology: %v", err))
	}
	var c topology.Topology
	if err := json.Unmarshal(b, &c); err != nil {
		panic(fmt.Sprintf("netsim: copying topology: %v", err))
	}
	return c
}

// Topology returns a deep copy of the current topology, faults included.
func (n *Network) Topology() topology.Topology {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return cloneTopology(n.topo)
}

// UpdateDevice replaces one device's configuration (after a commit) and
// recomputes all derived state. The device must exist, keep its name, and
// keep every interface that a link or a fault names; it is validated as
// New validates.
func (n *Network) UpdateDevice(d topology.Device) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	t := n.topo
	t.Devices = append([]topology.Device(nil), n.topo.Devices...)
	found := false
	for i := range t.Devices {
		if t.Devices[i].Name == d.Name {
			t.Devices[i] = d
			found = true
		}
	}
	if !found {
		return fmt.Errorf("netsim: no device %q", d.Name)
	}
	t = cloneTopology(t) // one deep copy, of the network and of d
	if err := validate(&t); err != nil {
		return err
	}
	n.topo = t
	n.state = build(&n.topo)
	return nil
}

// SetFaults replaces the injected faults and recomputes all derived state.
func (n *Network) SetFaults(f []topology.Fault) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	t := cloneTopology(n.topo)
	t.Faults = append([]topology.Fault(nil), f...)
	if err := validate(&t); err != nil {
		return err
	}
	n.topo = t
	n.state = build(&n.topo)
	return nil
}

// Faults returns a copy of the injected faults.
func (n *Network) Faults() []topology.Fault {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return append([]topology.Fault(nil), n.topo.Faults...)
}

// iface finds a compiled interface.
func (s *state) iface(dev, ifname string) (*device, *iface, error) {
	d, ok := s.devs[dev]
	if !ok {
		return nil, nil, fmt.Errorf("netsim: no device %q", dev)
	}
	if ifname == "" {
		return d, nil, nil
	}
	it, ok := d.ifs[ifname]
	if !ok {
		return nil, nil, fmt.Errorf("netsim: device %q has no interface %q", dev, ifname)
	}
	return d, it, nil
}

// InterfaceState returns the derived state of an interface: admin and
// operational state with the reason it is down, effective MTU, MAC and
// counters.
func (n *Network) InterfaceState(dev, ifname string) (IfState, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if ifname == "" {
		return IfState{}, fmt.Errorf("netsim: device %q: empty interface name", dev)
	}
	_, it, err := n.state.iface(dev, ifname)
	if err != nil {
		return IfState{}, err
	}
	st := IfState{AdminUp: it.adminUp, OperUp: it.operUp, OperReason: it.reason, MTU: it.mtu, MAC: it.mac}
	if c := n.counters[it.key()]; c != nil {
		st.Counters = *c
	}
	return st, nil
}

// Routes returns the routing table of a device's VRF ("" = global) for
// family 4 or 6: every candidate route, the best per prefix marked Active,
// sorted by prefix then preference.
func (n *Network) Routes(dev, vrf string, family int) ([]Route, error) {
	if family != 4 && family != 6 {
		return nil, fmt.Errorf("netsim: address family %d (want 4 or 6)", family)
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return nil, err
	}
	if !hasVRF(d, vrf) {
		return nil, fmt.Errorf("netsim: device %q has no VRF %q", dev, vrf)
	}
	var out []Route
	for _, r := range d.ribs[ribKey{vrf, family}] {
		out = append(out, r.Route)
	}
	return out, nil
}

func hasVRF(d *device, vrf string) bool {
	if vrf == "" {
		return true
	}
	for _, v := range d.cfg.VRFs {
		if v.Name == vrf {
			return true
		}
	}
	return false
}

// Neighbors returns the ARP/ND table of a device: the addresses of the
// directly connected devices (through links and switches) that are up and
// on a subnet of an up interface, then the topology's static entries.
func (n *Network) Neighbors(dev string) ([]Neighbor, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return nil, err
	}
	var out []Neighbor
	for _, it := range d.ifList {
		if !it.operUp || !it.l3() {
			continue
		}
		for _, r := range it.reach {
			if !r.to.adminUp {
				continue
			}
			for _, pa := range r.to.addrs {
				if _, ok := it.addrIn(pa.Addr()); ok && !it.has(pa.Addr()) {
					out = append(out, Neighbor{IP: pa.Addr(), MAC: r.to.mac, Interface: it.name, VRF: it.vrf, Dynamic: true})
				}
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].IP.Less(out[b].IP) })
	for _, nb := range d.cfg.Neighbors {
		ip, _ := netip.ParseAddr(nb.IP)
		out = append(out, Neighbor{IP: ip, MAC: nb.MAC, Interface: nb.Interface, VRF: d.ifs[nb.Interface].vrf})
	}
	return out, nil
}
