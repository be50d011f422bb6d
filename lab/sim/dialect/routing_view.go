package dialect

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// This file holds what the OSPF and BGP show commands of the dialects
// share: one snapshot of the model's control plane for a device, and the
// figures the renderers derive from it.

// Routing is a device's OSPF and BGP state at one instant: what the
// routing show commands print. They are pure functions of it, so tests
// render constructed states too.
type Routing struct {
	Now    time.Time
	OSPF   netsim.OSPFState
	BGP    netsim.BGPState
	Routes []netsim.BGPRoute // IPv4 BGP table
	RIB    []netsim.Route    // IPv4 RIB of the global table
	// Addrs maps an interface name to its IPv4 addresses (OSPF tables
	// print the interface's address).
	Addrs map[string][]netip.Prefix
	// Prio maps an OSPF interface to its configured DR priority.
	Prio map[string]int
}

// Priority is an interface's configured OSPF priority (default 1).
func (s Routing) Priority(ifn string) int {
	if p, ok := s.Prio[ifn]; ok {
		return p
	}
	return 1
}

// Routing reads the model's control plane of the viewed device.
func (v *View) Routing() (Routing, error) {
	s := Routing{Now: v.Now, Addrs: map[string][]netip.Prefix{}}
	var err error
	if s.OSPF, err = v.Net.OSPF(v.Name); err != nil {
		return s, err
	}
	if s.BGP, err = v.Net.BGP(v.Name); err != nil {
		return s, err
	}
	if s.Routes, err = v.Net.BGPRoutes(v.Name, 4); err != nil {
		return s, err
	}
	if s.RIB, err = v.Net.Routes(v.Name, "", 4); err != nil {
		return s, err
	}
	s.Prio = map[string]int{}
	for _, it := range v.Config.Dev.Interfaces {
		s.Addrs[it.Name], _ = SplitAddrs(it)
		if it.OSPF != nil && it.OSPF.Priority != nil {
			s.Prio[it.Name] = *it.OSPF.Priority
		}
	}
	return s, nil
}

// RoutingCommand adapts a renderer of a routing snapshot to a command.
func RoutingCommand(render func(s Routing, args []string) (string, error)) func(v *View, args []string) (string, error) {
	return func(v *View, args []string) (string, error) {
		s, err := v.Routing()
		if err != nil {
			return "", err
		}
		return render(s, args)
	}
}

// Since is how long ago t was (0 for a zero or future time).
func (s Routing) Since(t time.Time) time.Duration {
	if t.IsZero() || t.After(s.Now) {
		return 0
	}
	return s.Now.Sub(t)
}

// UpDownTime prints a session's time in state as the routers do:
// hh:mm:ss below a day, then 1d02h, then 5w2d.
func UpDownTime(d time.Duration) string {
	switch h := int(d.Hours()); {
	case h < 24:
		return FmtDuration(d)
	case h < 24*7:
		return fmt.Sprintf("%dd%02dh", h/24, h%24)
	default:
		return fmt.Sprintf("%dw%dd", h/(24*7), h/24%7)
	}
}

// BGPMessages derives a session's message counts from the model: the
// OPEN and its KEEPALIVE, one UPDATE when prefixes were exchanged, and a
// KEEPALIVE per interval since the session came up.
func (s Routing) BGPMessages(n netsim.BGPNeighbor) (rcvd, sent int) {
	if n.State != netsim.BGPEstablished {
		return 0, 0
	}
	ka := n.Keepalive
	if ka <= 0 {
		ka = 60
	}
	keep := int(s.Since(n.Since) / (time.Duration(ka) * time.Second))
	rcvd, sent = 2+keep, 2+keep
	if n.PrefixesReceived > 0 {
		rcvd++
	}
	if n.PrefixesSent > 0 {
		sent++
	}
	return rcvd, sent
}

// TableVersion is the BGP table's version: one per path installed, after
// the initial one.
func (s Routing) TableVersion() int { return len(s.Routes) + 1 }

// OSPFDeadDue is the seconds left on a neighbour's dead timer: the dead
// interval less the time since its last hello (hellos every dead/4).
func (s Routing) OSPFDeadDue(n netsim.OSPFNeighbor) int {
	dead := n.DeadSeconds
	if dead <= 0 {
		dead = 40
	}
	hello := max(dead/4, 1)
	return dead - int(s.Since(n.Since)/time.Second)%hello
}

// OSPFIface returns the OSPF interface named name, if any.
func (s Routing) OSPFIface(name string) (netsim.OSPFInterface, bool) {
	for _, i := range s.OSPF.Interfaces {
		if i.Interface == name {
			return i, true
		}
	}
	return netsim.OSPFInterface{}, false
}

// IfAddr is an interface's first IPv4 address (its OSPF address).
func (s Routing) IfAddr(oi netsim.OSPFInterface) netip.Prefix {
	if oi.Address.IsValid() {
		return oi.Address
	}
	if l := s.Addrs[oi.Interface]; len(l) > 0 {
		return l[0]
	}
	return netip.Prefix{}
}

// NeighborsOn lists the OSPF neighbours of one interface.
func (s Routing) NeighborsOn(ifn string) []netsim.OSPFNeighbor {
	var out []netsim.OSPFNeighbor
	for _, n := range s.OSPF.Neighbors {
		if n.Interface == ifn {
			out = append(out, n)
		}
	}
	return out
}

// PeerArg parses an optional neighbour address argument followed by
// "verbose" or "detail"; usage is the command's form, for errors.
func PeerArg(args []string, dialect, usage string) (netip.Addr, []string, error) {
	var rest []string
	var addr netip.Addr
	for _, a := range args {
		if x, err := netip.ParseAddr(a); err == nil && !addr.IsValid() {
			addr = x
			continue
		}
		rest = append(rest, a)
	}
	for _, r := range rest {
		if r != "verbose" && r != "detail" {
			return addr, rest, Errorf("unexpected %q (%s: %s)", r, dialect, usage)
		}
	}
	return addr, rest, nil
}

// FindPeer returns the configured peer of address a.
func (s Routing) FindPeer(a netip.Addr, dialect string) (netsim.BGPNeighbor, error) {
	for _, n := range s.BGP.Neighbors {
		if n.Address == a {
			return n, nil
		}
	}
	return netsim.BGPNeighbor{}, Errorf("no BGP neighbor %s (%s)", a, dialect)
}

// Peers returns every peer, or only the one of address a when valid.
func (s Routing) Peers(a netip.Addr, dialect string) ([]netsim.BGPNeighbor, error) {
	if !a.IsValid() {
		return s.BGP.Neighbors, nil
	}
	n, err := s.FindPeer(a, dialect)
	if err != nil {
		return nil, err
	}
	return []netsim.BGPNeighbor{n}, nil
}

// ASPath writes an AS path with the origin code.
func ASPath(r netsim.BGPRoute) string {
	var parts []string
	for _, a := range r.ASPath {
		parts = append(parts, fmt.Sprint(a))
	}
	o := map[string]string{"IGP": "i", "EGP": "e", "incomplete": "?"}[r.Origin]
	if o == "" {
		o = "?"
	}
	if len(parts) == 0 {
		return o
	}
	return strings.Join(parts, " ") + " " + o
}

// BGPStatus is the status codes of a path: "*>" valid and best.
func BGPStatus(r netsim.BGPRoute) string {
	s := ""
	if r.Valid {
		s += "*"
	} else {
		s += " "
	}
	if r.Best {
		s += ">"
	} else {
		s += " "
	}
	return s
}

// CmpPos is v when positive, else def.
func CmpPos(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
