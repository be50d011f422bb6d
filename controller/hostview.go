package controller

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// hostView is what a host served over MCP (a simulated host, dialect
// linux) shows of itself: its interfaces and addresses, its routes (the
// default route is its gateway), its resolvers. Err is set when the host
// could not be read (a crashed host answers nothing).
type hostView struct {
	Name      string
	Ifaces    []*ifaceView
	Routes    []route
	Resolvers []netip.Addr
	// ACLs and Bindings are the host's packet filters.
	ACLs     map[string]*aclSet
	Bindings []aclBinding
	// MAC is the MAC address of its first link (ip -j link), and PermMAC
	// that link's permanent (hardware) address when MAC differs from it
	// (iproute2's permaddr), else empty.
	MAC, PermMAC string
	Err          string
	Calls        map[string]int
}

// callResolv is the key of the resolv.conf call in hostView.Calls.
const callResolv = "cat /etc/resolv.conf"

// Gateway returns the host's default route's next hop.
func (h *hostView) Gateway() (netip.Addr, bool) {
	for _, r := range h.Routes {
		if r.Prefix.Bits() == 0 && r.Prefix.Addr().Is4() && r.NextHop.IsValid() {
			return r.NextHop, true
		}
	}
	return netip.Addr{}, false
}

// Addrs4 returns the host's IPv4 addresses with their prefix lengths.
func (h *hostView) Addrs4() []netip.Prefix {
	var out []netip.Prefix
	for _, it := range h.Ifaces {
		if it.Loopback || it.Name == "lo" {
			continue
		}
		for _, p := range it.Addrs {
			if p.Addr().Is4() && !p.Addr().IsLoopback() {
				out = append(out, p)
			}
		}
	}
	return out
}

// RoleHost is the inventory role of an end host served over MCP (a
// simulated host, sim://h3, dialect linux): the controller reads it as a
// host, not as a router of the path.
const RoleHost = "host"

// isHost tells whether a fleet device is an end host: its inventory role
// is RoleHost, or it speaks the linux dialect.
func isHost(d *client.Device) bool {
	if d.Inventory().Role == RoleHost {
		return true
	}
	c, ok := d.Network()
	return ok && c.CLIDialect == "linux"
}

// routers returns the fleet's devices that are not hosts.
func (r *run) routers() []*client.Device {
	var out []*client.Device
	for _, d := range r.c.Fleet.Devices() {
		if !isHost(d) {
			out = append(out, d)
		}
	}
	return out
}

// readHosts reads every host of the fleet (interfaces, routes,
// resolv.conf) into n.HostViews, and adds the hosts the controller was
// not told of to n's attachments, at the addresses they hold (a host
// with none on a router's LAN: at the address a router's ARP table gives
// its MAC).
func (r *run) readHosts(n *network) {
	var hosts []*client.Device
	for _, d := range r.c.Fleet.Devices() {
		if isHost(d) {
			hosts = append(hosts, d)
		}
	}
	if len(hosts) == 0 {
		return
	}
	r.begin("read every host: interfaces, routes, resolvers (" + pathInterfaces + ", " + pathRouting + ", " + callResolv + ")")
	n.HostViews = map[string]*hostView{}
	var mu sync.Mutex
	r.c.Fleet.Each(r.ctx, hosts, func(ctx context.Context, d *client.Device) error {
		h := &hostView{Name: d.Name(), Calls: map[string]int{}}
		defer func() {
			mu.Lock()
			n.HostViews[h.Name] = h
			mu.Unlock()
		}()
		data, call, err := r.yangGet(d.Name(), pathInterfaces)
		h.Calls[pathInterfaces] = call
		if err != nil {
			h.Err = firstLine(err.Error())
			return nil
		}
		h.Ifaces = parseInterfaces(data)
		r.summarize(call, "addresses %v", h.Addrs4())
		if data, call, err := r.yangGet(d.Name(), pathRouting); err == nil {
			h.Routes = parseRoutes(data)
			h.Calls[pathRouting] = call
			gw, _ := h.Gateway()
			r.summarize(call, "%d IPv4 routes, gateway %v", len(h.Routes), gw)
		}
		if data, call, err := r.yangGet(d.Name(), PathACL); err == nil {
			h.ACLs, h.Bindings = parseACL(data)
			h.Calls[PathACL] = call
			r.summarize(call, "%d ACLs, %d bindings", len(h.ACLs), len(h.Bindings))
		}
		if d.HasTool(netproto.ToolCLIExec) {
			out, call, err := r.call(d.Name(), netproto.ToolCLIExec, map[string]any{"cmd": callResolv})
			h.Calls[callResolv] = call
			if err == nil {
				h.Resolvers = parseResolvConf(cliText(out))
				r.summarize(call, "nameservers %v", h.Resolvers)
			}
			out, call, err = r.call(d.Name(), netproto.ToolCLIExec, map[string]any{"cmd": callLink})
			h.Calls[callLink] = call
			if err == nil {
				h.MAC, h.PermMAC = parseIPLink(cliText(out))
				if h.PermMAC != "" {
					r.summarize(call, "MAC %s (permanent %s)", h.MAC, h.PermMAC)
				} else {
					r.summarize(call, "MAC %s", h.MAC)
				}
			}
		}
		return nil
	})
	known := map[string]bool{}
	for _, a := range n.Hosts {
		known[a.Host.Name] = true
	}
	var extra []Host
	for _, name := range sortedKeys(n.HostViews) {
		h := n.HostViews[name]
		if known[name] || h.Err != "" {
			continue
		}
		x := Host{Name: name}
		for _, p := range h.Addrs4() {
			x.Addrs = append(x.Addrs, p.Addr())
		}
		if !slices.ContainsFunc(x.Addrs, n.onRouterLAN) {
			// No address of its own on a router's LAN (none at all, or a
			// wrong one): a router's ARP table still knows its MAC at the
			// address it had, which is where it belongs.
			x.Addrs = append(x.Addrs, n.arpAddrs(h.MAC)...)
		}
		extra = append(extra, x)
	}
	if len(extra) > 0 {
		n.attachHosts(extra)
	}
}

// onRouterLAN tells whether a lies in a subnet of a router's interface
// (and is not the router's own address).
func (n *network) onRouterLAN(a netip.Addr) bool {
	for _, name := range n.Order {
		for _, it := range n.Devices[name].Ifaces {
			for _, p := range it.Addrs {
				if p.Bits() < 32 && p.Contains(a) && p.Addr() != a {
					return true
				}
			}
		}
	}
	return false
}

// arpAddrs returns the addresses the routers' ARP tables give MAC.
func (n *network) arpAddrs(mac string) []netip.Addr {
	var out []netip.Addr
	if mac == "" {
		return nil
	}
	for _, name := range n.Order {
		for _, it := range n.Devices[name].Ifaces {
			for _, e := range it.ARP {
				if strings.EqualFold(e.MAC, mac) && !slices.Contains(out, e.IP) {
					out = append(out, e.IP)
				}
			}
		}
	}
	return out
}

// cliText returns the text a CLI call printed.
func cliText(out any) string {
	if s, ok := out.(string); ok {
		return s
	}
	for _, k := range []string{"stdout", "output", "text", "result"} {
		if s, ok := yang.Member(out, k).(string); ok {
			return s
		}
	}
	return ""
}

// parseResolvConf reads the nameserver lines of a resolv.conf.
func parseResolvConf(text string) []netip.Addr {
	var out []netip.Addr
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "nameserver" {
			if a, err := netip.ParseAddr(f[1]); err == nil {
				out = append(out, a)
			}
		}
	}
	return out
}

// asDevice returns the host as a deviceView for the checks routers and
// hosts share (its ACLs).
func (h *hostView) asDevice() *deviceView {
	return &deviceView{Name: h.Name, Ifaces: h.Ifaces, routes: h.Routes, ACLs: h.ACLs, Bindings: h.Bindings, Calls: h.Calls}
}
