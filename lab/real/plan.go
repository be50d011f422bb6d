//go:build linux

package real

import (
	"fmt"
	"net"
	"net/netip"
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
)

// Kinds of planned Linux interfaces.
const (
	ifLoopback  = "loopback"  // the namespace's lo
	ifVeth      = "veth"      // one end of a link
	ifBridge    = "bridge"    // a VLAN interface (SVI)
	ifUnplugged = "unplugged" // a veth whose peer stays down: no cable
)

// planIface is one interface of a device as it is built.
type planIface struct {
	Topo   string // the topology's name (the Linux alias)
	Linux  string // the Linux name
	Kind   string
	Addrs  []netip.Prefix
	MTU    int
	MAC    net.HardwareAddr
	Down   bool   // admin down (shutdown)
	Master string // Linux name of the bridge it is a port of
	Topol  topology.Interface
}

// planDevice is one device: its namespace and interfaces.
type planDevice struct {
	Dev    topology.Device
	NS     string
	Ifaces []*planIface
	byTopo map[string]*planIface
}

// Iface returns the planned interface of a topology interface name.
func (d *planDevice) Iface(topoName string) (*planIface, bool) {
	i, ok := d.byTopo[topoName]
	return i, ok
}

// Router tells whether the device runs FRR.
func (d *planDevice) Router() bool { return d.Dev.Kind != topology.KindHost }

// planLink is one veth pair.
type planLink struct {
	A, B   *planDevice
	AI, BI *planIface
}

// plan is the whole lab as it is built.
type plan struct {
	Devices  []*planDevice
	byName   map[string]*planDevice
	Links    []planLink
	StubNS   string // namespace holding the peers of unplugged interfaces
	Notes    []string
	prefix   string
	Topology topology.Topology
}

// Device returns a planned device by topology name.
func (p *plan) Device(name string) (*planDevice, bool) {
	d, ok := p.byName[name]
	return d, ok
}

// note records a part of the topology that the real lab maps differently
// or leaves out.
func (p *plan) note(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// newPlan maps topo onto namespaces named prefix+device.
func newPlan(topo topology.Topology, prefix string) (*plan, error) {
	p := &plan{byName: map[string]*planDevice{}, prefix: prefix, StubNS: prefix + "nocable", Topology: topo}
	for _, dev := range topo.Devices {
		if dev.Kind == topology.KindSwitch {
			return nil, fmt.Errorf("device %s: switches are not built in the real lab yet", dev.Name)
		}
		if _, dup := p.byName[dev.Name]; dup {
			return nil, fmt.Errorf("device %s: defined twice", dev.Name)
		}
		ns := prefix + dev.Name
		if !validNS(ns) {
			return nil, fmt.Errorf("device %s: namespace name %q is not usable", dev.Name, ns)
		}
		d, err := p.planDevice(dev, ns)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", dev.Name, err)
		}
		p.Devices = append(p.Devices, d)
		p.byName[dev.Name] = d
	}
	linked := map[*planIface]bool{}
	for _, l := range topo.Links {
		var ends [2]*planDevice
		var ifs [2]*planIface
		for k, end := range []string{l.A, l.B} {
			dn, in, ok := topology.SplitEnd(end)
			if !ok {
				return nil, fmt.Errorf("link %s - %s: end %q is not device:interface", l.A, l.B, end)
			}
			d, ok := p.byName[dn]
			if !ok {
				return nil, fmt.Errorf("link %s - %s: no device %s", l.A, l.B, dn)
			}
			i, ok := d.byTopo[in]
			if !ok || i.Kind != ifVeth {
				return nil, fmt.Errorf("link %s - %s: %s has no physical interface %s", l.A, l.B, dn, in)
			}
			if linked[i] {
				return nil, fmt.Errorf("link %s - %s: %s is on two links", l.A, l.B, end)
			}
			linked[i] = true
			ends[k], ifs[k] = d, i
		}
		if l.Delay > 0 {
			p.note("link %s - %s: delay %.1f ms not built (this kernel has no netem)", l.A, l.B, l.Delay)
		}
		p.Links = append(p.Links, planLink{A: ends[0], B: ends[1], AI: ifs[0], BI: ifs[1]})
	}
	for _, d := range p.Devices {
		for _, i := range d.Ifaces {
			if i.Kind == ifVeth && !linked[i] {
				i.Kind = ifUnplugged
			}
		}
	}
	return p, nil
}

// planDevice maps one device's interfaces.
func (p *plan) planDevice(dev topology.Device, ns string) (*planDevice, error) {
	d := &planDevice{Dev: dev, NS: ns, byTopo: map[string]*planIface{}}
	used := map[string]bool{}
	svi := map[int]*planIface{}
	vrfs := map[string]bool{}
	var lo *planIface
	for _, ti := range dev.Interfaces {
		if _, dup := d.byTopo[ti.Name]; dup {
			return nil, fmt.Errorf("interface %s defined twice", ti.Name)
		}
		pi := &planIface{Topo: ti.Name, MTU: ti.MTU, Down: ti.Shutdown, Topol: ti}
		for _, a := range ti.Addresses {
			pfx, err := netip.ParsePrefix(a)
			if err != nil {
				return nil, fmt.Errorf("interface %s: address %q: %v", ti.Name, a, err)
			}
			pi.Addrs = append(pi.Addrs, pfx)
		}
		if ti.MAC != "" {
			mac, err := net.ParseMAC(ti.MAC)
			if err != nil {
				return nil, fmt.Errorf("interface %s: mac %q: %v", ti.Name, ti.MAC, err)
			}
			pi.MAC = mac
		}
		if ti.VRF != "" {
			vrfs[ti.VRF] = true
			p.note("%s: interface %s of VRF %s is in the global table (no vrf devices in this kernel)", dev.Name, ti.Name, ti.VRF)
		}
		switch {
		case ti.Type == "softwareLoopback":
			if lo != nil {
				lo.Addrs = append(lo.Addrs, pi.Addrs...)
				d.byTopo[ti.Name] = lo
				p.note("%s: loopback %s's addresses are on lo, with %s's (no dummy devices in this kernel)", dev.Name, ti.Name, lo.Topo)
				continue
			}
			pi.Kind, pi.Linux = ifLoopback, "lo"
			lo = pi
		case ti.RoutedVLAN > 0:
			pi.Kind, pi.Linux = ifBridge, linuxIfName(ti.Name, used)
			svi[ti.RoutedVLAN] = pi
		default:
			pi.Kind, pi.Linux = ifVeth, linuxIfName(ti.Name, used)
			if len(ti.TrunkVLANs) > 0 {
				p.note("%s: trunk VLANs of %s are not built (the port is untagged)", dev.Name, ti.Name)
			}
		}
		d.Ifaces = append(d.Ifaces, pi)
		d.byTopo[ti.Name] = pi
	}
	for _, pi := range d.Ifaces {
		if v := pi.Topol.AccessVLAN; v > 0 {
			if br, ok := svi[v]; ok {
				pi.Master = br.Linux
			} else {
				p.note("%s: access VLAN %d of %s has no VLAN interface; the port is a plain interface", dev.Name, v, pi.Topo)
			}
		}
	}
	for _, r := range dev.Routes {
		if r.VRF != "" {
			p.note("%s: static route %s of VRF %s skipped (no vrf devices in this kernel)", dev.Name, r.Prefix, r.VRF)
		}
	}
	names := make([]string, 0, len(vrfs))
	for v := range vrfs {
		names = append(names, v)
	}
	slices.Sort(names)
	for _, v := range names {
		p.note("%s: VRF %s is not built (no vrf devices in this kernel)", dev.Name, v)
	}
	return d, nil
}

// validNS tells whether s is a usable namespace name: 1..64 letters,
// digits, '_', '-' or '.', not starting with '-' or '.'.
func validNS(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
