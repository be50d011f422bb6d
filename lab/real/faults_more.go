package real

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// The real lab's faults beyond the first five: more ACLs (nftables), the
// routing misconfigurations (vtysh), the DNS service, and the hosts'
// addresses and routes (ip), each by real-lab.md's method.

// aclRules are the nftables rules of an ACL fault (nftACL adds the
// interface match); each counts what it drops, so `nft list ruleset`
// shows the fault at work.
func aclRules(f topology.Fault) []string {
	switch f.Name {
	case "bgp_acl_block":
		return []string{"tcp dport 179 counter drop", "tcp sport 179 counter drop"}
	case "icmp_acl_block":
		return []string{"icmp type echo-request counter drop", "icmpv6 type echo-request counter drop"}
	case "ospf_acl_block":
		return []string{"meta l4proto 89 counter drop"}
	case "http_acl_block":
		return []string{"tcp dport " + f.Param("port") + " counter drop"}
	case "dns_port_blocked":
		return []string{"udp dport 53 counter drop", "tcp dport 53 counter drop"}
	}
	return nil
}

// applyMore injects (on) or clears the faults of this file and of
// faults_more_extra.go; ok is false for a name neither builds.
func (l *Lab) applyMore(ctx context.Context, f topology.Fault, on bool) (ok bool, err error) {
	switch f.Name {
	case "link_flap":
		if on {
			return true, l.startFlap(f)
		}
		return true, l.stopFlap(ctx, f)
	case "dns_port_blocked":
		return true, l.dnsPortBlocked(ctx, f, on)
	case "ospf_area_misconfiguration":
		return true, l.ospfArea(ctx, f, on)
	case "bgp_asn_misconfig":
		return true, l.bgpASN(ctx, f, on)
	case "bgp_missing_route_advertisement":
		return true, l.bgpNetwork(ctx, f, on)
	case "dns_service_down":
		return true, l.dnsService(ctx, f, on)
	case "host_incorrect_gateway", "host_static_blackhole", "host_missing_ip", "host_incorrect_ip", "host_incorrect_netmask", "host_incorrect_dns":
		return true, l.hostFault(ctx, f, on)
	}
	return l.applyExtra(ctx, f, on)
}

// device resolves a device target.
func (l *Lab) device(f topology.Fault) (*planDevice, error) {
	d, ok := l.plan.Device(f.Target)
	if !ok {
		return nil, fmt.Errorf("%s: no device %s in the lab", f.Name, f.Target)
	}
	return d, nil
}

// router resolves a device target that must be a router running proto
// ("ospf", "bgp").
func (l *Lab) router(f topology.Fault, proto string) (*planDevice, error) {
	d, err := l.device(f)
	if err != nil {
		return nil, err
	}
	if !d.Router() || (proto == "bgp" && d.Dev.BGP == nil) || (proto == "ospf" && d.Dev.OSPF == nil) {
		return nil, fmt.Errorf("%s: %s is not a router running %s", f.Name, f.Target, strings.ToUpper(proto))
	}
	return d, nil
}

// dnsPortBlocked drops port 53 on an interface, or on every interface of
// a device target.
func (l *Lab) dnsPortBlocked(ctx context.Context, f topology.Fault, on bool) error {
	var d *planDevice
	ifname := ""
	if strings.Contains(f.Target, ":") {
		pd, i, err := l.target(f)
		if err != nil {
			return err
		}
		d, ifname = pd, i.Linux
	} else {
		pd, err := l.device(f)
		if err != nil {
			return err
		}
		d = pd
	}
	if !on {
		_, err := run(ctx, d.NS, "nft", "delete", "table", "inet", nftTable(f.Name, ifname))
		return err
	}
	return l.nft(ctx, d, nftACL(f.Name, ifname, f.Param("direction"), aclRules(f)))
}

// ospfArea moves an interface to another OSPF area ("no ip ospf area",
// then "ip ospf area A"), and back.
func (l *Lab) ospfArea(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	if !d.Router() || d.Dev.OSPF == nil || i.Topol.OSPF == nil {
		return fmt.Errorf("%s: %s is not an OSPF interface", f.Name, f.Target)
	}
	area := i.Topol.OSPF.Area
	if on {
		area = f.Param("area")
		if area == "" {
			area = "0.0.0.1"
			if i.Topol.OSPF.Area == area || i.Topol.OSPF.Area == "1" {
				area = "0.0.0.2"
			}
		}
		if _, err := netip.ParseAddr(area); err != nil {
			if _, err := strconv.ParseUint(area, 10, 32); err != nil {
				return fmt.Errorf("%s: area %q: want dotted (0.0.0.1) or decimal", f.Name, area)
			}
		}
	}
	if _, err := l.Vtysh(ctx, d.Dev.Name, "configure terminal", "interface "+i.Linux, "no ip ospf area", "ip ospf area "+area); err != nil {
		return err
	}
	if !on {
		return l.fastAdjacencies(ctx, 15*time.Second)
	}
	return nil
}

// bgpASN configures a BGP neighbour with a wrong remote AS, and back.
func (l *Lab) bgpASN(ctx context.Context, f topology.Fault, on bool) error {
	d, err := l.router(f, "bgp")
	if err != nil {
		return err
	}
	nb := d.Dev.BGP.Neighbors
	if len(nb) == 0 {
		return fmt.Errorf("%s: %s has no BGP neighbour", f.Name, f.Target)
	}
	n := nb[0]
	if a := f.Param("neighbor"); a != "" {
		k := slices.IndexFunc(nb, func(n topology.BGPNeighbor) bool { return n.Address == a })
		if k < 0 {
			return fmt.Errorf("%s: %s has no BGP neighbour %s", f.Name, f.Target, a)
		}
		n = nb[k]
	}
	as := uint64(n.RemoteAS)
	if on {
		as += 1000
		if s := f.Param("remote-as"); s != "" {
			if as, err = strconv.ParseUint(s, 10, 32); err != nil || as == 0 {
				return fmt.Errorf("%s: remote-as %q: want 1..4294967295", f.Name, s)
			}
		}
	}
	_, err = l.Vtysh(ctx, d.Dev.Name, "configure terminal", fmt.Sprintf("router bgp %d", d.Dev.BGP.ASN),
		fmt.Sprintf("neighbor %s remote-as %d", n.Address, as))
	if err != nil || on {
		return err
	}
	_, err = l.Vtysh(ctx, d.Dev.Name, "clear bgp "+n.Address)
	return err
}

// bgpNetwork removes a BGP network statement, and puts it back.
func (l *Lab) bgpNetwork(ctx context.Context, f topology.Fault, on bool) error {
	d, err := l.router(f, "bgp")
	if err != nil {
		return err
	}
	nets := d.Dev.BGP.Networks
	if len(nets) == 0 {
		return fmt.Errorf("%s: %s advertises no network", f.Name, f.Target)
	}
	p := nets[0]
	if s := f.Param("prefix"); s != "" {
		p = s
	}
	pfx, err := netip.ParsePrefix(p)
	if err != nil || !slices.ContainsFunc(nets, func(s string) bool { q, e := netip.ParsePrefix(s); return e == nil && q.Masked() == pfx.Masked() }) {
		return fmt.Errorf("%s: %s has no network statement %q (it has %s)", f.Name, f.Target, p, strings.Join(nets, ", "))
	}
	fam, stmt := "ipv4 unicast", "network "+pfx.Masked().String()
	if !pfx.Addr().Is4() {
		fam = "ipv6 unicast"
	}
	if on {
		stmt = "no " + stmt
	}
	_, err = l.Vtysh(ctx, d.Dev.Name, "configure terminal", fmt.Sprintf("router bgp %d", d.Dev.BGP.ASN), "address-family "+fam, stmt)
	return err
}

// dnsService stops the device's unbound, and starts it again.
func (l *Lab) dnsService(ctx context.Context, f topology.Fault, on bool) error {
	d, p, err := l.dnsServer(f)
	if err != nil {
		return err
	}
	if on {
		if p == nil || !p.alive() {
			return fmt.Errorf("%s: %s's DNS service is not running", f.Name, f.Target)
		}
		return p.stop(3 * time.Second)
	}
	if p != nil && p.alive() {
		return nil
	}
	return l.startUnbound(d)
}

// dnsServer returns the target of a DNS fault and its unbound process
// (nil when it was never started).
func (l *Lab) dnsServer(f topology.Fault) (*planDevice, *proc, error) {
	d, err := l.device(f)
	if err != nil {
		return nil, nil, err
	}
	if d.Dev.DNS == nil || d.Dev.DNS.Disabled {
		return nil, nil, fmt.Errorf("%s: %s runs no DNS service", f.Name, f.Target)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return d, l.byName[d.Dev.Name+"/unbound"], nil
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

// hostFault changes a host's addresses or routes with ip, and restores
// those of the plan.
func (l *Lab) hostFault(ctx context.Context, f topology.Fault, on bool) error {
	d, i, err := l.hostIface(f)
	if err != nil {
		return err
	}
	ip := func(args ...string) error {
		_, err := run(ctx, d.NS, append([]string{"ip"}, args...)...)
		return err
	}
	v4 := i.Addrs[0]
	for _, a := range i.Addrs {
		if a.Addr().Is4() {
			v4 = a
			break
		}
	}
	switch f.Name {
	case "host_incorrect_gateway":
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
	case "host_static_blackhole":
		pfxs, err := l.blackholes(f, d)
		if err != nil {
			return err
		}
		verb := "replace"
		if !on {
			verb = "del"
		}
		for _, p := range pfxs {
			if err := ip("route", verb, "blackhole", p.String()); err != nil {
				return err
			}
		}
		return nil
	case "host_incorrect_dns":
		if !on {
			return l.writeResolvConf(d)
		}
		srv := f.Param("server")
		if srv == "" {
			srv = unusedAddr(v4, l.plan).String()
		}
		if _, err := netip.ParseAddr(srv); err != nil {
			return fmt.Errorf("%s: server %q is not an address", f.Name, srv)
		}
		conf := "nameserver " + srv + "\noptions timeout:2 attempts:1\n"
		return os.WriteFile(filepath.Join("/etc/netns", d.NS, "resolv.conf"), []byte(conf), 0o644)
	case "host_incorrect_netmask":
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
	case "host_missing_ip", "host_incorrect_ip":
		if !on {
			return l.restoreHost(ctx, d, i)
		}
		if err := ip("addr", "flush", "dev", i.Linux, "scope", "global"); err != nil {
			return err
		}
		if f.Name == "host_missing_ip" {
			return nil
		}
		a := f.Param("address")
		if a == "" {
			b := v4.Addr().As4()
			a = netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 51, 100, b[3]}), 24).String()
		}
		if _, err := netip.ParsePrefix(a); err != nil {
			return fmt.Errorf("%s: address %q: want CIDR (198.51.100.7/24)", f.Name, a)
		}
		return ip("addr", "add", a, "dev", i.Linux)
	}
	return fmt.Errorf("%s: not a host fault", f.Name)
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

// unusedAddr is an address of prefix p that no device of the plan has,
// counting down from the top of the subnet.
func unusedAddr(p netip.Prefix, pl *plan) netip.Addr {
	used := map[netip.Addr]bool{}
	for _, d := range pl.Devices {
		for _, i := range d.Ifaces {
			for _, a := range i.Addrs {
				used[a.Addr()] = true
			}
		}
	}
	if !p.Addr().Is4() {
		return p.Addr()
	}
	b := p.Masked().Addr().As4()
	base := binary.BigEndian.Uint32(b[:])
	last := base | uint32(1<<(32-p.Bits())-1) // the broadcast address
	for c := last - 1; c > base; c-- {
		var o [4]byte
		binary.BigEndian.PutUint32(o[:], c)
		if a := netip.AddrFrom4(o); !used[a] {
			return a
		}
	}
	return p.Addr()
}
