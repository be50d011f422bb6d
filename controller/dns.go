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

// lookup resolves name from dev with the dns_lookup tool, through dev's
// own resolvers.
func (r *run) lookup(dev, name string) lookup {
	return r.lookupAt(dev, name, netip.Addr{})
}

// lookupAt resolves name from dev, asking server (dev's own resolvers
// when server is not valid).
func (r *run) lookupAt(dev, name string, server netip.Addr) lookup {
	args := map[string]any{"destination": name}
	if server.IsValid() {
		args["server"] = server.String()
	}
	out, n, err := r.probe(dev, netproto.ToolDNSLookup, args)
	l := lookup{Dev: dev, Name: name, Call: n, Server: server}
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
	r.zoneFiles(n, rl.Server)
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
		// The router has no answer to compare the hosts' with (its own
		// server is cut off from it): the hosts' resolvers are compared
		// with each other instead.
		r.strayResolvers(n)
		return
	}
	// The records: every device's name gives one of its addresses.
	if len(r.c.Domains) > 0 && server != "" {
		for _, name := range r.fleetNames(n) {
			l := r.lookup(from, name+"."+r.c.Domains[0])
			if !l.Answered || len(l.Addrs) == 0 {
				continue
			}
			if _, unread := n.Unread[name]; unread {
				continue // its addresses are not known: no evidence either way
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
	r.hostResolvers(n, from, probe, rl)
}

// zoneDir is where a DNS server host keeps its zone files (db.ZONE), as
// BIND on Debian does.
const zoneDir = "/etc/bind/"

// zoneFiles reads the zone file of the network's domain on every DNS
// server host (the routers' server and the hosts' resolvers) and compares
// each address record with the network: a name whose address no device
// of the network holds points nowhere, and the server that serves it has
// a wrong record. The file is read, not queried, so a server that is down
// or filtered is checked all the same; one whose file cannot be read
// shows nothing.
func (r *run) zoneFiles(n *network, routers netip.Addr) {
	if len(r.c.Domains) == 0 {
		return
	}
	domain := strings.TrimSuffix(r.c.Domains[0], ".")
	servers := map[string]bool{}
	addServer := func(a netip.Addr) {
		if h := n.deviceAt(a); h != "" && n.Devices[h] == nil && n.HostViews[h] != nil && n.HostViews[h].Err == "" {
			servers[h] = true
		}
	}
	if routers.IsValid() {
		addServer(routers)
	}
	for _, hv := range n.HostViews {
		for _, a := range hv.Resolvers {
			addServer(a)
		}
	}
	for _, srv := range sortedKeys(servers) {
		d := r.c.Fleet.Device(srv)
		if d == nil || !d.HasTool(netproto.ToolCLIExec) {
			continue
		}
		path := zoneDir + "db." + domain
		out, call, err := r.call(srv, netproto.ToolCLIExec, map[string]any{"cmd": "cat " + path})
		if err != nil {
			continue
		}
		recs := parseZoneFile(cliText(out), domain)
		r.summarize(call, "%d address records", len(recs))
		for _, rec := range recs {
			if n.deviceAt(rec.Addr) != "" || r.inventoryHolds(rec.Addr) || len(n.Unread) > 0 {
				// Held, or maybe held by a device that could not be
				// read: a record is wrong only where every address of
				// the network is known.
				continue
			}
			c := newCause("dns_record_error", []string{srv}, rec.Name,
				fmt.Sprintf("The zone %s on the DNS server %s gives %s the address %s, which no device of the network holds.", domain, srv, rec.Name, rec.Addr),
				r.ev(call, srv, netproto.ToolCLIExec, "%s: %s A %s", path, rec.Name, rec.Addr))
			c.Fix = fmt.Sprintf("Correct the record of %s in %s's zone.", rec.Name, srv)
			if !r.causeKnown(c) {
				r.rep.addCause(c)
			}
		}
	}
}

// inventoryHolds tells whether the inventory gives a host the address a.
func (r *run) inventoryHolds(a netip.Addr) bool {
	for _, h := range r.c.Hosts {
		if slices.Contains(h.Addrs, a) {
			return true
		}
	}
	return false
}

// zoneRecord is one address record of a zone file.
type zoneRecord struct {
	// Name is the record's owner, fully qualified without the final dot.
	Name string
	Addr netip.Addr
}

// parseZoneFile returns the A records of a BIND zone file of domain
// (names relative to its $ORIGIN made absolute).
func parseZoneFile(text, domain string) []zoneRecord {
	origin := domain
	var out []zoneRecord
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if strings.EqualFold(f[0], "$ORIGIN") && len(f) > 1 {
			origin = strings.TrimSuffix(f[1], ".")
			continue
		}
		if strings.HasPrefix(f[0], "$") || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		in := slices.IndexFunc(f, func(s string) bool { return strings.EqualFold(s, "IN") })
		if in < 1 || in+2 >= len(f) || !strings.EqualFold(f[in+1], "A") {
			continue
		}
		a, err := netip.ParseAddr(f[in+2])
		if err != nil {
			continue
		}
		name := f[0]
		switch {
		case name == "@":
			name = origin
		case strings.HasSuffix(name, "."):
			name = strings.TrimSuffix(name, ".")
		default:
			name += "." + origin
		}
		out = append(out, zoneRecord{Name: name, Addr: a})
	}
	return out
}

// hostResolvers checks the resolvers the hosts use besides the routers'
// server rl.Server. A host's failed lookup is evidence against the host
// only when nothing upstream explains it: each such resolver is asked
// from the router first. One that answers the router is a sound server,
// and a host that cannot use it is cut off by what the other checks name
// (a link, a route, a filter). One held by a host that answers ping but
// not DNS is a server whose service is down (port closed) or blocked
// (queries time out), named once on that server, not on each of its
// clients. One held by a router or by no device of the network serves no
// DNS: the hosts pointed at it have a wrong resolver.
func (r *run) hostResolvers(n *network, from, probe string, rl lookup) {
	clients := map[netip.Addr][]string{}
	for _, hn := range sortedKeys(n.HostViews) {
		hv := n.HostViews[hn]
		if hv.Err != "" || len(hv.Resolvers) == 0 || r.hasCauseOn(hn) || slices.Contains(hv.Resolvers, rl.Server) {
			// A host that asks the server the routers ask has the
			// right resolver: a lookup of its that fails is explained
			// by the server or the path to it.
			continue
		}
		clients[hv.Resolvers[0]] = append(clients[hv.Resolvers[0]], hn)
	}
	servers := make([]netip.Addr, 0, len(clients))
	for a := range clients {
		servers = append(servers, a)
	}
	slices.SortFunc(servers, func(a, b netip.Addr) int { return a.Compare(b) })
	for _, srv := range servers {
		xl := r.lookupAt(from, probe, srv)
		if xl.Answered {
			continue
		}
		holder := n.deviceAt(srv)
		xev := r.ev(xl.Call, from, netproto.ToolDNSLookup, "%s (asking %s)", xl.Text, srv)
		if holder != "" && n.Devices[holder] == nil {
			r.serverDown(n, from, probe, holder, srv, xl, xev, clients[srv])
			continue
		}
		for _, hn := range clients[srv] {
			hv := n.HostViews[hn]
			hl := r.lookup(hn, probe)
			if hl.Answered {
				continue
			}
			c := newCause("host_incorrect_dns", []string{hn}, "",
				fmt.Sprintf("Host %s resolves through %v, where no DNS server answers (%s), while %s's server %s does: the host's resolver is wrong.", hn, hv.Resolvers, hl.Text, from, rl.Server),
				r.ev(hv.Calls[callResolv], hn, netproto.ToolCLIExec, "nameservers %v", hv.Resolvers),
				r.ev(hl.Call, hn, netproto.ToolDNSLookup, "%s", hl.Text), xev)
			c.Fix = fmt.Sprintf("Point host %s's resolver (/etc/resolv.conf) at %s.", hn, rl.Server)
			r.rep.addCause(c)
		}
	}
}

// strayResolvers names the hosts whose resolver is no DNS server of the
// network, judged without a router's answer: an address held by a
// router or by no device (the network's DNS servers are hosts), that no
// other host uses (the others, on its LAN and beyond, agree on theirs),
// and through which the host's own lookup gets no answer. A resolver
// that answers is sound whoever holds it (a router that forwards
// queries); one that a whole LAN shares is that LAN's intended server,
// whose failure is the server's, not each host's.
func (r *run) strayResolvers(n *network) {
	users := map[netip.Addr]int{}
	for _, hv := range n.HostViews {
		if hv.Err == "" && len(hv.Resolvers) > 0 {
			users[hv.Resolvers[0]]++
		}
	}
	probe := "localhost."
	if len(r.c.Domains) > 0 {
		probe = n.Order[0] + "." + r.c.Domains[0]
	}
	for _, hn := range sortedKeys(n.HostViews) {
		hv := n.HostViews[hn]
		if hv.Err != "" || len(hv.Resolvers) == 0 || r.hasCauseOn(hn) {
			continue
		}
		srv := hv.Resolvers[0]
		if users[srv] > 1 {
			continue
		}
		if holder := n.deviceAt(srv); holder != "" && n.Devices[holder] == nil {
			continue // a host's: a server whose state the DNS checks judge
		}
		hl := r.lookup(hn, probe)
		if hl.Answered {
			continue
		}
		held := "no device of the network"
		if holder := n.deviceAt(srv); holder != "" {
			held = "router " + holder + ", which serves no DNS to it"
		}
		c := newCause("host_incorrect_dns", []string{hn}, "",
			fmt.Sprintf("Host %s resolves through %s, held by %s, which no other host uses, and gets no answer (%s): the host's resolver is wrong.", hn, srv, held, hl.Text),
			r.ev(hv.Calls[callResolv], hn, netproto.ToolCLIExec, "nameservers %v", hv.Resolvers),
			r.ev(hl.Call, hn, netproto.ToolDNSLookup, "%s", hl.Text))
		c.Fix = fmt.Sprintf("Point host %s's resolver (/etc/resolv.conf) at the DNS server the other hosts use.", hn)
		if a, ok := peersResolver(n, hn); ok {
			c.Fix = fmt.Sprintf("Point host %s's resolver (/etc/resolv.conf) at %s, as the other hosts of its LAN do.", hn, a)
		}
		r.rep.addCause(c)
	}
}

// peersResolver is the resolver most of the other hosts on host hn's LAN
// (behind the same router port) use.
func peersResolver(n *network, hn string) (netip.Addr, bool) {
	var lan end
	for _, h := range n.Hosts {
		if h.Host.Name == hn {
			lan = h.Router
		}
	}
	count := map[netip.Addr]int{}
	var best netip.Addr
	for _, h := range n.Hosts {
		hv := n.HostViews[h.Host.Name]
		if h.Host.Name == hn || h.Router != lan || hv == nil || hv.Err != "" || len(hv.Resolvers) == 0 {
			continue
		}
		a := hv.Resolvers[0]
		count[a]++
		if count[a] > count[best] || count[a] == count[best] && a.Less(best) {
			best = a
		}
	}
	return best, best.IsValid()
}

// serverDown names what stops the DNS server holder at srv, which hosts
// use as their resolver, from answering the router from: its service
// (the port is closed) or a filter (queries time out while it answers
// ping). A server the router cannot ping is cut off, which the other
// checks name.
func (r *run) serverDown(n *network, from, probe, holder string, srv netip.Addr, xl lookup, xev Evidence, clients []string) {
	p := r.ping(from, srv, pingOpts{Count: 2})
	if !p.OK() {
		return
	}
	pev := r.ev(p.Call, from, netproto.ToolPing, "%s", p.Text)
	switch {
	case xl.Refused:
		c := newCause("dns_service_down", []string{holder}, srv.String()+":53",
			fmt.Sprintf("The DNS service on %s (%s), the resolver of %v, is down: it answers ping but queries get 'connection refused' (port 53 closed).", holder, srv, clients), xev, pev)
		c.Fix = fmt.Sprintf("Start the DNS service on %s.", holder)
		if !r.causeKnown(c) {
			r.rep.addCause(c)
		}
	case xl.TimedOut && !r.hasCause("dns_port_blocked"):
		if again := r.lookupAt(from, probe, srv); !again.TimedOut {
			return // a query lost in passing, not a blocked port
		}
		c := newCause("dns_port_blocked", []string{holder}, srv.String()+":53",
			fmt.Sprintf("Queries to the DNS server %s (%s), the resolver of %v, time out although it answers ping: port 53 is blocked on the way or at the server.", holder, srv, clients), xev, pev)
		c.Fix = fmt.Sprintf("Find and remove the filter on UDP/TCP port 53 toward %s.", holder)
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
