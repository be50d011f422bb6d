//go:build linux

package real

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// The host faults on the real lab: a host's addresses, MAC, routes and
// resolver changed with ip (and its resolv.conf), and restored from the
// plan. A crashed host is faults_crash.go's.

// registerHostFaults binds the host faults.
func registerHostFaults(b *fault.Backend[*Lab]) {
	b.Register("host_incorrect_gateway", configured(onOff((*Lab).hostGateway)))
	b.Register("host_static_blackhole", configured(onOff((*Lab).hostBlackhole)))
	b.Register("host_incorrect_dns", configured(onOff((*Lab).hostResolver)))
	b.Register("host_incorrect_netmask", configured(onOff((*Lab).hostNetmask)))
	b.Register("host_missing_ip", configured(onOff((*Lab).hostMissingIP)))
	b.Register("host_incorrect_ip", configured(onOff((*Lab).hostIncorrectIP)))
	b.Register("host_ip_conflict", configured(onOff((*Lab).hostConflictIP)))
	b.Register("mac_address_conflict", configured(onOff((*Lab).hostConflictMAC)))
}

// hostTarget is what a host fault changes: the host, its interface
// (hostIface), that interface's first IPv4 address (else its first
// address), and ip, which runs ip in the host's namespace.
type hostTarget struct {
	d  *planDevice
	i  *planIface
	v4 netip.Prefix
	ip func(args ...string) error
}

// hostTarget resolves a host fault's target.
func (l *Lab) hostTarget(ctx context.Context, f topology.Fault) (hostTarget, error) {
	d, i, err := l.hostIface(f)
	if err != nil {
		return hostTarget{}, err
	}
	h := hostTarget{d: d, i: i, v4: i.Addrs[0]}
	h.ip = func(args ...string) error {
		_, err := run(ctx, d.NS, append([]string{"ip"}, args...)...)
		return err
	}
	for _, a := range i.Addrs {
		if a.Addr().Is4() {
			h.v4 = a
			break
		}
	}
	return h, nil
}

// hostGateway points the host's default route at a wrong gateway (the
// "gateway" parameter, else an unused address of its LAN), and back.
func (l *Lab) hostGateway(ctx context.Context, f topology.Fault, on bool) error {
	h, err := l.hostTarget(ctx, f)
	if err != nil {
		return err
	}
	d, i, v4, ip := h.d, h.i, h.v4, h.ip
	if !on {
		if d.Dev.Gateway == "" {
			return ip("route", "del", "default")
		}
		return ip("route", "replace", "default", "via", d.Dev.Gateway)
	}
	gw := f.Param("gateway")
	if gw == "" {
		gw = unusedAddr(v4, l.plan).String()
	}
	if _, err := netip.ParseAddr(gw); err != nil {
		return fmt.Errorf("%s: gateway %q is not an address", f.Name, gw)
	}
	return ip("route", "replace", "default", "via", gw, "dev", i.Linux, "onlink")
}

// hostBlackhole adds the host's blackhole routes (blackholes), and
// deletes them.
func (l *Lab) hostBlackhole(ctx context.Context, f topology.Fault, on bool) error {
	h, err := l.hostTarget(ctx, f)
	if err != nil {
		return err
	}
	pfxs, err := l.blackholes(f, h.d)
	if err != nil {
		return err
	}
	verb := "replace"
	if !on {
		verb = "del"
	}
	for _, p := range pfxs {
		if err := h.ip("route", verb, "blackhole", p.String()); err != nil {
			return err
		}
	}
	return nil
}

// hostResolver points the host's resolv.conf at a wrong server (the
// "server" parameter, else an unused address of its LAN), and writes the
// plan's back.
func (l *Lab) hostResolver(ctx context.Context, f topology.Fault, on bool) error {
	h, err := l.hostTarget(ctx, f)
	if err != nil {
		return err
	}
	if !on {
		return l.writeResolvConf(h.d)
	}
	srv := f.Param("server")
	if srv == "" {
		srv = unusedAddr(h.v4, l.plan).String()
	}
	if _, err := netip.ParseAddr(srv); err != nil {
		return fmt.Errorf("%s: server %q is not an address", f.Name, srv)
	}
	conf := "nameserver " + srv + "\noptions timeout:2 attempts:1\n"
	return os.WriteFile(filepath.Join("/etc/netns", h.d.NS, "resolv.conf"), []byte(conf), 0o644)
}

// hostNetmask gives the host's IPv4 address a wrong prefix length (the
// "prefix-length" parameter, else 30, or 24 on a /30), and restores the
// plan's addresses.
func (l *Lab) hostNetmask(ctx context.Context, f topology.Fault, on bool) error {
	h, err := l.hostTarget(ctx, f)
	if err != nil {
		return err
	}
	d, i, v4, ip := h.d, h.i, h.v4, h.ip
	if !on {
		return l.restoreHost(ctx, d, i)
	}
	bits, err := strconv.Atoi(f.Param("prefix-length"))
	if f.Param("prefix-length") == "" {
		bits, err = 30, nil
		if v4.Bits() == 30 {
			bits = 24
		}
	}
	if err != nil || bits < 1 || bits > 32 || !v4.Addr().Is4() {
		return fmt.Errorf("%s: prefix-length %q: want 1..32 on an IPv4 address", f.Name, f.Param("prefix-length"))
	}
	if err := ip("-4", "addr", "flush", "dev", i.Linux, "scope", "global"); err != nil {
		return err
	}
	if err := ip("addr", "add", netip.PrefixFrom(v4.Addr(), bits).String(), "dev", i.Linux); err != nil {
		return err
	}
	if d.Dev.Gateway != "" && !strings.Contains(d.Dev.Gateway, ":") {
		_ = ip("route", "replace", "default", "via", d.Dev.Gateway) // fails when the mask leaves it off-link: the symptom
	}
	return nil
}

// hostMissingIP removes the addresses of the host's interface, and
// restores the plan's.
func (l *Lab) hostMissingIP(ctx context.Context, f topology.Fault, on bool) error {
	h, err := l.hostTarget(ctx, f)
	if err != nil {
		return err
	}
	if !on {
		return l.restoreHost(ctx, h.d, h.i)
	}
	return h.ip("addr", "flush", "dev", h.i.Linux, "scope", "global")
}

// hostIncorrectIP replaces the addresses of the host's interface with a
// wrong one (the "address" parameter, else its host part in
// 198.51.100.0/24), and restores the plan's.
func (l *Lab) hostIncorrectIP(ctx context.Context, f topology.Fault, on bool) error {
	h, err := l.hostTarget(ctx, f)
	if err != nil {
		return err
	}
	if !on {
		return l.restoreHost(ctx, h.d, h.i)
	}
	if err := h.ip("addr", "flush", "dev", h.i.Linux, "scope", "global"); err != nil {
		return err
	}
	a := f.Param("address")
	if a == "" {
		b := h.v4.Addr().As4()
		a = netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 51, 100, b[3]}), 24).String()
	}
	if _, err := netip.ParsePrefix(a); err != nil {
		return fmt.Errorf("%s: address %q: want CIDR (198.51.100.7/24)", f.Name, a)
	}
	return h.ip("addr", "add", a, "dev", h.i.Linux)
}

// hostIface is the host interface a host fault changes: the "interface"
// parameter, else the first one with an address.
func (l *Lab) hostIface(f topology.Fault) (*planDevice, *planIface, error) {
	d, err := l.device(f)
	if err != nil {
		return nil, nil, err
	}
	if d.Router() {
		return nil, nil, fmt.Errorf("%s: %s is not a host", f.Name, f.Target)
	}
	for _, i := range d.Ifaces {
		if want := f.Param("interface"); want != "" && i.Topo != want {
			continue
		}
		if len(i.Addrs) > 0 {
			return d, i, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: %s has no addressed interface %s", f.Name, f.Target, f.Param("interface"))
}

// restoreHost puts back an interface's planned addresses and the host's
// default route.
func (l *Lab) restoreHost(ctx context.Context, d *planDevice, i *planIface) error {
	if _, err := run(ctx, d.NS, "ip", "addr", "flush", "dev", i.Linux, "scope", "global"); err != nil {
		return err
	}
	for _, a := range i.Addrs {
		args := []string{"ip", "addr", "add", a.String(), "dev", i.Linux}
		if a.Addr().Is6() {
			args = append(args, "nodad")
		}
		if _, err := run(ctx, d.NS, args...); err != nil {
			return err
		}
	}
	if d.Dev.Gateway == "" {
		return nil
	}
	fam := "-4"
	if strings.Contains(d.Dev.Gateway, ":") {
		fam = "-6"
	}
	_, err := run(ctx, d.NS, "ip", fam, "route", "replace", "default", "via", d.Dev.Gateway)
	return err
}

// blackholes are host_static_blackhole's prefixes: the "prefix"
// parameter, else the other hosts' IPv4 LANs.
func (l *Lab) blackholes(f topology.Fault, d *planDevice) ([]netip.Prefix, error) {
	if s := f.Param("prefix"); s != "" {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%s: prefix %q: %v", f.Name, s, err)
		}
		return []netip.Prefix{p.Masked()}, nil
	}
	var out []netip.Prefix
	for _, o := range l.plan.Devices {
		if o == d || o.Router() {
			continue
		}
		for _, i := range o.Ifaces {
			for _, a := range i.Addrs {
				if p := a.Masked(); a.Addr().Is4() && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no other host's LAN to blackhole: give prefix=", f.Name)
	}
	return out, nil
}

// hostConflictIP gives the host the address of another device (the
// "with" device's address in the host's LAN, by default its gateway's),
// with the host's prefix length; clearing restores the plan's.
func (l *Lab) hostConflictIP(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.hostIface(f)
	if err != nil {
		return err
	}
	if !on {
		return l.restoreHost(ctx, d, i)
	}
	v4 := slices.IndexFunc(i.Addrs, func(p netip.Prefix) bool { return p.Addr().Is4() })
	if v4 < 0 {
		return fmt.Errorf("%s: %s:%s has no IPv4 address", f.Name, d.Dev.Name, i.Topo)
	}
	cur := i.Addrs[v4]
	var take netip.Addr
	if with := f.Param("with"); with != "" {
		o, ok := l.plan.Device(with)
		if !ok {
			return fmt.Errorf("%s: no device %q in the lab", f.Name, with)
		}
		for _, oi := range o.Ifaces {
			for _, a := range oi.Addrs {
				if a.Addr().Is4() && (!take.IsValid() || cur.Contains(a.Addr())) {
					take = a.Addr()
				}
			}
		}
	} else if gw, err := netip.ParseAddr(d.Dev.Gateway); err == nil && gw.Is4() {
		take = gw
	}
	if !take.IsValid() {
		return fmt.Errorf("%s: no address to take (give with=DEVICE)", f.Name)
	}
	if _, err := run(ctx, d.NS, "ip", "-4", "addr", "flush", "dev", i.Linux, "scope", "global"); err != nil {
		return err
	}
	_, err = run(ctx, d.NS, "ip", "addr", "add", netip.PrefixFrom(take, cur.Bits()).String(), "dev", i.Linux)
	return err
}

// hostConflictMAC gives the host's interface the MAC of another device on
// its LAN (the "with" device's, by default another host of the LAN, else
// its gateway's router interface); clearing restores the plan's MAC, or
// the one it had.
func (l *Lab) hostConflictMAC(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.hostIface(f)
	if err != nil {
		return err
	}
	// The MAC the interface had (the kernel's, when the topology gives
	// none) is kept in the lab's directory until the fault is cleared.
	saved := filepath.Join(l.dir, "mac-"+d.NS+"-"+i.Linux)
	if !on {
		b, _ := os.ReadFile(saved)
		_ = os.Remove(saved)
		mac := strings.TrimSpace(string(b))
		if i.MAC != nil {
			mac = i.MAC.String()
		}
		if mac == "" {
			return fmt.Errorf("%s: %s's own MAC is not known", f.Name, f.Target)
		}
		if _, err := run(ctx, d.NS, "ip", "link", "set", "dev", i.Linux, "address", mac); err != nil {
			return err
		}
		return l.flushLAN(ctx, i)
	}
	var lan []netip.Prefix
	for _, a := range i.Addrs {
		lan = append(lan, a.Masked())
	}
	onLAN := func(o *planDevice) *planIface {
		for _, oi := range o.Ifaces {
			for _, a := range oi.Addrs {
				if slices.ContainsFunc(lan, func(p netip.Prefix) bool { return p.Contains(a.Addr()) }) {
					return oi
				}
			}
		}
		return nil
	}
	var who *planDevice
	var oi *planIface
	if with := f.Param("with"); with != "" {
		o, ok := l.plan.Device(with)
		if !ok || o == d {
			return fmt.Errorf("%s: no other device %q in the lab", f.Name, with)
		}
		who, oi = o, onLAN(o)
	} else {
		for _, o := range l.plan.Devices {
			if o != d && !o.Router() && onLAN(o) != nil {
				who, oi = o, onLAN(o)
				break
			}
		}
		if who == nil {
			gw, _ := netip.ParseAddr(d.Dev.Gateway)
			for _, o := range l.plan.Devices {
				for _, x := range o.Ifaces {
					if slices.ContainsFunc(x.Addrs, func(p netip.Prefix) bool { return p.Addr() == gw }) {
						who, oi = o, x
					}
				}
			}
		}
	}
	if who == nil || oi == nil {
		return fmt.Errorf("%s: no device on %s's LAN to take a MAC from (give with=DEVICE)", f.Name, f.Target)
	}
	mac, err := ifaceMAC(ctx, who, oi)
	if err != nil {
		return err
	}
	own, err := ifaceMAC(ctx, d, i)
	if err != nil {
		return err
	}
	if err := os.WriteFile(saved, []byte(own+"\n"), 0o600); err != nil {
		return err
	}
	_, err = run(ctx, d.NS, "ip", "link", "set", "dev", i.Linux, "address", mac)
	return err
}

// flushLAN forgets the neighbours learnt on every interface of i's LAN
// (the other devices still map the host's address to the MAC it had).
func (l *Lab) flushLAN(ctx context.Context, i *planIface) error {
	for _, o := range l.plan.Devices {
		for _, oi := range o.Ifaces {
			if !slices.ContainsFunc(oi.Addrs, func(a netip.Prefix) bool {
				return slices.ContainsFunc(i.Addrs, func(b netip.Prefix) bool { return b.Masked() == a.Masked() })
			}) {
				continue
			}
			if _, err := run(ctx, o.NS, "ip", "neigh", "flush", "dev", oi.Linux); err != nil {
				return err
			}
		}
	}
	return nil
}

// ifaceMAC reads an interface's MAC from the kernel.
func ifaceMAC(ctx context.Context, d *planDevice, i *planIface) (string, error) {
	out, err := run(ctx, d.NS, "cat", "/sys/class/net/"+i.Linux+"/address")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
