package sim

import (
	"cmp"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device/clipipe"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// cliCommand is one operational command of a dialect. Keywords match in
// full or, as on the real CLIs, by a prefix of at least two letters.
type cliCommand struct {
	words []string
	run   func(v *view, args []string) (string, error)
}

// view is what one command reads: the device, its configuration and the
// model at one instant.
type view struct {
	ctx context.Context
	d   *Driver
	c   devConfig
	now time.Time
}

// Exec runs one operational command of the device's dialect. No command
// ever reaches a shell: each is parsed here and rendered from the model.
func (d *Driver) Exec(ctx context.Context, command string) (string, error) {
	if strings.ContainsAny(command, "\r\n;") {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "one command per call (%s)", d.dialect)
	}
	cmd, filter, err := clipipe.Split(command)
	if err != nil {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "%v (%s)", err, d.dialect)
	}
	words := strings.Fields(cmd)
	if len(words) == 0 {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "empty command (%s)", d.dialect)
	}
	table := xrCommands
	if d.dialect == DialectVRP {
		table = vrpCommands
	}
	c, args := matchCommand(table, words)
	if c == nil {
		if d.isConfigCommand(cmd) {
			return "", netproto.Errorf(netproto.CodeConfigIncompatible,
				"%q is a configuration command of %s: use network.cli.configure", cmd, d.dialect)
		}
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unknown command %q for CLI dialect %s", cmd, d.dialect)
	}
	d.tel.addLoad(d.lab.opts.Now(), loadExec)
	v := &view{ctx: ctx, d: d, c: d.config(), now: d.lab.opts.Now()}
	out, err := c.run(v, args)
	if err != nil {
		return "", err
	}
	return filter.Apply(out), nil
}

func matchCommand(table []cliCommand, words []string) (*cliCommand, []string) {
	for pass := 0; pass < 2; pass++ {
		for i := range table {
			c := &table[i]
			if len(words) < len(c.words) {
				continue
			}
			ok := true
			for j, w := range c.words {
				t := strings.ToLower(words[j])
				if t == w || (pass == 1 && len(t) >= 2 && strings.HasPrefix(w, t)) {
					continue
				}
				ok = false
				break
			}
			if ok {
				return c, words[len(c.words):]
			}
		}
	}
	return nil, nil
}

// isConfigCommand reports whether command parses as a configuration line.
func (d *Driver) isConfigCommand(command string) bool {
	switch strings.ToLower(strings.Fields(command)[0]) {
	case "configure", "conf", "system-view", "sys", "commit", "config":
		return true
	}
	scratch := d.config().clone()
	s, err := newSession(&scratch, d.dialect)
	if err != nil {
		return false
	}
	return s.apply([]string{command}) == nil
}

// opts holds the options of a probe or table command.
type opts struct {
	vrf, source string
	count, size int
	df, v6      bool
	maxHops     int // traceroute's max TTL
	ttl         int // ping's TTL
	rest        []string
}

// parseOpts reads the options that ping, traceroute, arp and route
// commands share across dialects (VRP's -a/-c/-s/-vpn-instance and the
// IOS/XR keywords vrf/source/repeat/count/size).
func parseOpts(args []string, dialect string) (opts, error) {
	var o opts
	for i := 0; i < len(args); i++ {
		a := strings.ToLower(args[i])
		val := func() (string, error) {
			if i+1 >= len(args) {
				return "", netproto.Errorf(netproto.CodeConfigIncompatible, "option %s needs a value (%s)", args[i], dialect)
			}
			i++
			return args[i], nil
		}
		num := func() (int, error) {
			s, err := val()
			if err != nil {
				return 0, err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return 0, netproto.Errorf(netproto.CodeConfigIncompatible, "option %s needs a number, not %q (%s)", args[i-1], s, dialect)
			}
			return n, nil
		}
		var err error
		switch a {
		case "vrf", "-vpn-instance", "vpn-instance":
			o.vrf, err = val()
		case "source", "-a":
			o.source, err = val()
		case "repeat", "count", "-c":
			o.count, err = num()
		case "size", "-s":
			o.size, err = num()
		case "-m", "maxttl", "max-ttl":
			o.maxHops, err = num()
		case "-h", "ttl": // VRP ping -h TTL; the "ttl" keyword
			o.ttl, err = num()
		case "timeout", "-t", "-w", "interval", "-i":
			_, err = val()
		case "-f", "df-bit", "donnotfrag":
			o.df = true
		case "ipv6", "-6":
			o.v6 = true
		case "ipv4", "ip", "-4":
		default:
			o.rest = append(o.rest, args[i])
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// resolveHost turns an address or a lab name (r3, r3.lab.example) into an address.
func (d *Driver) resolveHost(s string, v6 bool) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a, true
	}
	name := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(s), "."), "."+labDomain)
	for _, dev := range d.lab.devicesNamed(name) {
		if a, ok := deviceAddress(dev, v6); ok {
			return a, true
		}
	}
	a, _ := resolveViaDNS(d.lab.net, d.name, "", d.config().dev.DNSServers, s, v6)
	return a, a.IsValid()
}

// resolveIf finds an interface by full or abbreviated name (Gi0/0/0/0,
// GE0/0/0, Lo0, "GigabitEthernet 0/0/0").
func (v *view) resolveIf(args []string) (string, bool) {
	want := strings.ToLower(strings.Join(args, ""))
	for _, it := range v.c.dev.Interfaces {
		if strings.ToLower(it.Name) == want {
			return it.Name, true
		}
	}
	wa, wn := splitIfName(want)
	if full, ok := ifAliases[wa]; ok {
		wa = full
	}
	for _, it := range v.c.dev.Interfaces {
		a, n := splitIfName(strings.ToLower(it.Name))
		if wa != "" && strings.HasPrefix(a, wa) && n == wn {
			return it.Name, true
		}
	}
	return "", false
}

// ifNames returns the interface an "interfaces" command names, or every
// interface when it names none.
func (v *view) ifNames(args []string) ([]string, error) {
	if len(args) > 0 {
		n, ok := v.resolveIf(args)
		if !ok {
			return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "no interface %q on %s (%s)", strings.Join(args, " "), v.d.name, v.d.dialect)
		}
		return []string{n}, nil
	}
	names := make([]string, 0, len(v.c.dev.Interfaces))
	for _, it := range v.c.dev.Interfaces {
		names = append(names, it.Name)
	}
	return names, nil
}

var ifAliases = map[string]string{"ge": "gigabitethernet", "xge": "xgigabitethernet", "vlanif": "vlan", "eth": "ethernet"}

func splitIfName(s string) (alpha, rest string) {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// shortIfName abbreviates an interface name as the dialect's tables do.
func shortIfName(dialect, name string) string {
	a, n := splitIfName(name)
	l := strings.ToLower(a)
	if dialect == DialectVRP {
		switch l {
		case "gigabitethernet":
			return "GE" + n
		case "xgigabitethernet":
			return "XGE" + n
		}
		return name
	}
	switch {
	case l == "gigabitethernet":
		return "Gi" + n
	case l == "tengige":
		return "Te" + n
	case l == "loopback":
		return "Lo" + n
	case l == "bundle-ether":
		return "BE" + n
	}
	return name
}

// macDotted writes a MAC as 0050.56ab.cdef (XR) or 0050-56ab-cdef (VRP).
func macDotted(mac string, sep string) string {
	h := strings.ToLower(strings.NewReplacer(":", "", "-", "", ".", "").Replace(mac))
	if len(h) != 12 {
		return mac
	}
	return h[0:4] + sep + h[4:8] + sep + h[8:12]
}

// arpEntry is one line of an ARP table.
type arpEntry struct {
	ip   netip.Addr
	mac  string
	ifn  string
	vrf  string
	kind string // interface, dynamic, static
	age  time.Duration
}

// arpTable lists the IPv4 ARP entries of a VRF ("*" = all): the device's
// own addresses and the model's neighbours.
func (v *view) arpTable(vrf string) []arpEntry {
	var out []arpEntry
	for _, it := range v.c.dev.Interfaces {
		if vrf != "*" && it.VRF != vrf {
			continue
		}
		st, err := v.d.lab.net.InterfaceState(v.d.name, it.Name)
		if err != nil || !st.OperUp || guessType(it.Name) == "softwareLoopback" || strings.EqualFold(it.Type, "softwareLoopback") {
			continue
		}
		v4, _ := splitAddrs(it)
		for _, p := range v4 {
			out = append(out, arpEntry{ip: p.Addr(), mac: st.MAC, ifn: it.Name, vrf: it.VRF, kind: "interface"})
		}
	}
	neigh, _ := v.d.lab.net.Neighbors(v.d.name)
	for i, n := range neigh {
		if !n.IP.Is4() || (vrf != "*" && n.VRF != vrf) {
			continue
		}
		kind := "static"
		if n.Dynamic {
			kind = "dynamic"
		}
		// A deterministic age, as if each entry was refreshed at its own time.
		age := time.Duration((v.now.Unix()+int64(i)*97)%1200) * time.Second
		out = append(out, arpEntry{ip: n.IP, mac: n.MAC, ifn: n.Interface, vrf: n.VRF, kind: kind, age: age})
	}
	slices.SortFunc(out, func(a, b arpEntry) int { return a.ip.Compare(b.ip) })
	return out
}

// arpShort prints the entries for one address as "IP  MAC  INTERFACE"
// lines (the form the MCP-NET draft's section 8.3 shows), no header and no
// trailing newline.
func arpShort(entries []arpEntry, addr netip.Addr) string {
	var lines []string
	for _, e := range entries {
		if e.ip == addr {
			lines = append(lines, e.ip.String()+"  "+strings.ToLower(e.mac)+"  "+e.ifn)
		}
	}
	return strings.Join(lines, "\n")
}

// arpQuery parses "[vrf V] [ADDRESS]" and answers the short form when an
// address is given; full calls the dialect's table renderer otherwise.
func (v *view) arpQuery(args []string, full func(vrf string, entries []arpEntry) string) (string, error) {
	o, err := parseOpts(args, v.d.dialect)
	if err != nil {
		return "", err
	}
	vrf := o.vrf
	if vrf == "all" {
		vrf = "*"
	}
	if err := v.checkVRF(vrf); err != nil {
		return "", err
	}
	var addr netip.Addr
	for _, r := range o.rest {
		a, err := netip.ParseAddr(r)
		if err != nil {
			if strings.EqualFold(r, "all") {
				if o.vrf == "" {
					vrf = "*"
				}
				continue
			}
			return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q in ARP query (%s)", r, v.d.dialect)
		}
		addr = a
	}
	entries := v.arpTable(vrf)
	if addr.IsValid() {
		return arpShort(entries, addr), nil
	}
	return full(vrf, entries), nil
}

// checkVRF fails for a VRF the device does not have.
func (v *view) checkVRF(vrf string) error {
	if vrf == "" || vrf == "*" || vrf == "default" {
		return nil
	}
	for _, x := range v.c.dev.VRFs {
		if x.Name == vrf {
			return nil
		}
	}
	return netproto.Errorf(netproto.CodeConfigIncompatible, "VRF %q is not configured on %s", vrf, v.d.name)
}

// ifState returns the model's state of an interface.
func (v *view) ifState(name string) netsim.IfState {
	st, _ := v.d.lab.net.InterfaceState(v.d.name, name)
	return st
}

// probe builds a netsim probe request from a ping or traceroute command's arguments.
func (v *view) probe(args []string) (netsim.ProbeRequest, error) {
	o, err := parseOpts(args, v.d.dialect)
	if err != nil {
		return netsim.ProbeRequest{}, err
	}
	if len(o.rest) != 1 {
		return netsim.ProbeRequest{}, netproto.Errorf(netproto.CodeConfigIncompatible, "expected one destination, got %q (%s)", strings.Join(o.rest, " "), v.d.dialect)
	}
	vrf := o.vrf
	if vrf == "default" {
		vrf = ""
	}
	if err := v.checkVRF(vrf); err != nil {
		return netsim.ProbeRequest{}, err
	}
	dst, ok := v.d.resolveHost(o.rest[0], o.v6)
	if !ok {
		return netsim.ProbeRequest{}, netproto.Errorf(netproto.CodeConfigIncompatible, "cannot resolve host %q (%s)", o.rest[0], v.d.dialect)
	}
	src := o.source
	if src != "" {
		if name, ok := v.resolveIf([]string{src}); ok {
			src = name
		}
	}
	v.d.tel.addLoad(v.now, loadProbe)
	return netsim.ProbeRequest{From: v.d.name, VRF: vrf, Source: src, Destination: dst, Count: o.count,
		Size: o.size, DontFragment: o.df, TTL: o.ttl, MaxHops: cmp.Or(o.maxHops, o.ttl)}, nil
}

// uptime formats the time since the lab started.
func (v *view) uptime() time.Duration { return v.now.Sub(v.d.started) }

func msInt(d time.Duration) int { return int((d + 500*time.Microsecond) / time.Millisecond) }

// pingStats summarises replies: received and min/avg/max in whole ms.
func pingStats(o netsim.PingOutcome) (recv, lo, avg, hi int) {
	lo = -1
	sum := 0
	for _, r := range o.Replies {
		if r.Kind != netsim.ResultReply {
			continue
		}
		ms := msInt(r.RTT)
		recv++
		sum += ms
		if lo < 0 || ms < lo {
			lo = ms
		}
		hi = max(hi, ms)
	}
	if recv > 0 {
		avg = sum / recv
	} else {
		lo = 0
	}
	return recv, lo, avg, hi
}

func fmtDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}
