package netsim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
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
	n.edge.start(opts.Now())
	n.rebuild()
	return n, nil
}

// The Network's topology is copy-on-write: n.topo and everything it holds
// is never modified in place, so a change builds a new Devices (or Faults)
// slice sharing every unchanged device with the old one, and only what
// comes from a caller is deep-copied.

// cloneTopology deep-copies a topology (every field is plain data).
func cloneTopology(t topology.Topology) topology.Topology {
	var c topology.Topology
	cloneJSON(t, &c)
	return c
}

// cloneDevice deep-copies one device.
func cloneDevice(d topology.Device) topology.Device {
	var c topology.Device
	cloneJSON(d, &c)
	return c
}

// cloneFaults deep-copies faults (their Params maps included).
func cloneFaults(f []topology.Fault) []topology.Fault {
	if len(f) == 0 {
		return nil
	}
	var c []topology.Fault
	cloneJSON(f, &c)
	return c
}

// cloneJSON copies plain data through JSON, which follows every field the
// topology types grow without a hand-written copy to keep up to date.
func cloneJSON(from, to any) {
	b, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(b, to)
	}
	if err != nil {
		panic(fmt.Sprintf("netsim: copying topology data: %v", err))
	}
}

// Topology returns a deep copy of the current topology, faults included.
// It copies the whole network: the lookups below (Device, Links, ...)
// are cheaper for a single question.
func (n *Network) Topology() topology.Topology {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return cloneTopology(n.topo)
}

// Device returns a deep copy of one device's configuration.
func (n *Network) Device(name string) (topology.Device, bool) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, ok := n.state.devs[name]
	if !ok {
		return topology.Device{}, false
	}
	return cloneDevice(*d.cfg), true
}

// DeviceNames returns the names of the devices, in topology order.
func (n *Network) DeviceNames() []string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	out := make([]string, len(n.state.order))
	for i, d := range n.state.order {
		out[i] = d.name
	}
	return out
}

// DevicesOfKind returns deep copies of the devices of one kind (router,
// switch or host), in topology order.
func (n *Network) DevicesOfKind(kind string) []topology.Device {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []topology.Device
	for _, d := range n.state.order {
		if d.kind == kind {
			out = append(out, cloneDevice(*d.cfg))
		}
	}
	return out
}

// Links returns a copy of the links (plain values).
func (n *Network) Links() []topology.Link {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return append([]topology.Link(nil), n.topo.Links...)
}

// InterfaceStatus is the administrative and operational state of one
// interface, as InterfaceStates lists it.
type InterfaceStatus struct {
	Device, Interface string
	AdminUp, OperUp   bool
}

// InterfaceStates returns the state of every interface of every device, in
// topology order: one pass under one lock, for watching what a change did.
func (n *Network) InterfaceStates() []InterfaceStatus {
	n.mu.RLock()
	defer n.mu.RUnlock()
	var out []InterfaceStatus
	for _, d := range n.state.order {
		for _, it := range d.ifList {
			out = append(out, InterfaceStatus{Device: d.name, Interface: it.name, AdminUp: it.adminUp, OperUp: it.operUp})
		}
	}
	return out
}

// UpdateDevice replaces one device's configuration (after a commit) and
// recomputes the derived state. The device must exist, keep its name, and
// keep every interface that a link or a fault names; it is validated as
// New validates. Only d is copied: the rest of the topology is shared with
// the previous state.
func (n *Network) UpdateDevice(d topology.Device) error {
	return n.UpdateDevices([]topology.Device{d})
}

// UpdateDevices replaces the configuration of several devices at once with
// one recomputation of the derived state (a lab loading saved
// configurations); see UpdateDevice. Nothing changes unless every device
// is accepted.
func (n *Network) UpdateDevices(ds []topology.Device) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	pos := make(map[string]int, len(n.topo.Devices))
	for i := range n.topo.Devices {
		pos[n.topo.Devices[i].Name] = i
	}
	t := n.topo
	t.Devices = append([]topology.Device(nil), n.topo.Devices...)
	changed := map[string]bool{}
	for _, d := range ds {
		i, ok := pos[d.Name]
		if !ok {
			return fmt.Errorf("netsim: no device %q", d.Name)
		}
		t.Devices[i] = cloneDevice(d)
		if err := validateDevice(&t.Devices[i]); err != nil {
			return err
		}
		changed[d.Name] = true
	}
	if err := validateRefs(&t, changed); err != nil {
		return err
	}
	n.topo = t
	n.rebuild()
	return nil
}

// SetFaults replaces the injected faults and recomputes the derived state.
func (n *Network) SetFaults(f []topology.Fault) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	t := n.topo
	t.Faults = cloneFaults(f)
	if err := validateFaults(&t, interfaceSets(&t), linkEnds(&t)); err != nil {
		return err
	}
	if err := validateNamedFaults(&t); err != nil {
		return err
	}
	n.topo = t
	n.rebuild()
	return nil
}

// Faults returns a copy of the injected faults.
func (n *Network) Faults() []topology.Fault {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return cloneFaults(n.topo.Faults)
}

// rebuild recomputes the derived state from n.topo (under the write lock).
func (n *Network) rebuild() {
	n.state = build(&n.topo, n.state, n.opts.Now(), cmp.Or(n.opts.MaxTableRoutes, DefaultMaxTableRoutes))
	n.rebuilds++
	n.edge.changed(n.opts.Now())
}

// Rebuilds tells how many times the derived state (interface states, L2
// reachability, the IGP's graph) has been computed: once by New and once
// per accepted change. Tests and benchmarks use it to check that a change
// costs one rebuild, whatever the number of devices it touches.
func (n *Network) Rebuilds() uint64 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.rebuilds
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
	st.Counters = n.liveCounters(it)
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
	for _, r := range n.state.rib(d, ribKey{vrf, family}) {
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
		for i := range it.reach {
			r := &it.reach[i]
			if !r.to.adminUp {
				continue
			}
			for _, pa := range r.to.addrs {
				if _, ok := it.addrIn(pa.Addr()); !ok || it.has(pa.Addr()) {
					continue
				}
				// One entry per address: the answer kept (see hosts.go).
				if owner, _ := resolveNeighbor(it, pa.Addr()); owner == r {
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
