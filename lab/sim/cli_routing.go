package sim

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// This file holds what the OSPF and BGP show/display commands of both
// dialects share: one snapshot of the model's control plane for a device,
// and the figures the renderers derive from it.

// routingSnap is a device's OSPF and BGP state at one instant: what the
// renderers of cli_routing_vrp.go and cli_routing_xr.go print. They are
// pure functions of it, so tests render constructed states too.
type routingSnap struct {
	now    time.Time
	ospf   netsim.OSPFState
	bgp    netsim.BGPState
	routes []netsim.BGPRoute // IPv4 BGP table
	rib    []netsim.Route    // IPv4 RIB of the global table
	// addrs maps an interface name to its IPv4 addresses (OSPF tables
	// print the interface's address).
	addrs map[string][]netip.Prefix
	// prio maps an OSPF interface to its configured DR priority.
	prio map[string]int
}

// priority is an interface's configured OSPF priority (default 1).
func (s routingSnap) priority(ifn string) int {
	if p, ok := s.prio[ifn]; ok {
		return p
	}
	return 1
}

// routingSnapshot reads the model's control plane of the viewed device.
func (v *view) routingSnapshot() (routingSnap, error) {
	s := routingSnap{now: v.now, addrs: map[string][]netip.Prefix{}}
	var err error
	if s.ospf, err = v.d.lab.net.OSPF(v.d.name); err != nil {
		return s, err
	}
	if s.bgp, err = v.d.lab.net.BGP(v.d.name); err != nil {
		return s, err
	}
	if s.routes, err = v.d.lab.net.BGPRoutes(v.d.name, 4); err != nil {
		return s, err
	}
	if s.rib, err = v.d.lab.net.Routes(v.d.name, "", 4); err != nil {
		return s, err
	}
	s.prio = map[string]int{}
	for _, it := range v.c.dev.Interfaces {
		s.addrs[it.Name], _ = splitAddrs(it)
		if it.OSPF != nil && it.OSPF.Priority != nil {
			s.prio[it.Name] = *it.OSPF.Priority
		}
	}
	return s, nil
}

// snapCommand adapts a renderer of a routing snapshot to a command.
func snapCommand(render func(s routingSnap, args []string) (string, error)) func(v *view, args []string) (string, error) {
	return func(v *view, args []string) (string, error) {
		s, err := v.routingSnapshot()
		if err != nil {
			return "", err
		}
		return render(s, args)
	}
}

// since is how long ago t was (0 for a zero or future time).
func (s routingSnap) since(t time.Time) time.Duration {
	if t.IsZero() || t.After(s.now) {
		return 0
	}
	return s.now.Sub(t)
}

// upDownTime prints a session's time in state as the routers do:
// hh:mm:ss below a day, then 1d02h, then 5w2d.
func upDownTime(d time.Duration) string {
	switch h := int(d.Hours()); {
	case h < 24:
		return fmtDuration(d)
	case h < 24*7:
		return fmt.Sprintf("%dd%02dh", h/24, h%24)
	default:
		return fmt.Sprintf("%dw%dd", h/(24*7), h/24%7)
	}
}

// bgpMessages derives a session's message counts from the model: the
// OPEN and its KEEPALIVE, one UPDATE when prefixes were exchanged, and a
// KEEPALIVE per interval since the session came up.
func (s routingSnap) bgpMessages(n netsim.BGPNeighbor) (rcvd, sent int) {
	if n.State != netsim.BGPEstablished {
		return 0, 0
	}
	ka := n.Keepalive
	if ka <= 0 {
		ka = 60
	}
	keep := int(s.since(n.Since) / (time.Duration(ka) * time.Second))
	rcvd, sent = 2+keep, 2+keep
	if n.PrefixesReceived > 0 {
		rcvd++
	}
	if n.PrefixesSent > 0 {
		sent++
	}
	return rcvd, sent
}

// tableVersion is the BGP table's version: one per path installed, after
// the initial one.
func (s routingSnap) tableVersion() int { return len(s.routes) + 1 }

// ospfDeadDue is the seconds left on a neighbour's dead timer: the dead
// interval less the time since its last hello (hellos every dead/4).
func (s routingSnap) ospfDeadDue(n netsim.OSPFNeighbor) int {
	dead := n.DeadSeconds
	if dead <= 0 {
		dead = 40
	}
	hello := max(dead/4, 1)
	return dead - int(s.since(n.Since)/time.Second)%hello
}

// ospfIface returns the OSPF interface named name, if any.
func (s routingSnap) ospfIface(name string) (netsim.OSPFInterface, bool) {
	for _, i := range s.ospf.Interfaces {
		if i.Interface == name {
			return i, true
		}
	}
	return netsim.OSPFInterface{}, false
}

// ifAddr is an interface's first IPv4 address (its OSPF address).
func (s routingSnap) ifAddr(oi netsim.OSPFInterface) netip.Prefix {
	if oi.Address.IsValid() {
		return oi.Address
	}
	if l := s.addrs[oi.Interface]; len(l) > 0 {
		return l[0]
	}
	return netip.Prefix{}
}

// neighborsOn lists the OSPF neighbours of one interface.
func (s routingSnap) neighborsOn(ifn string) []netsim.OSPFNeighbor {
	var out []netsim.OSPFNeighbor
	for _, n := range s.ospf.Neighbors {
		if n.Interface == ifn {
			out = append(out, n)
		}
	}
	return out
}

// peerArg parses an optional neighbour address argument.
func peerArg(args []string, dialect, usage string) (netip.Addr, []string, error) {
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
			return addr, rest, netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (%s: %s)", r, dialect, usage)
		}
	}
	return addr, rest, nil
}

// findPeer returns the configured peer of address a.
func (s routingSnap) findPeer(a netip.Addr, dialect string) (netsim.BGPNeighbor, error) {
	for _, n := range s.bgp.Neighbors {
		if n.Address == a {
			return n, nil
		}
	}
	return netsim.BGPNeighbor{}, netproto.Errorf(netproto.CodeConfigIncompatible, "no BGP neighbor %s (%s)", a, dialect)
}

// asPath writes an AS path with the origin code.
func asPath(r netsim.BGPRoute) string {
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

// bgpStatus is the status codes of a path: "*>" valid and best, "i" internal.
func bgpStatus(r netsim.BGPRoute) string {
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
