package dialect

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// View is what one operational command reads: the device, its
// configuration and the network model at one instant.
type View struct {
	Ctx context.Context
	// Name is the device's name in the lab, Dialect its dialect's name.
	Name, Dialect string
	Config        Config
	Now           time.Time
	Net           *netsim.Network
	Device        Device
}

// Device is what commands read from the simulated device beyond its
// configuration and the network model.
type Device interface {
	// Started is when the device booted.
	Started() time.Time
	// LastChange is when an interface last changed state.
	LastChange(ifn string) time.Time
	// LastCommit is when and by whom the running configuration last changed.
	LastCommit() (time.Time, string)
	// StartupText is the startup configuration in the device's dialect.
	StartupText() (string, error)
	// Log is the device's log buffer.
	Log() LogBuffer
	// Slots are the device's slots ("0/RP0", ...), the first the main one.
	Slots() []string
	// CPU and Memory are a slot's figures ("" = the device's).
	CPU(slot string) (device.CPUStats, error)
	Memory(slot string) (device.MemoryStats, error)
	// ResolveHost turns an address or a host name into an address.
	ResolveHost(host string, v6 bool) (netip.Addr, bool)
	// Probing adds the CPU load of a probe sent at t.
	Probing(t time.Time)
	// ClearCounters resets the counters of an interface ("" = all) and
	// logs it.
	ClearCounters(ctx context.Context, ifname string) error
}

// LogBuffer is a device's log buffer: its entries, oldest first, how many
// it holds and overwrote, and its size.
type LogBuffer struct {
	Entries            []device.LogEntry
	Count, Overwritten int
	Capacity           int
}

// Errorf is the error of a command the device refuses (MCP-NET -32084).
func Errorf(format string, args ...any) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, format, args...)
}

// Uptime is the time since the device booted.
func (v *View) Uptime() time.Duration { return v.Now.Sub(v.Device.Started()) }

// IfState returns the model's state of an interface.
func (v *View) IfState(name string) netsim.IfState {
	st, _ := v.Net.InterfaceState(v.Name, name)
	return st
}

// Opts holds the options of a probe or table command.
type Opts struct {
	VRF, Source string
	Count, Size int
	DF, V6      bool
	MaxHops     int // traceroute's max TTL
	TTL         int // ping's TTL
	Rest        []string
}

// ParseOpts reads the options that ping, traceroute, arp and route
// commands share across dialects (VRP's -a/-c/-s/-vpn-instance and the
// IOS/XR keywords vrf/source/repeat/count/size). dialect names the CLI in
// errors.
func ParseOpts(args []string, dialect string) (Opts, error) {
	var o Opts
	for i := 0; i < len(args); i++ {
		a := strings.ToLower(args[i])
		val := func() (string, error) {
			if i+1 >= len(args) {
				return "", Errorf("option %s needs a value (%s)", args[i], dialect)
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
				return 0, Errorf("option %s needs a number, not %q (%s)", args[i-1], s, dialect)
			}
			return n, nil
		}
		var err error
		switch a {
		case "vrf", "-vpn-instance", "vpn-instance":
			o.VRF, err = val()
		case "source", "-a":
			o.Source, err = val()
		case "repeat", "count", "-c":
			o.Count, err = num()
		case "size", "-s":
			o.Size, err = num()
		case "-m", "maxttl", "max-ttl":
			o.MaxHops, err = num()
		case "-h", "ttl": // VRP ping -h TTL; the "ttl" keyword
			o.TTL, err = num()
		case "timeout", "-t", "-w", "interval", "-i":
			_, err = val()
		case "-f", "df-bit", "donnotfrag":
			o.DF = true
		case "ipv6", "-6":
			o.V6 = true
		case "ipv4", "ip", "-4":
		default:
			o.Rest = append(o.Rest, args[i])
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// ResolveIf finds an interface by full or abbreviated name (Gi0/0/0/0,
// GE0/0/0, Lo0, "GigabitEthernet 0/0/0").
func (v *View) ResolveIf(args []string) (string, bool) {
	want := strings.ToLower(strings.Join(args, ""))
	for _, it := range v.Config.Dev.Interfaces {
		if strings.ToLower(it.Name) == want {
			return it.Name, true
		}
	}
	wa, wn := SplitIfName(want)
	if full, ok := ifAliases[wa]; ok {
		wa = full
	}
	for _, it := range v.Config.Dev.Interfaces {
		a, n := SplitIfName(strings.ToLower(it.Name))
		if wa != "" && strings.HasPrefix(a, wa) && n == wn {
			return it.Name, true
		}
	}
	return "", false
}

// IfNames returns the interface an "interfaces" command names, or every
// interface when it names none.
func (v *View) IfNames(args []string) ([]string, error) {
	if len(args) > 0 {
		n, ok := v.ResolveIf(args)
		if !ok {
			return nil, Errorf("no interface %q on %s (%s)", strings.Join(args, " "), v.Name, v.Dialect)
		}
		return []string{n}, nil
	}
	names := make([]string, 0, len(v.Config.Dev.Interfaces))
	for _, it := range v.Config.Dev.Interfaces {
		names = append(names, it.Name)
	}
	return names, nil
}

var ifAliases = map[string]string{"ge": "gigabitethernet", "xge": "xgigabitethernet", "vlanif": "vlan", "eth": "ethernet"}

// SplitIfName splits an interface name before its first digit.
func SplitIfName(s string) (alpha, rest string) {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// MacDotted writes a MAC as 0050.56ab.cdef (sep ".", XR) or 0050-56ab-cdef
// (sep "-", VRP).
func MacDotted(mac string, sep string) string {
	h := strings.ToLower(strings.NewReplacer(":", "", "-", "", ".", "").Replace(mac))
	if len(h) != 12 {
		return mac
	}
	return h[0:4] + sep + h[4:8] + sep + h[8:12]
}

// ARPEntry is one line of an ARP table.
type ARPEntry struct {
	IP   netip.Addr
	MAC  string
	If   string
	VRF  string
	Kind string // interface, dynamic, static
	Age  time.Duration
}

// ARPTable lists the IPv4 ARP entries of a VRF ("*" = all): the device's
// own addresses and the model's neighbours.
func (v *View) ARPTable(vrf string) []ARPEntry {
	var out []ARPEntry
	for _, it := range v.Config.Dev.Interfaces {
		if vrf != "*" && it.VRF != vrf {
			continue
		}
		st, err := v.Net.InterfaceState(v.Name, it.Name)
		if err != nil || !st.OperUp || GuessType(it.Name) == "softwareLoopback" || strings.EqualFold(it.Type, "softwareLoopback") {
			continue
		}
		v4, _ := SplitAddrs(it)
		for _, p := range v4 {
			out = append(out, ARPEntry{IP: p.Addr(), MAC: st.MAC, If: it.Name, VRF: it.VRF, Kind: "interface"})
		}
	}
	neigh, _ := v.Net.Neighbors(v.Name)
	for i, n := range neigh {
		if !n.IP.Is4() || (vrf != "*" && n.VRF != vrf) {
			continue
		}
		kind := "static"
		if n.Dynamic {
			kind = "dynamic"
		}
		// A deterministic age, as if each entry was refreshed at its own time.
		age := time.Duration((v.Now.Unix()+int64(i)*97)%1200) * time.Second
		out = append(out, ARPEntry{IP: n.IP, MAC: n.MAC, If: n.Interface, VRF: n.VRF, Kind: kind, Age: age})
	}
	slices.SortFunc(out, func(a, b ARPEntry) int { return a.IP.Compare(b.IP) })
	return out
}

// arpShort prints the entries for one address as "IP  MAC  INTERFACE"
// lines (the form the MCP-NET draft's section 8.3 shows), no header and no
// trailing newline.
func arpShort(entries []ARPEntry, addr netip.Addr) string {
	var lines []string
	for _, e := range entries {
		if e.IP == addr {
			lines = append(lines, e.IP.String()+"  "+strings.ToLower(e.MAC)+"  "+e.If)
		}
	}
	return strings.Join(lines, "\n")
}

// ARPQuery parses "[vrf V] [ADDRESS]" and answers the short form when an
// address is given; full renders the dialect's table otherwise.
func (v *View) ARPQuery(args []string, full func(vrf string, entries []ARPEntry) string) (string, error) {
	o, err := ParseOpts(args, v.Dialect)
	if err != nil {
		return "", err
	}
	vrf := o.VRF
	if vrf == "all" {
		vrf = "*"
	}
	if err := v.CheckVRF(vrf); err != nil {
		return "", err
	}
	var addr netip.Addr
	for _, r := range o.Rest {
		a, err := netip.ParseAddr(r)
		if err != nil {
			if strings.EqualFold(r, "all") {
				if o.VRF == "" {
					vrf = "*"
				}
				continue
			}
			return "", Errorf("unexpected %q in ARP query (%s)", r, v.Dialect)
		}
		addr = a
	}
	entries := v.ARPTable(vrf)
	if addr.IsValid() {
		return arpShort(entries, addr), nil
	}
	return full(vrf, entries), nil
}

// CheckVRF fails for a VRF the device does not have.
func (v *View) CheckVRF(vrf string) error {
	if vrf == "" || vrf == "*" || vrf == "default" {
		return nil
	}
	for _, x := range v.Config.Dev.VRFs {
		if x.Name == vrf {
			return nil
		}
	}
	return Errorf("VRF %q is not configured on %s", vrf, v.Name)
}

// Probe builds a netsim probe request from a ping or traceroute command's arguments.
func (v *View) Probe(args []string) (netsim.ProbeRequest, error) {
	o, err := ParseOpts(args, v.Dialect)
	if err != nil {
		return netsim.ProbeRequest{}, err
	}
	if len(o.Rest) != 1 {
		return netsim.ProbeRequest{}, Errorf("expected one destination, got %q (%s)", strings.Join(o.Rest, " "), v.Dialect)
	}
	vrf := o.VRF
	if vrf == "default" {
		vrf = ""
	}
	if err := v.CheckVRF(vrf); err != nil {
		return netsim.ProbeRequest{}, err
	}
	dst, ok := v.Device.ResolveHost(o.Rest[0], o.V6)
	if !ok {
		return netsim.ProbeRequest{}, Errorf("cannot resolve host %q (%s)", o.Rest[0], v.Dialect)
	}
	src := o.Source
	if src != "" {
		if name, ok := v.ResolveIf([]string{src}); ok {
			src = name
		}
	}
	v.Device.Probing(v.Now)
	return netsim.ProbeRequest{From: v.Name, VRF: vrf, Source: src, Destination: dst, Count: o.Count,
		Size: o.Size, DontFragment: o.DF, TTL: o.TTL, MaxHops: cmp.Or(o.MaxHops, o.TTL)}, nil
}

// OwnAddrIn is the device's address on ifn inside p (the next hop VRP
// shows for a direct route), or the loopback address of p's family.
func (v *View) OwnAddrIn(ifn string, p netip.Prefix) string {
	if it := v.Config.Iface(ifn, false); it != nil {
		v4, v6 := SplitAddrs(*it)
		for _, a := range append(v4, v6...) {
			if p.Contains(a.Addr()) {
				return a.Addr().String()
			}
		}
	}
	if p.Addr().Is4() {
		return "127.0.0.1"
	}
	return "::1"
}

// LLDPNeighbors returns the device's neighbours, of one interface when
// args name one ("interface X").
func (v *View) LLDPNeighbors(args []string) ([]netsim.LLDPNeighbor, error) {
	nbs, err := v.Net.LLDPNeighbors(v.Name)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nbs, nil
	}
	if !strings.EqualFold(args[0], "interface") || len(args) < 2 {
		return nil, Errorf("unexpected %q (want interface NAME) (%s)", strings.Join(args, " "), v.Dialect)
	}
	name, ok := v.ResolveIf(args[1:])
	if !ok {
		return nil, Errorf("no interface %q on %s (%s)", strings.Join(args[1:], " "), v.Name, v.Dialect)
	}
	var out []netsim.LLDPNeighbor
	for _, nb := range nbs {
		if nb.LocalInterface == name {
			out = append(out, nb)
		}
	}
	return out, nil
}

// LLDPExpires is the time left before a neighbour's information expires:
// each neighbour advertises every 30 s, at its own phase, with a TTL of 120 s.
func (v *View) LLDPExpires(nb netsim.LLDPNeighbor) int {
	h := fnv.New32a()
	h.Write([]byte(nb.SystemName + "/" + nb.PortID))
	return nb.TTL - int((uint64(v.Now.Unix())+uint64(h.Sum32()))%30)
}

// ClearCounters runs a clear command: args name one interface (in full,
// abbreviated or split as "GigabitEthernet 0/0/0/0"), or none or "all"
// for every interface. It returns the interface cleared ("" for all).
func (v *View) ClearCounters(args []string) (string, error) {
	ifname := ""
	if len(args) > 0 && !(len(args) == 1 && strings.EqualFold(args[0], "all")) {
		n, ok := v.ResolveIf(args)
		if !ok {
			return "", Errorf("no interface %q on %s (%s)", strings.Join(args, " "), v.Name, v.Dialect)
		}
		ifname = n
	}
	return ifname, v.Device.ClearCounters(v.Ctx, ifname)
}

// MsInt is d in whole milliseconds, rounded.
func MsInt(d time.Duration) int { return int((d + 500*time.Microsecond) / time.Millisecond) }

// PingStats summarises replies: received and min/avg/max in whole ms.
func PingStats(o netsim.PingOutcome) (recv, lo, avg, hi int) {
	lo = -1
	sum := 0
	for _, r := range o.Replies {
		if r.Kind != netsim.ResultReply {
			continue
		}
		ms := MsInt(r.RTT)
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

// FmtDuration prints d as hh:mm:ss.
func FmtDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// UpDown is "up" or "down".
func UpDown(up bool) string {
	if up {
		return "up"
	}
	return "down"
}
