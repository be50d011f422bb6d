//go:build linux

package linux

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// nlIface is one interface as netlink reports it.
type nlIface struct {
	Index     int
	Linux     string // the kernel's name
	Name      string // the name shown: the alias when set (the lab's topology name), else Linux
	Type      string // netlink's link type: veth, bridge, device, ...
	AdminUp   bool
	OperUp    bool
	OperState string
	MTU       int
	MAC       string
	Master    int
	Addrs     []netip.Prefix
	Stats     *netlink.LinkStatistics
	// QdiscDrops are the packets its root queueing discipline dropped (a
	// shaper's full queue): output discards the link's own counters do
	// not count.
	QdiscDrops  uint64
	NeighborsV4 []nlNeighbor
}

// nlNeighbor is one ARP entry.
type nlNeighbor struct {
	IP    netip.Addr
	MAC   string
	State int
}

// nlState is what netlink says about a namespace.
type nlState struct {
	Ifaces  []*nlIface
	byLinux map[string]*nlIface
	byIndex map[int]*nlIface
}

// retries bounds the re-reads of a dump interrupted by a concurrent change.
const retries = 5

// retry calls fn until it does not fail with netlink.ErrDumpInterrupted.
func retry(fn func() error) error {
	var err error
	for range retries {
		if err = fn(); !errors.Is(err, netlink.ErrDumpInterrupted) {
			return err
		}
	}
	return err
}

// netlinkHandle opens a netlink handle in the driver's namespace.
func (d *Driver) netlinkHandle() (*netlink.Handle, error) {
	if d.netns == "" {
		return netlink.NewHandle()
	}
	ns, err := netns.GetFromName(d.netns)
	if err != nil {
		return nil, fmt.Errorf("linux: namespace %s: %w", d.netns, err)
	}
	defer ns.Close()
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return nil, fmt.Errorf("linux: netlink in %s: %w", d.netns, err)
	}
	return h, nil
}

// readNetlink reads interfaces, addresses and IPv4 neighbours.
func (d *Driver) readNetlink() (*nlState, error) {
	h, err := d.netlinkHandle()
	if err != nil {
		return nil, err
	}
	defer h.Close()
	var links []netlink.Link
	if err := retry(func() (e error) { links, e = h.LinkList(); return }); err != nil {
		return nil, fmt.Errorf("linux: listing links: %w", err)
	}
	st := &nlState{byLinux: map[string]*nlIface{}, byIndex: map[int]*nlIface{}}
	for _, l := range links {
		a := l.Attrs()
		i := &nlIface{Index: a.Index, Linux: a.Name, Name: a.Name, Type: l.Type(), MTU: a.MTU,
			AdminUp: a.Flags&unix.IFF_UP != 0, OperState: a.OperState.String(), Master: a.MasterIndex, Stats: a.Statistics}
		if a.Alias != "" {
			i.Name = a.Alias
		}
		i.OperUp = a.OperState == netlink.OperUp || (a.OperState == netlink.OperUnknown && a.Flags&unix.IFF_UP != 0 && a.RawFlags&unix.IFF_LOWER_UP != 0)
		if a.HardwareAddr != nil {
			i.MAC = a.HardwareAddr.String()
		}
		var addrs []netlink.Addr
		if err := retry(func() (e error) { addrs, e = h.AddrList(l, netlink.FAMILY_ALL); return }); err != nil {
			return nil, fmt.Errorf("linux: addresses of %s: %w", a.Name, err)
		}
		for _, ad := range addrs {
			ip, ok := netip.AddrFromSlice(ad.IP)
			if !ok || ip.Unmap().IsLinkLocalUnicast() || ip.Unmap().IsLoopback() {
				continue
			}
			bits, _ := ad.Mask.Size()
			i.Addrs = append(i.Addrs, netip.PrefixFrom(ip.Unmap(), bits))
		}
		st.Ifaces = append(st.Ifaces, i)
		st.byLinux[i.Linux] = i
		st.byIndex[i.Index] = i
	}
	var qdiscs []netlink.Qdisc
	if err := retry(func() (e error) { qdiscs, e = h.QdiscList(nil); return }); err != nil {
		return nil, fmt.Errorf("linux: listing queueing disciplines: %w", err)
	}
	for _, q := range qdiscs {
		a := q.Attrs()
		if i := st.byIndex[a.LinkIndex]; i != nil && a.Parent == netlink.HANDLE_ROOT && a.Statistics != nil && a.Statistics.Queue != nil {
			i.QdiscDrops += uint64(a.Statistics.Queue.Drops)
		}
	}
	var neigh []netlink.Neigh
	if err := retry(func() (e error) { neigh, e = h.NeighList(0, netlink.FAMILY_V4); return }); err != nil {
		return nil, fmt.Errorf("linux: listing neighbours: %w", err)
	}
	for _, n := range neigh {
		i := st.byIndex[n.LinkIndex]
		ip, ok := netip.AddrFromSlice(n.IP)
		if i == nil || !ok || n.HardwareAddr == nil || n.State&(netlink.NUD_FAILED|netlink.NUD_INCOMPLETE) != 0 {
			continue
		}
		i.NeighborsV4 = append(i.NeighborsV4, nlNeighbor{IP: ip.Unmap(), MAC: n.HardwareAddr.String(), State: n.State})
	}
	return st, nil
}

// nlRoute is one route of the kernel's main table.
type nlRoute struct {
	Prefix    netip.Prefix
	Protocol  string // ietf-routing identity
	NextHop   netip.Addr
	Interface string
	Blackhole bool
	Metric    int
}

// kernelProtocols maps a route's rtm_protocol to an ietf-routing source
// protocol identity (FRR's numbers from its rt_netlink.h).
var kernelProtocols = map[netlink.RouteProtocol]string{
	unix.RTPROT_KERNEL: "ietf-routing:direct",
	unix.RTPROT_BOOT:   "ietf-routing:static",
	unix.RTPROT_STATIC: "ietf-routing:static",
	196:                "ietf-routing:static", // FRR staticd
	186:                "netmcp:bgp",
	188:                "ietf-ospf:ospfv2",
}

// readRoutes reads the main table of family (4 or 6).
func (d *Driver) readRoutes(fam int, names map[int]string) ([]nlRoute, error) {
	h, err := d.netlinkHandle()
	if err != nil {
		return nil, err
	}
	defer h.Close()
	family := netlink.FAMILY_V4
	if fam == 6 {
		family = netlink.FAMILY_V6
	}
	var routes []netlink.Route
	if err := retry(func() (e error) { routes, e = h.RouteList(nil, family); return }); err != nil {
		return nil, fmt.Errorf("linux: listing routes: %w", err)
	}
	var out []nlRoute
	for _, r := range routes {
		if r.Table != unix.RT_TABLE_MAIN {
			continue
		}
		var pfx netip.Prefix
		if r.Dst == nil {
			pfx = netip.MustParsePrefix("0.0.0.0/0")
			if fam == 6 {
				pfx = netip.MustParsePrefix("::/0")
			}
		} else {
			ip, _ := netip.AddrFromSlice(r.Dst.IP)
			bits, _ := r.Dst.Mask.Size()
			pfx = netip.PrefixFrom(ip.Unmap(), bits)
		}
		if pfx.Addr().IsLinkLocalUnicast() || pfx.Addr().IsMulticast() {
			continue
		}
		p := kernelProtocols[r.Protocol]
		if p == "" {
			p = "netmcp:" + strings.ToLower(r.Protocol.String())
		}
		nr := nlRoute{Prefix: pfx, Protocol: p, Interface: names[r.LinkIndex], Blackhole: r.Type == unix.RTN_BLACKHOLE, Metric: r.Priority}
		if gw, ok := netip.AddrFromSlice(r.Gw); ok {
			nr.NextHop = gw.Unmap()
		}
		out = append(out, nr)
	}
	return out, nil
}
