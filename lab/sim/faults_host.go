package sim

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// The host faults in the simulator: a host's address, netmask, gateway,
// routes, resolver and MAC changed in its configuration in the model, and
// a crashed host (an entry of the model's fault list that the host model
// reads).

// registerHostFaults binds the host faults.
func registerHostFaults(b *fault.Backend[*faultOp]) {
	b.Register("host_incorrect_ip", configFault(hostReaddress(func(_ *netsim.Network, _ topology.Device, f topology.Fault, cur netip.Prefix, _ string) (netip.Prefix, error) {
		if v := f.Param("address"); v != "" {
			return netip.MustParsePrefix(v), nil
		}
		return shiftSubnet(cur), nil
	})))
	b.Register("host_incorrect_netmask", configFault(hostReaddress(func(_ *netsim.Network, _ topology.Device, f topology.Fault, cur netip.Prefix, where string) (netip.Prefix, error) {
		bits := 30
		if v := f.Param("prefix-length"); v != "" {
			bits, _ = strconv.Atoi(v)
		}
		if bits > 32 {
			return netip.Prefix{}, fmt.Errorf("%s: prefix-length %d is too long for IPv4", where, bits)
		}
		return netip.PrefixFrom(cur.Addr(), bits), nil
	})))
	b.Register("host_ip_conflict", configFault(hostReaddress(conflictAddr)))
	b.Register("host_missing_ip", configFault(hostMissingIP))
	b.Register("host_incorrect_gateway", configFault(hostIncorrectGateway))
	b.Register("host_static_blackhole", configFault(hostStaticBlackhole))
	b.Register("host_incorrect_dns", configFault(hostIncorrectDNS))
	b.Register("mac_address_conflict", configFault(macAddressConflict))
	b.Register("host_crash", runtimeFault)
}

// hostPick returns the host interface a fault changes: the "interface"
// parameter's, else the first with an IPv4 address; and the index of
// that address among the interface's (-1: it has none).
func hostPick(d *topology.Device, f topology.Fault, where string) (*topology.Interface, int, error) {
	name := f.Param("interface")
	for i := range d.Interfaces {
		it := &d.Interfaces[i]
		if name != "" && it.Name != name {
			continue
		}
		for j, a := range it.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() {
				return it, j, nil
			}
		}
		if name != "" {
			return it, -1, nil
		}
	}
	if name != "" {
		return nil, -1, fmt.Errorf("%s: %s has no interface %q", where, d.Name, name)
	}
	return nil, -1, fmt.Errorf("%s: %s has no IPv4 address", where, d.Name)
}

// hostReaddress makes a fault that replaces the IPv4 address of the
// host's interface (hostPick) with the one next computes from it.
func hostReaddress(next func(net *netsim.Network, d topology.Device, f topology.Fault, cur netip.Prefix, where string) (netip.Prefix, error)) configChange {
	return func(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
		it, j, err := hostPick(&d, f, where)
		if err != nil {
			return d, "", err
		}
		if j < 0 {
			return d, "", fmt.Errorf("%s: %s:%s has no IPv4 address", where, d.Name, it.Name)
		}
		cur := netip.MustParsePrefix(it.Addresses[j])
		p, err := next(net, d, f, cur, where)
		if err != nil {
			return d, "", err
		}
		if p == cur {
			return d, "", fmt.Errorf("%s: %s already has %s", where, it.Name, cur)
		}
		it.Addresses = append([]string(nil), it.Addresses...)
		it.Addresses[j] = p.String()
		return d, fmt.Sprintf("%s address %s (was %s)", it.Name, p, cur), nil
	}
}

// hostMissingIP removes the addresses of the host's interface.
func hostMissingIP(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	it, _, err := hostPick(&d, f, where)
	if err != nil {
		return d, "", err
	}
	if len(it.Addresses) == 0 {
		return d, "", fmt.Errorf("%s: %s:%s has no address already", where, d.Name, it.Name)
	}
	it.Addresses = nil
	return d, it.Name + " has no address", nil
}

// hostIncorrectGateway points the host's default route at a wrong
// gateway: the "gateway" parameter, else an unused address of its LAN.
func hostIncorrectGateway(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	gw := f.Param("gateway")
	if gw == "" {
		it, j, err := hostPick(&d, f, where)
		if err != nil || j < 0 {
			return d, "", fmt.Errorf("%s: %s has no IPv4 LAN to pick a gateway in", where, d.Name)
		}
		a, ok := unusedIn(net, netip.MustParsePrefix(it.Addresses[j]))
		if !ok {
			return d, "", fmt.Errorf("%s: no unused address in %s's LAN", where, d.Name)
		}
		gw = a.String()
	}
	if gw == d.Gateway {
		return d, "", fmt.Errorf("%s: %s's gateway is already %s", where, d.Name, gw)
	}
	d.Gateway = gw
	return d, "gateway " + gw, nil
}

// hostStaticBlackhole adds blackhole routes to the host: to the "prefix"
// parameter, else to the other hosts' IPv4 LANs.
func hostStaticBlackhole(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	var pfxs []string
	if v := f.Param("prefix"); v != "" {
		pfxs = []string{netip.MustParsePrefix(v).Masked().String()}
	} else {
		for _, h := range net.DevicesOfKind(topology.KindHost) {
			if h.Name == d.Name {
				continue
			}
			for _, it := range h.Interfaces {
				for _, a := range it.Addresses {
					if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() {
						pfxs = append(pfxs, p.Masked().String())
					}
				}
			}
		}
		if len(pfxs) == 0 {
			return d, "", fmt.Errorf("%s: no other host's LAN to blackhole (give prefix=)", where)
		}
	}
	d.Routes = append([]topology.StaticRoute(nil), d.Routes...)
	for _, p := range pfxs {
		d.Routes = append(d.Routes, topology.StaticRoute{Prefix: p, Discard: true})
	}
	return d, "blackhole route to " + strings.Join(pfxs, ", "), nil
}

// hostIncorrectDNS points the host's resolver at a wrong server: the
// "server" parameter, else its gateway (a router: no DNS service runs
// there).
func hostIncorrectDNS(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	server := f.Param("server")
	if server == "" {
		server = d.Gateway // a router: no DNS service runs there
		if server == "" {
			return d, "", fmt.Errorf("%s: %s has no gateway to point the resolver at (give server=)", where, d.Name)
		}
	}
	if len(d.DNSServers) == 1 && d.DNSServers[0] == server {
		return d, "", fmt.Errorf("%s: %s already resolves through %s", where, d.Name, server)
	}
	d.DNSServers = []string{server}
	return d, "resolver " + server, nil
}

// macAddressConflict gives the host's interface the MAC of another
// device on its LAN (conflictMAC).
func macAddressConflict(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	it, _, err := hostPick(&d, f, where)
	if err != nil {
		return d, "", err
	}
	mac, who, err := conflictMAC(net, d, it, f)
	if err != nil {
		return d, "", fmt.Errorf("%s: %v", where, err)
	}
	it.MAC = mac
	return d, fmt.Sprintf("%s MAC %s (that of %s)", it.Name, mac, who), nil
}

// shiftSubnet moves an address to the next subnet of the same size: the
// same host part outside the LAN.
func shiftSubnet(p netip.Prefix) netip.Prefix {
	b := p.Addr().As4()
	x := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	x += uint32(1) << (32 - p.Bits())
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}), p.Bits())
}

// conflictAddr is the address the host takes for host_ip_conflict: the
// "with" device's address in the host's LAN (or its first IPv4 address),
// by default the host's gateway.
func conflictAddr(net *netsim.Network, d topology.Device, f topology.Fault, cur netip.Prefix, where string) (netip.Prefix, error) {
	with := f.Param("with")
	if with == "" {
		if d.Gateway == "" {
			return netip.Prefix{}, fmt.Errorf("%s: %s has no gateway (give with=DEVICE)", where, d.Name)
		}
		gw, err := netip.ParseAddr(d.Gateway)
		if err != nil || !gw.Is4() {
			return netip.Prefix{}, fmt.Errorf("%s: gateway %q is not IPv4", where, d.Gateway)
		}
		return netip.PrefixFrom(gw, cur.Bits()), nil
	}
	o, ok := net.Device(with)
	if !ok {
		return netip.Prefix{}, fmt.Errorf("%s: no device %q", where, with)
	}
	var first netip.Prefix
	for _, it := range o.Interfaces {
		for _, a := range it.Addresses {
			p, err := netip.ParsePrefix(a)
			if err != nil || !p.Addr().Is4() {
				continue
			}
			if cur.Masked().Contains(p.Addr()) {
				return netip.PrefixFrom(p.Addr(), cur.Bits()), nil
			}
			if !first.IsValid() && !p.Addr().IsLoopback() {
				first = p
			}
		}
	}
	if !first.IsValid() {
		return netip.Prefix{}, fmt.Errorf("%s: %s has no IPv4 address", where, with)
	}
	return first, nil
}

// conflictMAC is the MAC the host takes for mac_address_conflict: that of
// the "with" device's interface on the host's LAN, by default another
// host of the LAN, else the gateway.
func conflictMAC(net *netsim.Network, d topology.Device, it *topology.Interface, f topology.Fault) (string, string, error) {
	var lan []netip.Prefix
	for _, a := range it.Addresses {
		if p, err := netip.ParsePrefix(a); err == nil {
			lan = append(lan, p.Masked())
		}
	}
	onLAN := func(dev string) (string, bool) {
		o, ok := net.Device(dev)
		if !ok {
			return "", false
		}
		for _, oi := range o.Interfaces {
			for _, a := range oi.Addresses {
				p, err := netip.ParsePrefix(a)
				if err != nil {
					continue
				}
				for _, l := range lan {
					if l.Contains(p.Addr()) {
						st, err := net.InterfaceState(dev, oi.Name)
						if err == nil {
							return st.MAC, true
						}
					}
				}
			}
		}
		return "", false
	}
	if with := f.Param("with"); with != "" {
		if mac, ok := onLAN(with); ok {
			return mac, with, nil
		}
		return "", "", fmt.Errorf("%s has no interface on %s's LAN", with, d.Name)
	}
	var routers []string
	for _, name := range net.DeviceNames() {
		if name == d.Name {
			continue
		}
		o, _ := net.Device(name)
		if o.Kind != topology.KindHost {
			routers = append(routers, name)
			continue
		}
		if mac, ok := onLAN(name); ok {
			return mac, name, nil
		}
	}
	for _, name := range routers {
		if mac, ok := onLAN(name); ok {
			return mac, name, nil
		}
	}
	return "", "", fmt.Errorf("no other device on %s's LAN", d.Name)
}
