//go:build linux

package real

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/netmcp/netmcp/device/linux"
)

// netnsDir is where named namespaces are mounted (iproute2's place).
const netnsDir = "/run/netns"

// nsSysctls are set in every namespace before its interfaces exist, so
// the "default" ones apply to them: no duplicate address detection (an
// address is usable at once), IPv6 addresses kept when a link goes down
// (else a link_down fault loses them for good), unprivileged ping, and no
// ICMP rate limit (traceroute answers every probe).
var nsSysctls = map[string]string{
	"net/ipv6/conf/all/accept_dad":            "0",
	"net/ipv6/conf/default/accept_dad":        "0",
	"net/ipv6/conf/all/keep_addr_on_down":     "1",
	"net/ipv6/conf/default/keep_addr_on_down": "1",
	"net/ipv4/ping_group_range":               "0 2147483647",
	"net/ipv4/icmp_ratelimit":                 "0",
	"net/ipv6/icmp/ratelimit":                 "0",
}

// routerSysctls turn forwarding on in a router's namespace.
var routerSysctls = map[string]string{
	"net/ipv4/ip_forward":              "1",
	"net/ipv6/conf/all/forwarding":     "1",
	"net/ipv6/conf/default/forwarding": "1",
}

// newNamedNS creates the named namespace, which must not exist, and
// returns a handle to it; the calling thread's namespace is unchanged.
func newNamedNS(name string) (netns.NsHandle, error) {
	if _, err := os.Stat(filepath.Join(netnsDir, name)); err == nil {
		return -1, fmt.Errorf("network namespace %s exists already (left by an earlier lab? remove it with: ip netns del %s)", name, name)
	}
	h := netns.None()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			errc <- err
			return
		}
		defer orig.Close()
		h, err = netns.NewNamed(name)
		if serr := netns.Set(orig); serr != nil {
			errc <- errors.Join(err, serr)
			return
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	if err := <-errc; err != nil {
		if h.IsOpen() {
			h.Close()
		}
		return -1, fmt.Errorf("creating network namespace %s: %w", name, err)
	}
	return h, nil
}

// deleteNamedNS removes a named namespace; a missing one is no error.
func deleteNamedNS(name string) error {
	p := filepath.Join(netnsDir, name)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := unix.Unmount(p, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("unmounting %s: %w", p, err)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// setSysctls writes sysctls (paths under /proc/sys) in the namespace.
func setSysctls(ns netns.NsHandle, kv map[string]string) error {
	return linux.InNamespace(ns, func() error {
		var errs []error
		for k, v := range kv {
			if err := os.WriteFile(filepath.Join("/proc/sys", k), []byte(v), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("sysctl %s=%s: %w", strings.ReplaceAll(k, "/", "."), v, err))
			}
		}
		return errors.Join(errs...)
	})
}

// nsHandles are the open namespace and netlink handles of a lab.
type nsHandles struct {
	ns map[string]netns.NsHandle
	nl map[string]*netlink.Handle
}

// open returns the netlink handle of namespace name, opening it once.
func (h *nsHandles) handle(name string) (*netlink.Handle, error) {
	if nl, ok := h.nl[name]; ok {
		return nl, nil
	}
	ns, ok := h.ns[name]
	if !ok {
		return nil, fmt.Errorf("no namespace %s in the lab", name)
	}
	nl, err := netlink.NewHandleAt(ns)
	if err != nil {
		return nil, fmt.Errorf("netlink in %s: %w", name, err)
	}
	h.nl[name] = nl
	return nl, nil
}

// close releases every handle.
func (h *nsHandles) close() {
	for _, nl := range h.nl {
		nl.Close()
	}
	for _, ns := range h.ns {
		ns.Close()
	}
	h.nl, h.ns = map[string]*netlink.Handle{}, map[string]netns.NsHandle{}
}

// buildNetwork creates the interfaces of every device of p (the
// namespaces exist): veth pairs for links, unplugged veths, bridges for
// VLAN interfaces, then aliases, MTUs, MACs, addresses, admin state, and
// the hosts' routes.
func buildNetwork(p *plan, h *nsHandles) error {
	for _, l := range p.Links {
		nl, err := h.handle(l.A.NS)
		if err != nil {
			return err
		}
		veth := &netlink.Veth{
			LinkAttrs:     netlink.LinkAttrs{Name: l.AI.Linux, HardwareAddr: l.AI.MAC},
			PeerName:      l.BI.Linux,
			PeerNamespace: netlink.NsFd(int(h.ns[l.B.NS])),
		}
		if l.BI.MAC != nil {
			veth.PeerHardwareAddr = l.BI.MAC
		}
		if err := nl.LinkAdd(veth); err != nil {
			return fmt.Errorf("link %s:%s - %s:%s: %w", l.A.Dev.Name, l.AI.Topo, l.B.Dev.Name, l.BI.Topo, err)
		}
	}
	stub := 0
	for _, d := range p.Devices {
		nl, err := h.handle(d.NS)
		if err != nil {
			return err
		}
		for _, i := range d.Ifaces {
			var err error
			switch i.Kind {
			case ifUnplugged:
				stub++
				err = nl.LinkAdd(&netlink.Veth{
					LinkAttrs:     netlink.LinkAttrs{Name: i.Linux, HardwareAddr: i.MAC},
					PeerName:      fmt.Sprintf("nc%d", stub),
					PeerNamespace: netlink.NsFd(int(h.ns[p.StubNS])),
				})
			case ifBridge:
				err = nl.LinkAdd(&netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: i.Linux, HardwareAddr: i.MAC}})
			}
			if err != nil {
				return fmt.Errorf("%s: interface %s (%s): %w", d.Dev.Name, i.Topo, i.Linux, err)
			}
		}
		if err := configureDevice(nl, d); err != nil {
			return fmt.Errorf("%s: %w", d.Dev.Name, err)
		}
	}
	return nil
}

// configureDevice configures d's interfaces (configureIface), its lo and,
// on a host, its routes: what Up does once the links exist, and what a
// crashed host's boot does again.
func configureDevice(nl *netlink.Handle, d *planDevice) error {
	for _, i := range d.Ifaces {
		if err := configureIface(nl, d, i); err != nil {
			return fmt.Errorf("interface %s (%s): %w", i.Topo, i.Linux, err)
		}
	}
	// Every namespace's lo up, as on a machine, also where the topology
	// names no loopback (a host): else a host cannot reach its own
	// addresses (its DNS service, from itself).
	lo, err := nl.LinkByName("lo")
	if err == nil {
		err = nl.LinkSetUp(lo)
	}
	if err != nil {
		return fmt.Errorf("lo: %w", err)
	}
	if d.Router() {
		return nil
	}
	return hostRoutes(nl, d)
}

// configureIface sets one interface's alias, MTU, master, addresses and
// admin state.
func configureIface(nl *netlink.Handle, d *planDevice, i *planIface) error {
	link, err := nl.LinkByName(i.Linux)
	if err != nil {
		return err
	}
	if i.Kind == ifLoopback || d.byTopo[i.Topo] == i {
		if err := nl.LinkSetAlias(link, i.Topo); err != nil {
			return fmt.Errorf("alias: %w", err)
		}
	}
	if i.MTU > 0 {
		if err := nl.LinkSetMTU(link, i.MTU); err != nil {
			return fmt.Errorf("mtu %d: %w", i.MTU, err)
		}
	}
	if i.Master != "" {
		br, err := nl.LinkByName(i.Master)
		if err != nil {
			return fmt.Errorf("bridge %s: %w", i.Master, err)
		}
		if err := nl.LinkSetMaster(link, br); err != nil {
			return fmt.Errorf("port of %s: %w", i.Master, err)
		}
	}
	for _, a := range i.Addrs {
		addr := &netlink.Addr{IPNet: &net.IPNet{IP: a.Addr().AsSlice(), Mask: net.CIDRMask(a.Bits(), a.Addr().BitLen())}}
		if a.Addr().Is6() {
			addr.Flags = unix.IFA_F_NODAD
		}
		if err := nl.AddrReplace(link, addr); err != nil {
			return fmt.Errorf("address %s: %w", a, err)
		}
	}
	if i.Down && i.Kind != ifLoopback {
		return nl.LinkSetDown(link)
	}
	return nl.LinkSetUp(link)
}

// hostRoutes installs a host's default route (its gateway) and static
// routes; a host runs no routing daemon.
func hostRoutes(nl *netlink.Handle, d *planDevice) error {
	add := func(prefix, via string, discard bool) error {
		_, dst, err := net.ParseCIDR(prefix)
		if err != nil {
			return fmt.Errorf("route %s: %w", prefix, err)
		}
		r := &netlink.Route{Dst: dst}
		if discard {
			r.Type = unix.RTN_BLACKHOLE
		} else {
			gw := net.ParseIP(via)
			if gw == nil {
				return fmt.Errorf("route %s: next hop %q is not an address", prefix, via)
			}
			r.Gw = gw
		}
		if err := nl.RouteReplace(r); err != nil {
			return fmt.Errorf("route %s via %s: %w", prefix, via, err)
		}
		return nil
	}
	if d.Dev.Gateway != "" {
		def := "0.0.0.0/0"
		if strings.Contains(d.Dev.Gateway, ":") {
			def = "::/0"
		}
		if err := add(def, d.Dev.Gateway, false); err != nil {
			return fmt.Errorf("gateway: %w", err)
		}
	}
	for _, r := range d.Dev.Routes {
		if r.VRF != "" {
			continue
		}
		if r.Interface != "" && r.NextHop == "" && !r.Discard {
			return fmt.Errorf("route %s: interface routes on hosts are not built", r.Prefix)
		}
		if err := add(r.Prefix, r.NextHop, r.Discard); err != nil {
			return err
		}
	}
	return nil
}
