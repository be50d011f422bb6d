package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// HostCommands lists the commands a simulated host's Exec accepts (ip's
// objects may be abbreviated as ip allows: a, addr, r, ro, n, neigh; a
// trailing "show" or "list" is accepted; -j prints iproute2's JSON, -4
// and -6 select a family).
var HostCommands = []string{
	"ip [-j] [-4|-6] addr", "ip [-j] [-4|-6] route", "ip [-j] [-4|-6] neigh", "ip [-j] link",
	"cat /etc/resolv.conf", "cat /etc/bind/db.ZONE", "hostname",
	"ping [-c N] [-s SIZE] [-t TTL] [-I SOURCE] [-M do] [-4|-6] HOST",
	"traceroute [-m HOPS] [-q N] HOST", "tracepath HOST",
	"dig [@SERVER] NAME [TYPE]",
}

// exec dispatches one command line.
func (h *HostDriver) exec(ctx context.Context, dev topology.Device, w []string, raw string) (string, error) {
	if len(w) == 0 {
		return "", h.unknown(raw)
	}
	switch w[0] {
	case "ip":
		return h.ipCommand(dev, w[1:], raw)
	case "cat":
		if len(w) == 2 && w[1] == "/etc/resolv.conf" {
			return resolvConf(dev), nil
		}
		if len(w) == 2 && strings.HasPrefix(w[1], zoneDir+"db.") {
			if text, ok := zoneFile(dev, strings.TrimPrefix(w[1], zoneDir+"db.")); ok {
				return text, nil
			}
			return "", netproto.Errorf(netproto.CodeConfigIncompatible, "cat: %s: No such file or directory", w[1])
		}
	case "hostname":
		if len(w) == 1 {
			return dev.Name + "\n", nil
		}
	case "ping", "traceroute", "tracepath", "dig":
		req, err := hostDiagRequest(w)
		if err != nil {
			return "", netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", w[0], err)
		}
		res, err := h.Diagnose(ctx, req, nil)
		if err != nil {
			return "", err
		}
		return res.Output, nil
	}
	return "", h.unknown(raw)
}

func (h *HostDriver) unknown(raw string) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible,
		"command %q is not supported on simulated host %s (read-only commands: %s)", truncateCmd(raw), h.name, strings.Join(HostCommands, "; "))
}

func truncateCmd(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// ipObjects maps ip's object abbreviations to the object.
var ipObjects = map[string]string{
	"a": "addr", "ad": "addr", "add": "addr", "addr": "addr", "addre": "addr", "addres": "addr", "address": "addr",
	"r": "route", "ro": "route", "rou": "route", "rout": "route", "route": "route",
	"n": "neigh", "ne": "neigh", "nei": "neigh", "neig": "neigh", "neigh": "neigh", "neighbor": "neigh", "neighbour": "neigh",
	"l": "link", "li": "link", "lin": "link", "link": "link",
}

// ipCommand runs "ip [-j] [-4|-6] OBJECT [show|list]".
func (h *HostDriver) ipCommand(dev topology.Device, w []string, raw string) (string, error) {
	js, fam := false, 0
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		switch w[0] {
		case "-j", "-json":
			js = true
		case "-4":
			fam = 4
		case "-6":
			fam = 6
		default:
			return "", h.unknown(raw)
		}
		w = w[1:]
	}
	if len(w) == 0 || len(w) > 2 || (len(w) == 2 && w[1] != "show" && w[1] != "list" && w[1] != "sh" && w[1] != "ls") {
		return "", h.unknown(raw)
	}
	obj, ok := ipObjects[w[0]]
	if !ok {
		return "", h.unknown(raw)
	}
	links := h.hostLinks(dev)
	switch obj {
	case "addr", "link":
		if obj == "link" {
			for i := range links {
				links[i].addrs = nil
			}
			fam = -1
		}
		if js {
			return ipAddrJSON(links, fam), nil
		}
		return ipAddrText(links, fam), nil
	case "route":
		if fam == 0 {
			fam = 4
		}
		rs := h.kernelRoutes(dev, fam)
		if js {
			return marshalJSON(rs), nil
		}
		return ipRouteText(rs), nil
	default:
		nb := h.neighTable(dev, fam)
		if js {
			return marshalJSON(nb), nil
		}
		return ipNeighText(nb), nil
	}
}

// hostLink is one interface as ip shows it.
type hostLink struct {
	index    int
	name     string
	loopback bool
	adminUp  bool
	operUp   bool
	mtu      int
	mac      string
	// perm is the permanent MAC when mac differs from it (iproute2
	// prints it as permaddr), else empty.
	perm  string
	addrs []netip.Prefix
}

// hostLinks returns lo and the host's interfaces with their state.
func (h *HostDriver) hostLinks(dev topology.Device) []hostLink {
	out := []hostLink{{index: 1, name: "lo", loopback: true, adminUp: true, operUp: true, mtu: 65536, mac: "00:00:00:00:00:00",
		addrs: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8"), netip.MustParsePrefix("::1/128")}}}
	for i, it := range dev.Interfaces {
		st, err := h.lab.net.InterfaceState(h.name, it.Name)
		if err != nil {
			continue
		}
		l := hostLink{index: i + 2, name: it.Name, adminUp: st.AdminUp, operUp: st.OperUp, mtu: st.MTU, mac: strings.ToLower(st.MAC)}
		if p := h.perm[it.Name]; p != "" && p != l.mac {
			l.perm = p
		}
		for _, a := range it.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil {
				l.addrs = append(l.addrs, p)
			}
		}
		if st.OperUp {
			if ll, ok := linkLocal(l.mac); ok {
				l.addrs = append(l.addrs, ll)
			}
		}
		out = append(out, l)
	}
	return out
}

// linkLocal derives the EUI-64 fe80::/64 address of a MAC, as the kernel does.
func linkLocal(mac string) (netip.Prefix, bool) {
	parts := strings.Split(mac, ":")
	if len(parts) != 6 {
		return netip.Prefix{}, false
	}
	var b [16]byte
	b[0], b[1] = 0xfe, 0x80
	var m [6]byte
	for i, p := range parts {
		v, err := strconv.ParseUint(p, 16, 8)
		if err != nil {
			return netip.Prefix{}, false
		}
		m[i] = byte(v)
	}
	copy(b[8:], []byte{m[0] ^ 0x02, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]})
	return netip.PrefixFrom(netip.AddrFrom16(b), 64), true
}

// flags and state of a link as ip prints them.
func (l hostLink) flags() ([]string, string) {
	switch {
	case l.loopback:
		return []string{"LOOPBACK", "UP", "LOWER_UP"}, "UNKNOWN"
	case !l.adminUp:
		return []string{"BROADCAST", "MULTICAST"}, "DOWN"
	case !l.operUp:
		return []string{"NO-CARRIER", "BROADCAST", "MULTICAST", "UP"}, "DOWN"
	}
	return []string{"BROADCAST", "MULTICAST", "UP", "LOWER_UP"}, "UP"
}

func (l hostLink) qdisc() string {
	if l.loopback {
		return "noqueue"
	}
	return "fq_codel"
}

// addrScope is the scope ip prints for an address.
func addrScope(p netip.Prefix) string {
	switch {
	case p.Addr().IsLoopback():
		return "host"
	case p.Addr().IsLinkLocalUnicast():
		return "link"
	}
	return "global"
}

// broadcast is an IPv4 prefix's broadcast address (none for /31 and /32).
func broadcast(p netip.Prefix) (netip.Addr, bool) {
	if !p.Addr().Is4() || p.Bits() >= 31 {
		return netip.Addr{}, false
	}
	b := p.Masked().Addr().As4()
	for i := p.Bits(); i < 32; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	return netip.AddrFrom4(b), true
}

// wantFam tells whether prefix p is shown for family fam (0: both, -1: none).
func wantFam(p netip.Prefix, fam int) bool {
	switch fam {
	case 0:
		return true
	case 4:
		return p.Addr().Is4()
	case 6:
		return p.Addr().Is6()
	}
	return false
}

// ipAddrText renders `ip addr` (fam -1: `ip link`).
func ipAddrText(links []hostLink, fam int) string {
	var b strings.Builder
	for _, l := range links {
		flags, state := l.flags()
		fmt.Fprintf(&b, "%d: %s: <%s> mtu %d qdisc %s state %s group default qlen 1000\n", l.index, l.name, strings.Join(flags, ","), l.mtu, l.qdisc(), state)
		if l.loopback {
			fmt.Fprintf(&b, "    link/loopback %s brd 00:00:00:00:00:00\n", l.mac)
		} else {
			fmt.Fprintf(&b, "    link/ether %s brd ff:ff:ff:ff:ff:ff", l.mac)
			if l.perm != "" {
				b.WriteString(" permaddr " + l.perm)
			}
			b.WriteString("\n")
		}
		for _, p := range l.addrs {
			if !wantFam(p, fam) {
				continue
			}
			if p.Addr().Is4() {
				brd := ""
				if a, ok := broadcast(p); ok && !l.loopback {
					brd = " brd " + a.String()
				}
				fmt.Fprintf(&b, "    inet %s%s scope %s %s\n", p, brd, addrScope(p), l.name)
			} else {
				fmt.Fprintf(&b, "    inet6 %s scope %s \n", p, addrScope(p))
			}
			b.WriteString("       valid_lft forever preferred_lft forever\n")
		}
	}
	return b.String()
}

// ipAddrInfo and ipLinkJSON are iproute2's JSON objects.
type ipAddrInfo struct {
	Family            string `json:"family"`
	Local             string `json:"local"`
	PrefixLen         int    `json:"prefixlen"`
	Broadcast         string `json:"broadcast,omitempty"`
	Scope             string `json:"scope"`
	Label             string `json:"label,omitempty"`
	ValidLifeTime     uint32 `json:"valid_life_time"`
	PreferredLifeTime uint32 `json:"preferred_life_time"`
}

type ipLinkJSON struct {
	IfIndex   int           `json:"ifindex"`
	IfName    string        `json:"ifname"`
	Flags     []string      `json:"flags"`
	MTU       int           `json:"mtu"`
	Qdisc     string        `json:"qdisc"`
	OperState string        `json:"operstate"`
	Group     string        `json:"group"`
	TxQLen    int           `json:"txqlen"`
	LinkType  string        `json:"link_type"`
	Address   string        `json:"address"`
	Broadcast string        `json:"broadcast"`
	PermAddr  string        `json:"permaddr,omitempty"`
	AddrInfo  *[]ipAddrInfo `json:"addr_info,omitempty"`
}

// ipAddrJSON renders `ip -j addr` (fam -1: `ip -j link`).
func ipAddrJSON(links []hostLink, fam int) string {
	out := []ipLinkJSON{}
	for _, l := range links {
		flags, state := l.flags()
		j := ipLinkJSON{IfIndex: l.index, IfName: l.name, Flags: flags, MTU: l.mtu, Qdisc: l.qdisc(), OperState: state,
			Group: "default", TxQLen: 1000, LinkType: "ether", Address: l.mac, Broadcast: "ff:ff:ff:ff:ff:ff", PermAddr: l.perm}
		if l.loopback {
			j.LinkType, j.Broadcast = "loopback", "00:00:00:00:00:00"
		}
		if fam >= 0 {
			ai := []ipAddrInfo{}
			for _, p := range l.addrs {
				if !wantFam(p, fam) {
					continue
				}
				a := ipAddrInfo{Family: "inet6", Local: p.Addr().String(), PrefixLen: p.Bits(), Scope: addrScope(p),
					ValidLifeTime: 4294967295, PreferredLifeTime: 4294967295}
				if p.Addr().Is4() {
					a.Family, a.Label = "inet", l.name
					if bc, ok := broadcast(p); ok && !l.loopback {
						a.Broadcast = bc.String()
					}
				}
				ai = append(ai, a)
			}
			j.AddrInfo = &ai
		}
		out = append(out, j)
	}
	return marshalJSON(out)
}

func marshalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "[]\n"
	}
	return string(b) + "\n"
}

// ipRoute is one kernel route, in iproute2's JSON names.
type ipRoute struct {
	Type     string   `json:"type,omitempty"`
	Dst      string   `json:"dst"`
	Gateway  string   `json:"gateway,omitempty"`
	Dev      string   `json:"dev,omitempty"`
	Protocol string   `json:"protocol"`
	Scope    string   `json:"scope,omitempty"`
	PrefSrc  string   `json:"prefsrc,omitempty"`
	Metric   int      `json:"metric,omitempty"`
	Flags    []string `json:"flags"`
	Pref     string   `json:"pref,omitempty"`
}

// kernelRoutes returns the routes the kernel holds for a family: the
// model's active routes (an unresolvable gateway never makes it into the
// kernel: "Nexthop has invalid gateway"), plus fe80::/64 on up links.
func (h *HostDriver) kernelRoutes(dev topology.Device, fam int) []ipRoute {
	routes, _ := h.lab.net.Routes(h.name, "", fam)
	srcOf := map[string]string{}
	for _, it := range dev.Interfaces {
		for _, a := range it.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil {
				k := p.Masked().String() + "|" + it.Name
				if _, seen := srcOf[k]; !seen {
					srcOf[k] = p.Addr().String()
				}
			}
		}
	}
	out := []ipRoute{}
	for _, r := range routes {
		if !r.Active {
			continue
		}
		e := ipRoute{Dst: r.Prefix.String(), Dev: r.Interface, Flags: []string{}}
		if r.Prefix.Bits() == 0 {
			e.Dst = "default"
		}
		switch {
		case r.Discard:
			e.Type, e.Dev, e.Protocol = "blackhole", "", "static"
		case r.Protocol == "direct":
			e.Protocol, e.Scope = "kernel", "link"
			if fam == 4 {
				e.PrefSrc = srcOf[r.Prefix.String()+"|"+r.Interface]
			}
		default:
			e.Protocol = "static"
			if r.NextHop.IsValid() {
				e.Gateway = r.NextHop.String()
			}
		}
		if fam == 6 {
			e.Scope, e.Pref = "", "medium"
			e.Metric = 1024
			if r.Protocol == "direct" {
				e.Metric = 256
			}
		}
		out = append(out, e)
	}
	if fam == 6 {
		for _, l := range h.hostLinks(dev) {
			if !l.loopback && l.operUp {
				out = append(out, ipRoute{Dst: "fe80::/64", Dev: l.name, Protocol: "kernel", Metric: 256, Flags: []string{}, Pref: "medium"})
			}
		}
	}
	return out
}

// ipRouteText renders `ip route`.
func ipRouteText(rs []ipRoute) string {
	var b strings.Builder
	for _, r := range rs {
		var f []string
		if r.Type != "" {
			f = append(f, r.Type)
		}
		f = append(f, r.Dst)
		if r.Gateway != "" {
			f = append(f, "via", r.Gateway)
		}
		if r.Dev != "" {
			f = append(f, "dev", r.Dev)
		}
		f = append(f, "proto", r.Protocol)
		if r.Scope != "" {
			f = append(f, "scope", r.Scope)
		}
		if r.PrefSrc != "" {
			f = append(f, "src", r.PrefSrc)
		}
		if r.Metric != 0 {
			f = append(f, "metric", strconv.Itoa(r.Metric))
		}
		if r.Pref != "" {
			f = append(f, "pref", r.Pref)
		}
		b.WriteString(strings.Join(f, " ") + "\n")
	}
	return b.String()
}

// ipNeigh is one neighbour entry, in iproute2's JSON names.
type ipNeigh struct {
	Dst    string   `json:"dst"`
	Dev    string   `json:"dev"`
	LLAddr string   `json:"lladdr,omitempty"`
	State  []string `json:"state"`
}

// neighTable returns the host's neighbour table: the model's entries
// (REACHABLE) and, for the addresses the host must resolve (its gateway
// and static next hops, its resolvers) that nobody answers on a
// connected subnet, a FAILED entry.
func (h *HostDriver) neighTable(dev topology.Device, fam int) []ipNeigh {
	var out []ipNeigh
	seen := map[netip.Addr]bool{}
	for _, n := range h.neighborsOf() {
		if !wantFam(netip.PrefixFrom(n.IP, n.IP.BitLen()), fam) {
			continue
		}
		seen[n.IP] = true
		out = append(out, ipNeigh{Dst: n.IP.String(), Dev: n.Interface, LLAddr: strings.ToLower(n.MAC), State: []string{"REACHABLE"}})
	}
	wanted := append([]string{dev.Gateway}, dev.DNSServers...)
	for _, r := range dev.Routes {
		wanted = append(wanted, r.NextHop)
	}
	for _, s := range wanted {
		a, err := netip.ParseAddr(s)
		// A host that is its own resolver (h3 runs the DNS service)
		// reaches itself over lo: no neighbour entry.
		if err != nil || seen[a] || !wantFam(netip.PrefixFrom(a, a.BitLen()), fam) || ownAddress(dev, a) {
			continue
		}
		seen[a] = true
		res, err := h.lab.net.Resolve(h.name, "", a)
		if err != nil || res.Interface == "" || res.MAC != "" || !onLink(dev, res.Interface, a) {
			continue
		}
		out = append(out, ipNeigh{Dst: a.String(), Dev: res.Interface, State: []string{"FAILED"}})
	}
	slices.SortStableFunc(out, func(x, y ipNeigh) int {
		return netip.MustParseAddr(x.Dst).Compare(netip.MustParseAddr(y.Dst))
	})
	if out == nil {
		out = []ipNeigh{}
	}
	return out
}

// onLink tells whether a is in a connected subnet of interface ifn.
func onLink(dev topology.Device, ifn string, a netip.Addr) bool {
	for _, it := range dev.Interfaces {
		if it.Name != ifn {
			continue
		}
		for _, s := range it.Addresses {
			if p, err := netip.ParsePrefix(s); err == nil && p.Contains(a) {
				return true
			}
		}
	}
	return false
}

// ownAddress tells whether a is an address of one of dev's interfaces.
func ownAddress(dev topology.Device, a netip.Addr) bool {
	for _, it := range dev.Interfaces {
		for _, s := range it.Addresses {
			if p, err := netip.ParsePrefix(s); err == nil && p.Addr() == a {
				return true
			}
		}
	}
	return false
}

// ipNeighText renders `ip neigh`.
func ipNeighText(ns []ipNeigh) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.Dst + " dev " + n.Dev)
		if n.LLAddr != "" {
			b.WriteString(" lladdr " + n.LLAddr)
		}
		b.WriteString(" " + strings.Join(n.State, ",") + "\n")
	}
	return b.String()
}

// zoneDir is where a DNS server host keeps its zone files, one
// db.ZONE per zone, as BIND on Debian does.
const zoneDir = "/etc/bind/"

// zoneFile renders the zone file of one of the host's DNS zones, as its
// service serves it (a record made wrong is wrong in the file too).
func zoneFile(dev topology.Device, zone string) (string, bool) {
	if dev.DNS == nil {
		return "", false
	}
	for _, z := range dev.DNS.Zones {
		if !strings.EqualFold(strings.TrimSuffix(z.Name, "."), strings.TrimSuffix(zone, ".")) {
			continue
		}
		origin := strings.TrimSuffix(z.Name, ".") + "."
		var b strings.Builder
		fmt.Fprintf(&b, "$ORIGIN %s\n$TTL 300\n", origin)
		fmt.Fprintf(&b, "@\tIN\tSOA\tns.%s hostmaster.%s 1 3600 900 604800 300\n", origin, origin)
		for _, r := range z.Records {
			ttl := ""
			if r.TTL > 0 {
				ttl = strconv.Itoa(r.TTL)
			}
			fmt.Fprintf(&b, "%s\t%s\tIN\t%s\t%s\n", r.Name, ttl, strings.ToUpper(r.Type), r.Value)
		}
		return b.String(), true
	}
	return "", false
}

// resolvConf renders the host's /etc/resolv.conf.
func resolvConf(dev topology.Device) string {
	var b strings.Builder
	b.WriteString("# Generated by netmcp for simulated host " + dev.Name + "\n")
	for _, s := range dev.DNSServers {
		b.WriteString("nameserver " + s + "\n")
	}
	return b.String()
}

// hostDiagRequest parses ping, traceroute, tracepath and dig arguments
// (the options HostCommands lists) into a diagnostic request.
func hostDiagRequest(w []string) (diag.Request, error) {
	req := diag.Request{Tool: w[0]}
	var rest []string
	for i := 1; i < len(w); i++ {
		a := w[i]
		switch {
		case req.Tool == "dig" && strings.HasPrefix(a, "@"):
			req.Server = a[1:]
		case req.Tool == "dig" || !strings.HasPrefix(a, "-"):
			rest = append(rest, a)
		default:
			used, err := hostOption(&req, w, i)
			if err != nil {
				return req, err
			}
			i += used
		}
	}
	switch {
	case req.Tool == "dig" && len(rest) == 2:
		req.QueryType = strings.ToUpper(rest[1])
	case len(rest) != 1:
		return req, fmt.Errorf("want one destination, got %q", strings.Join(rest, " "))
	}
	req.Destination = rest[0]
	return req, nil
}

// hostNumbers are the numeric options of each tool and the field each sets.
var hostNumbers = map[string]map[string]func(r *diag.Request) *int{
	"ping": {
		"-c": func(r *diag.Request) *int { return &r.Count },
		"-s": func(r *diag.Request) *int { return &r.PacketSize },
		"-t": func(r *diag.Request) *int { return &r.TTL },
	},
	"traceroute": {
		"-m": func(r *diag.Request) *int { return &r.MaxHops },
		"-q": func(r *diag.Request) *int { return &r.Count },
	},
}

// hostOption applies the option w[i] of req's tool and returns how many
// values after it it used.
func hostOption(req *diag.Request, w []string, i int) (int, error) {
	a := w[i]
	switch {
	case a == "-4":
		req.IPv4 = true
		return 0, nil
	case a == "-6":
		req.IPv6 = true
		return 0, nil
	case hostNumbers[req.Tool][a] != nil:
		if i+1 >= len(w) {
			return 1, fmt.Errorf("option %s needs a value", a)
		}
		v, err := strconv.Atoi(w[i+1])
		if err != nil || v < 0 {
			return 1, fmt.Errorf("option %s: bad value %q", a, w[i+1])
		}
		*hostNumbers[req.Tool][a](req) = v
		return 1, nil
	case a == "-I" && req.Tool == "ping":
		if i+1 >= len(w) {
			return 1, fmt.Errorf("option -I needs a value")
		}
		req.Source = w[i+1]
		return 1, nil
	case a == "-M" && req.Tool == "ping":
		if i+1 >= len(w) || w[i+1] != "do" {
			return 1, fmt.Errorf("option -M: only \"do\" is supported")
		}
		req.DontFragment = true
		return 1, nil
	}
	return 0, fmt.Errorf("unsupported option %q", a)
}
