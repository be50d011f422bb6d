package controller

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// lookup is what one dns_lookup showed.
type lookup struct {
	Dev, Name string
	Call      int
	// Answered is true when a server answered (any status, REFUSED too).
	Answered bool
	Status   string
	Addrs    []netip.Addr
	// Server is the server that answered or was tried.
	Server netip.Addr
	// Refused: the server's port is closed (ICMP port unreachable);
	// TimedOut: nothing came back.
	Refused, TimedOut bool
	Text              string
}

var serverRE = regexp.MustCompile(`(\d+\.\d+\.\d+\.\d+)#53`)

// lookup resolves name from dev with the dns_lookup tool.
func (r *run) lookup(dev, name string) lookup {
	out, n, err := r.probe(dev, netproto.ToolDNSLookup, map[string]any{"destination": name})
	l := lookup{Dev: dev, Name: name, Call: n}
	if err != nil {
		l.Text = "dns_lookup failed: " + firstLine(err.Error())
		r.summarize(n, "%s", l.Text)
		return l
	}
	for _, res := range yang.List(yang.Member(out, "result")) {
		l.Status = yang.Text(yang.Member(res, "status"))
		l.Answered = l.Status != ""
		if m := serverRE.FindStringSubmatch(yang.Text(yang.Member(res, "server"))); m != nil {
			l.Server, _ = netip.ParseAddr(m[1])
		}
		for _, a := range yang.List(yang.Member(res, "answer")) {
			if x, e := netip.ParseAddr(yang.Text(yang.Member(a, "data"))); e == nil {
				l.Addrs = append(l.Addrs, x)
			}
		}
		var errs []string
		for _, e := range yang.List(yang.Member(res, "errors")) {
			s := yang.Text(e)
			errs = append(errs, s)
			if m := serverRE.FindStringSubmatch(s); m != nil && !l.Server.IsValid() {
				l.Server, _ = netip.ParseAddr(m[1])
			}
			l.Refused = l.Refused || strings.Contains(s, "connection refused")
			l.TimedOut = l.TimedOut || strings.Contains(s, "timed out")
		}
		if l.Answered {
			l.Text = fmt.Sprintf("%s: %s %v from %s", name, l.Status, l.Addrs, l.Server)
		} else {
			l.Text = fmt.Sprintf("%s: no answer (%s)", name, strings.Join(errs, "; "))
		}
	}
	r.summarize(n, "%s", l.Text)
	return l
}

// deviceAt names the device of the fleet (router or host) holding a.
func (n *network) deviceAt(a netip.Addr) string {
	if d, _ := n.Owner(a); d != nil {
		return d.Name
	}
	for _, name := range sortedKeys(n.HostViews) {
		for _, p := range n.HostViews[name].Addrs4() {
			if p.Addr() == a {
				return name
			}
		}
	}
	if h, ok := n.HostAt(a); ok {
		return h.Host.Name
	}
	return ""
}

// dnsSweep checks name resolution: from a router, the network's server
// answers and its records give the devices' own addresses; from every
// host, its resolver answers too. The first router must have the
// dns_lookup tool (hasResolver).
func (r *run) dnsSweep(n *network) {
	from := n.Order[0]
	probe := "localhost."
	if len(r.c.Domains) > 0 {
		probe = from + "." + r.c.Domains[0]
	}
	rl := r.lookup(from, probe)
	server := n.deviceAt(rl.Server)
	ev := r.ev(rl.Call, from, netproto.ToolDNSLookup, "%s", rl.Text)
	switch {
	case !rl.Answered && rl.Refused && server != "":
		c := newCause("dns_service_down", []string{server}, rl.Server.String()+":53",
			fmt.Sprintf("The DNS service on %s (%s) is down: queries get 'connection refused' (port 53 closed).", server, rl.Server), ev)
		c.Fix = fmt.Sprintf("Start the DNS service on %s.", server)
		r.rep.addCause(c)
		return
	case !rl.Answered && rl.TimedOut && server != "":
		if r.hasCause("dns_port_blocked") {
			return // the ACL that drops it is named already
		}
		// Only a server that answers every ping has its port blocked; one
		// that does not is cut off, or reached through loss, by what the
		// other checks name (a down link, a lost route, a host's wrong
		// gateway, a lossy link).
		p := r.ping(from, rl.Server, pingOpts{Count: 2})
		if !p.OK() {
			return
		}
		// A second query after the pings: a timeout that does not repeat
		// was a query lost in passing (a link flapping under it, a
		// route converging), not a blocked port.
		if again := r.lookup(from, probe); !again.TimedOut {
			return
		}
		c := newCause("dns_port_blocked", []string{server}, rl.Server.String()+":53",
			fmt.Sprintf("Queries to the DNS server %s (%s) time out although it is reachable: port 53 is blocked on the way or at the server.", server, rl.Server), ev,
			r.ev(p.Call, from, netproto.ToolPing, "%s", p.Text))
		c.Fix = fmt.Sprintf("Find and remove the filter on UDP/TCP port 53 toward %s.", server)
		r.rep.addCause(c)
		return
	case !rl.Answered:
		return
	}
	// The records: every device's name gives one of its addresses.
	if len(r.c.Domains) > 0 && server != "" {
		for _, name := range r.fleetNames(n) {
			l := r.lookup(from, name+"."+r.c.Domains[0])
			if !l.Answered || len(l.Addrs) == 0 {
				continue
			}
			want := r.addressesOf(n, name)
			ok := false
			for _, a := range l.Addrs {
				ok = ok || want[a]
			}
			if !ok {
				c := newCause("dns_record_error", []string{server}, name+"."+r.c.Domains[0],
					fmt.Sprintf("The DNS server %s answers %s for %s, which is not an address of %s.", server, l.Addrs, l.Name, name),
					r.ev(l.Call, from, netproto.ToolDNSLookup, "%s", l.Text))
				c.Fix = fmt.Sprintf("Correct the record of %s in %s's zone.", name, server)
				r.rep.addCause(c)
			}
		}
	}
	// Every host's own resolver.
	for _, hn := range sortedKeys(n.HostViews) {
		hv := n.HostViews[hn]
		if hv.Err != "" || len(hv.Resolvers) == 0 || r.hasCauseOn(hn) {
			continue
		}
		if !rl.Answered || slices.Contains(hv.Resolvers, rl.Server) {
			// The host asks the server the routers ask: its resolver is
			// right, and a lookup of its that fails is explained by the
			// server or the path to it (named by the other checks), not
			// by the host.
			continue
		}
		hl := r.lookup(hn, probe)
		if hl.Answered {
			continue
		}
		c := newCause("host_incorrect_dns", []string{hn}, "",
			fmt.Sprintf("Host %s resolves through %v, which does not answer (%s), while %s's server %s does: the host's resolver is wrong.", hn, hv.Resolvers, hl.Text, from, rl.Server),
			r.ev(hv.Calls[callResolv], hn, netproto.ToolCLIExec, "nameservers %v", hv.Resolvers),
			r.ev(hl.Call, hn, netproto.ToolDNSLookup, "%s", hl.Text), ev)
		c.Fix = fmt.Sprintf("Point host %s's resolver (/etc/resolv.conf) at %s.", hn, rl.Server)
		r.rep.addCause(c)
	}
}

// hasResolver tells whether the network's first router can resolve names
// (it has the dns_lookup tool).
func (r *run) hasResolver(n *network) bool {
	return len(n.Order) > 0 && r.c.Fleet.Device(n.Order[0]).HasTool(netproto.ToolDNSLookup)
}

// fleetNames lists the routers and hosts of the network.
func (r *run) fleetNames(n *network) []string {
	out := append([]string(nil), n.Order...)
	for _, h := range n.Hosts {
		out = append(out, h.Host.Name)
	}
	return out
}

// addressesOf returns every address a device holds (a host: those the
// controller knows and those it shows).
func (r *run) addressesOf(n *network, name string) map[netip.Addr]bool {
	m := map[netip.Addr]bool{}
	if d := n.Devices[name]; d != nil {
		for _, it := range d.Ifaces {
			for _, p := range it.Addrs {
				m[p.Addr()] = true
			}
		}
	}
	for _, h := range n.Hosts {
		if h.Host.Name == name {
			for _, a := range h.Host.Addrs {
				m[a] = true
			}
		}
	}
	return m
}

// hasCause tells whether a cause of that name was found.
func (r *run) hasCause(name string) bool {
	for _, c := range r.rep.RootCauses {
		if c.Name == name {
			return true
		}
	}
	return false
}

// hasCauseOn tells whether a cause names the device.
func (r *run) hasCauseOn(dev string) bool {
	for _, c := range r.rep.RootCauses {
		for _, d := range c.Devices {
			if d == dev {
				return true
			}
		}
	}
	return false
}
