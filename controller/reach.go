package controller

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// hop is one router of a path: the route it uses and where it sends.
type hop struct {
	Dev   string
	Route route
	Out   *ifaceView
	// Link is the link out of Out, oriented from this hop; HasLink is false
	// for the last hop's LAN toward a host.
	Link    link
	HasLink bool
}

// walk follows the routing tables from device src toward dst, hop by
// hop. It returns the hops and, when the packet cannot go on, why.
func (n *network) walk(src string, dst netip.Addr) ([]hop, string) {
	hops, _, why := n.walkFrom(src, dst)
	return hops, why
}

// walkFrom is walk that also returns the device where the walk stopped.
func (n *network) walkFrom(src string, dst netip.Addr) ([]hop, string, string) {
	hops, why, at := n.walkSteps(src, dst)
	return hops, at, why
}

// walkSteps does the walk: the hops, why it stopped ("" when it arrived)
// and the device it was at.
func (n *network) walkSteps(src string, dst netip.Addr) (hops []hop, why, at string) {
	cur := src
	defer func() { at = cur }()
	seen := map[string]bool{}
	for range 32 {
		d := n.Devices[cur]
		if d == nil {
			return hops, fmt.Sprintf("%s was not read", cur), ""
		}
		if d.Owns(dst) != nil {
			return hops, "", ""
		}
		if seen[cur] {
			return hops, fmt.Sprintf("routing loop at %s", cur), ""
		}
		seen[cur] = true
		rt, ok := d.Lookup(dst)
		if !ok {
			return hops, fmt.Sprintf("%s has no route to %s", cur, dst), ""
		}
		h := hop{Dev: cur, Route: rt, Out: d.Iface(rt.Interface)}
		if rt.Discard {
			hops = append(hops, h)
			return hops, fmt.Sprintf("%s discards packets to %s (route %s is a blackhole)", cur, dst, rt.Prefix), ""
		}
		if h.Out != nil {
			h.Link, h.HasLink = n.LinkOf(cur, h.Out.Name)
		}
		hops = append(hops, h)
		next := rt.NextHop
		if !next.IsValid() { // connected: the destination is on this segment
			return hops, "", ""
		}
		nd, _ := n.Owner(next)
		if nd == nil {
			return hops, fmt.Sprintf("%s forwards to %s, which no device of the fleet holds", cur, next), ""
		}
		if !h.HasLink || h.Link.B.Device != nd.Name {
			h.Link, h.HasLink = link{}, false
			for _, l := range n.LinksBetween(cur, nd.Name) {
				if l.B.Addr == next {
					h.Link, h.HasLink = l, true
				}
			}
			hops[len(hops)-1] = h
		}
		cur = nd.Name
	}
	return hops, "the path is longer than 32 hops", ""
}

// pathWords prints hops: "r1 Gi0/0/0 -> r2 Gi0/0/0/1 -> r3".
func pathWords(hops []hop, last string) string {
	var s []string
	for _, h := range hops {
		out := h.Route.Interface
		s = append(s, h.Dev+" "+out)
	}
	if last != "" {
		s = append(s, last)
	}
	return strings.Join(s, " -> ")
}

// checkHops looks along a path for what stops traffic t: a link down, an
// MTU mismatch, an ACL that drops it. It returns the causes and the
// smallest MTU seen (the path MTU).
func (r *run) checkHops(n *network, hops []hop, t traffic, what string) ([]Cause, int) {
	var causes []Cause
	pmtu := 0
	minMTU := func(m int) {
		if m > 0 && (pmtu == 0 || m < pmtu) {
			pmtu = m
		}
	}
	for _, h := range hops {
		d := n.Devices[h.Dev]
		if h.Out == nil {
			continue
		}
		icall := d.Calls[pathInterfaces]
		minMTU(h.Out.MTU)
		if !h.HasLink {
			for _, f := range droppingACLs(d, h.Out.Name, t) {
				if !f.Binding.Ingress {
					causes = append(causes, aclCause(f, t, what, r.ev(d.Calls[PathACL], h.Dev, netproto.ToolYangGet, "ACL %s bound %s on %s: %s", f.Binding.Set, f.Binding.Dir(), f.Binding.Iface, f.Entry)))
				}
			}
			continue
		}
		peer := n.Devices[h.Link.B.Device]
		pin := peer.Iface(h.Link.B.Iface)
		pcall := peer.Calls[pathInterfaces]
		if !h.Out.OperUp || (pin != nil && !pin.OperUp) {
			ev := []Evidence{r.ev(icall, h.Dev, netproto.ToolYangGet, "%s admin %s, oper %s", h.Out.Name, upDown(h.Out.AdminUp), h.Out.OperStatus)}
			switch {
			case pin != nil:
				ev = append(ev, r.ev(pcall, peer.Name, netproto.ToolYangGet, "%s admin %s, oper %s", pin.Name, upDown(pin.AdminUp), pin.OperStatus))
				if c, ok := endsCause(h.Link, h.Out, pin, ev...); ok {
					causes = append(causes, c)
				}
			case h.Out.AdminUp:
				causes = append(causes, linkDownCause(h.Link, ev...))
			}
			continue
		}
		if pin != nil {
			minMTU(pin.MTU)
			if pin.MTU != h.Out.MTU && pin.MTU > 0 && h.Out.MTU > 0 {
				causes = append(causes, r.mtuMismatch(n, h.Link))
			}
		}
		for _, f := range droppingACLs(d, h.Out.Name, t) {
			if !f.Binding.Ingress {
				causes = append(causes, aclCause(f, t, what, r.ev(d.Calls[PathACL], h.Dev, netproto.ToolYangGet, "ACL %s bound out on %s: %s", f.Binding.Set, f.Binding.Iface, f.Entry)))
			}
		}
		for _, f := range droppingACLs(peer, h.Link.B.Iface, t) {
			if f.Binding.Ingress {
				causes = append(causes, aclCause(f, t, what, r.ev(peer.Calls[PathACL], peer.Name, netproto.ToolYangGet, "ACL %s bound in on %s: %s", f.Binding.Set, f.Binding.Iface, f.Entry)))
			}
		}
	}
	return causes, pmtu
}

func upDown(b bool) string {
	if b {
		return "UP"
	}
	return "DOWN"
}

// mtuMismatch builds the cause of a link whose ends differ in MTU; the
// faulty end is the one whose operational MTU differs from its
// configuration, else the one that differs from the most common MTU of
// the network's links, else the smaller.
func (r *run) mtuMismatch(n *network, l link) Cause {
	a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
	count := map[int]int{}
	for _, x := range n.Links {
		for _, e := range []end{x.A, x.B} {
			if it := n.Devices[e.Device].Iface(e.Iface); it != nil {
				count[it.MTU]++
			}
		}
	}
	odd, oi, pi := l.A, a, b
	switch {
	case b.ConfigMTU > 0 && b.MTU != b.ConfigMTU && (a.ConfigMTU == 0 || a.MTU == a.ConfigMTU):
		odd, oi, pi = l.B, b, a
	case a.ConfigMTU > 0 && a.MTU != a.ConfigMTU:
	case count[b.MTU] < count[a.MTU]:
		odd, oi, pi = l.B, b, a
	case count[b.MTU] == count[a.MTU] && b.MTU < a.MTU:
		odd, oi, pi = l.B, b, a
	}
	pe := l.A
	if odd == l.A {
		pe = l.B
	}
	ev := []Evidence{
		r.ev(n.Devices[odd.Device].Calls[pathInterfaces], odd.Device, netproto.ToolYangGet, "%s MTU %d (configured %d)", oi.Name, oi.MTU, oi.ConfigMTU),
		r.ev(n.Devices[pe.Device].Calls[pathInterfaces], pe.Device, netproto.ToolYangGet, "%s MTU %d (configured %d)", pi.Name, pi.MTU, pi.ConfigMTU),
	}
	if oi.ConfigMTU > 0 && oi.MTU < oi.ConfigMTU && oi.ConfigMTU == pi.MTU {
		// The configuration is right: the interface runs below it.
		return fragCause(l, odd, oi.MTU, oi.ConfigMTU, ev...)
	}
	return mtuCause(l, odd, oi.MTU, pi.MTU, oi.ConfigMTU, ev...)
}

// endpoint is one end of a reachability intent, resolved.
type endpoint struct {
	Name string
	// Dev is the fleet device that acts for it (itself, or a host's router).
	Dev  string
	Addr netip.Addr
	// Source and VRF are the ping options when it is a host's router
	// acting for the host.
	Source, VRF string
	Host        bool
}

// resolve finds what a name of an intent designates.
func (r *run) resolve(n *network, name string) (endpoint, error) {
	if d := n.Devices[name]; d != nil {
		a, _ := d.Loopback()
		return endpoint{Name: name, Dev: name, Addr: a}, nil
	}
	if h, ok := n.HostNamed(name); ok {
		return r.hostEndpoint(n, h), nil
	}
	if r.c.Fleet.Device(name) != nil {
		return endpoint{}, fmt.Errorf("device %s could not be read: %s", name, n.Unread[name])
	}
	if h, ok := n.HostNamed(name); ok {
		return r.hostEndpoint(n, h), nil
	}
	// A site of the inventory: its first device that was read.
	for _, dev := range r.c.Fleet.Devices() {
		if strings.EqualFold(dev.Inventory().Site, name) && n.Devices[dev.Name()] != nil {
			a, _ := n.Devices[dev.Name()].Loopback()
			r.progress("  site %s: represented by %s (%s)", name, dev.Name(), a)
			return endpoint{Name: name, Dev: dev.Name(), Addr: a}, nil
		}
	}
	a, err := netip.ParseAddr(name)
	if err != nil {
		// A name: ask the first device's resolver.
		if len(n.Order) == 0 {
			return endpoint{}, fmt.Errorf("%s: unknown name and no device to resolve it", name)
		}
		out, call, err := r.probe(n.Order[0], netproto.ToolDNSLookup, map[string]any{"destination": name})
		if err != nil {
			return endpoint{}, fmt.Errorf("%s is neither a device, a known host nor an address, and %s could not resolve it: %v", name, n.Order[0], err)
		}
		for _, ans := range yang.List(yang.Member(out, "answers")) {
			if x, e := netip.ParseAddr(yang.Text(yang.Member(ans, "data"))); e == nil {
				a = x
				break
			}
		}
		if !a.IsValid() {
			return endpoint{}, fmt.Errorf("%s: %s resolved no address", name, n.Order[0])
		}
		r.summarize(call, "%s is %s", name, a)
	}
	if d, _ := n.Owner(a); d != nil {
		return endpoint{Name: name, Dev: d.Name, Addr: a}, nil
	}
	if h, ok := n.HostAt(a); ok {
		e := r.hostEndpoint(n, h)
		e.Name = name
		return e, nil
	}
	return endpoint{Name: name, Addr: a}, nil
}

func (r *run) hostEndpoint(n *network, h hostAttach) endpoint {
	e := endpoint{Name: h.Host.Name, Dev: h.Router.Device, Addr: h.Addr, Host: true, Source: h.Router.Addr.String()}
	if it := n.Devices[h.Router.Device].Iface(h.Router.Iface); it != nil {
		e.VRF = it.VRF
	}
	return e
}

// reachability verifies that src reaches dst (and measures the path MTU
// when mtu is set): a ping, then the path hop by hop both ways, with
// the interfaces, MTUs and ACLs at every hop; losses are located by
// pinging across each link of the path.
func (r *run) reachability(in Intent, mtu bool) error {
	n := r.readNetwork()
	src, err := r.resolve(n, in.Source)
	if err != nil {
		return err
	}
	dst, err := r.resolve(n, in.Destination)
	if err != nil {
		return err
	}
	if src.Dev == "" {
		return fmt.Errorf("source %s: no device of the fleet holds or reaches it", in.Source)
	}
	if !dst.Addr.IsValid() {
		return fmt.Errorf("destination %s has no address", in.Destination)
	}
	r.rep.Facts = map[string]any{"source": src.Dev, "destination_address": dst.Addr.String()}
	r.begin(fmt.Sprintf("ping %s from %s", dst.Addr, src.Dev))
	vrf := src.VRF
	if vrf == "" {
		vrf = dst.VRF
	}
	p := r.ping(src.Dev, dst.Addr, pingOpts{Count: 5, Source: src.Source, VRF: vrf})
	r.rep.Facts["loss_percent"] = p.Loss
	t := traffic{Protocol: "ICMP", Dst: dst.Addr}
	if a, err := netip.ParseAddr(src.Source); err == nil {
		t.Src = a
	} else {
		t.Src = src.Addr
	}
	var causes []Cause
	pmtu := 0
	if vrf != "" {
		r.progress("  the path is in VRF %s: the hop-by-hop walk reads the default table only, skipped", vrf)
	} else {
		r.begin(fmt.Sprintf("follow the path from %s to %s hop by hop (routes, interfaces, MTU, ACLs)", src.Dev, dst.Addr))
		hops, stop := n.walk(src.Dev, dst.Addr)
		r.rep.Facts["path"] = pathWords(hops, dst.Name)
		if stop != "" {
			r.rep.Facts["path"] = pathWords(hops, "stops: "+stop)
		}
		cs, m := r.checkHops(n, hops, t, fmt.Sprintf("ICMP from %s to %s", t.Src, dst.Addr))
		causes, pmtu = append(causes, cs...), m
		if dst.Dev != "" && src.Addr.IsValid() {
			back := dst.Dev
			r.begin(fmt.Sprintf("follow the return path from %s to %s", back, t.Src))
			bh, bstop := n.walk(back, t.Src)
			r.rep.Facts["return_path"] = pathWords(bh, src.Name)
			if bstop != "" {
				r.rep.Facts["return_path"] = pathWords(bh, "stops: "+bstop)
			}
			rt := traffic{Protocol: "ICMP", Src: dst.Addr, Dst: t.Src}
			cs, m := r.checkHops(n, bh, rt, fmt.Sprintf("ICMP replies from %s to %s", dst.Addr, t.Src))
			causes = append(causes, cs...)
			if m > 0 && (pmtu == 0 || m < pmtu) {
				pmtu = m
			}
			if bstop != "" && len(cs) == 0 && !p.OK() {
				causes = append(causes, r.routeCause(n, bh, back, endpoint{Name: src.Name, Addr: t.Src}, bstop))
			}
		}
		if stop != "" && len(causes) == 0 {
			// No route: what keeps the IGP from carrying it comes first.
			causes = r.ospfProblems(n)
			if len(causes) == 0 {
				causes = append(causes, r.routeCause(n, hops, src.Dev, dst, stop))
			}
		}
		if pmtu > 0 {
			r.rep.Facts["path_mtu"] = pmtu
		}
		if in.Via != "" && stop == "" && !slices.ContainsFunc(hops, func(h hop) bool { return h.Dev == in.Via }) {
			c := newCause("path_not_via", []string{src.Dev}, "", fmt.Sprintf("The path from %s to %s does not cross %s: %s.", in.Source, in.Destination, in.Via, pathWords(hops, dst.Name)),
				r.ev(n.Devices[src.Dev].Calls[pathRouting], src.Dev, netproto.ToolYangGet, "route to %s", dst.Addr))
			c.Fix = fmt.Sprintf("Check the routing policy that should steer %s's traffic to %s through %s.", in.Source, in.Destination, in.Via)
			causes = append(causes, c)
		}
		if !p.OK() && len(causes) == 0 && p.Loss < 100 {
			causes = append(causes, r.locateLoss(n, hops)...)
		}
	}
	if mtu && pmtu > 0 {
		r.begin(fmt.Sprintf("confirm the path MTU %d with DF pings of %d and %d bytes", pmtu, pmtu-28, pmtu-27))
		fit := r.ping(src.Dev, dst.Addr, pingOpts{Count: 1, Source: src.Source, VRF: vrf, Size: pmtu - 28, DF: true})
		over := r.ping(src.Dev, dst.Addr, pingOpts{Count: 1, Source: src.Source, VRF: vrf, Size: pmtu - 27, DF: true})
		r.rep.Facts["path_mtu_confirmed"] = fit.OK() && !over.OK()
	}
	if !p.OK() && vrf == "" {
		// The source device's own runbook, as a second opinion.
		r.begin(fmt.Sprintf("run %s's own runbook %s", src.Dev, netproto.PromptPingFail))
		source := src.Source
		if source == "" && src.Addr.IsValid() {
			source = src.Addr.String()
		}
		if rc, call, ok := r.runbook(src.Dev, netproto.PromptPingFail, map[string]string{"src": source, "dst": dst.Addr.String()}); ok {
			e := r.ev(call, src.Dev, "prompts/get "+netproto.PromptPingFail, "the device's runbook concludes: %s", firstLine(rc))
			for i := range causes {
				causes[i].Evidence = append(causes[i].Evidence, e)
			}
			if len(causes) == 0 {
				c := newCause("device_runbook", []string{src.Dev}, "", "The device's runbook: "+firstLine(rc), e)
				causes = append(causes, c)
			}
		}
	}
	for _, c := range causes {
		c.Evidence = append([]Evidence{r.ev(p.Call, src.Dev, netproto.ToolPing, "%s", p.Text)}, c.Evidence...)
		r.rep.addCause(c)
	}
	ok := p.OK() && len(causes) == 0
	r.rep.Verified = &ok
	switch {
	case ok && mtu:
		r.rep.Diagnosis = fmt.Sprintf("%s reaches %s; the path MTU is %d.", in.Source, in.Destination, pmtu)
	case ok:
		r.rep.Diagnosis = fmt.Sprintf("%s reaches %s (%s).", in.Source, in.Destination, p.Text)
	case len(causes) == 0:
		r.rep.Diagnosis = fmt.Sprintf("%s does not reach %s reliably (%s) and no cause was found along the path.", in.Source, in.Destination, p.Text)
	}
	return nil
}

// routeCause explains a path that stops without a faulty link or ACL: a
// missing route (a missing advertisement when BGP should carry it).
func (r *run) routeCause(n *network, hops []hop, from string, dst endpoint, stop string) Cause {
	_, last, _ := n.walkFrom(from, dst.Addr)
	if last == "" {
		last = from
	}
	// A route withdrawn because a link went down: the link is the cause.
	if c, ok := r.downLinkCause(n); ok {
		c.Summary += " " + stop + "."
		return c
	}
	if len(hops) > 0 && !hops[len(hops)-1].Route.NextHop.IsValid() && !hops[len(hops)-1].Route.Discard && dst.Host {
		// The last router has the host's LAN connected: the host itself does not answer.
		return r.hostCause(n, dst)
	}
	// Which device should originate the prefix? The router attached to it.
	origin := ""
	if dst.Dev != "" && dst.Dev != last {
		origin = dst.Dev
	}
	ev := r.ev(n.Devices[last].Calls[pathRouting], last, netproto.ToolYangGet, "%s", stop)
	if origin != "" && n.Devices[origin] != nil && n.Devices[origin].BGP != nil {
		c := newCause("bgp_missing_route_advertisement", []string{origin}, "",
			fmt.Sprintf("%s; the prefix of %s is connected on %s, which runs BGP but does not advertise it.", stop, dst.Addr, origin), ev)
		c.Fix = fmt.Sprintf("Add the network statement for %s's prefix in %s's BGP configuration.", dst.Addr, origin)
		return c
	}
	c := newCause("missing_route", []string{last}, "", stop+".", ev)
	c.Fix = fmt.Sprintf("Give %s a route to %s (a static route or the routing protocol that should carry it).", last, dst.Addr)
	return c
}

// downLinkCause returns the first link of the network that is down by
// its ends' state (endsCause): routes through it are withdrawn.
func (r *run) downLinkCause(n *network) (Cause, bool) {
	for _, l := range n.Links {
		a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
		if a == nil || b == nil {
			continue
		}
		if c, ok := endsCause(l, a, b,
			r.ev(n.Devices[l.A.Device].Calls[pathInterfaces], l.A.Device, netproto.ToolYangGet, "%s admin %s, oper %s", a.Name, upDown(a.AdminUp), a.OperStatus),
			r.ev(n.Devices[l.B.Device].Calls[pathInterfaces], l.B.Device, netproto.ToolYangGet, "%s admin %s, oper %s", b.Name, upDown(b.AdminUp), b.OperStatus)); ok {
			return c, true
		}
	}
	return Cause{}, false
}

// hostCause: the host's router has its LAN up but the host does not answer.
func (r *run) hostCause(n *network, dst endpoint) Cause {
	h, _ := n.HostAt(dst.Addr)
	it := n.Devices[h.Router.Device].Iface(h.Router.Iface)
	ev, arp, mac := r.routerARP(n, dst)
	where := h.Router.Device + ":" + h.Router.Iface
	if it != nil && !it.OperUp {
		c := newCause("host_crash", []string{h.Host.Name}, where,
			fmt.Sprintf("Host %s (%s) is down: the port %s:%s toward it is down.", h.Host.Name, dst.Addr, h.Router.Device, h.Router.Iface), ev)
		c.Fix = fmt.Sprintf("Bring host %s back up.", h.Host.Name)
		return c
	}
	// The host's own view, when it serves one, says more than the
	// router's side: a host whose port is down has lost its link, whatever
	// its router's ARP cache still holds (an entry outlives the link); a
	// host that answers nothing at all is down; one that holds its
	// address is not misaddressed.
	if c, ok := r.hostPortDown(n, dst, ev); ok {
		return c
	}
	if hv := n.HostViews[h.Host.Name]; hv != nil && mac == "" {
		if hv.Err != "" {
			c := newCause("host_crash", []string{h.Host.Name}, where,
				fmt.Sprintf("Host %s (%s) is down: it answers neither its router %s nor its own management (%s).", h.Host.Name, dst.Addr, h.Router.Device, hv.Err),
				ev, r.ev(hv.Calls[pathInterfaces], hv.Name, netproto.ToolYangGet, "no answer: %s", hv.Err))
			c.Fix = fmt.Sprintf("Bring host %s back up.", h.Host.Name)
			return c
		}
		if c, ok := r.routerPortDetached(n, dst, hv, ev); ok {
			return c
		}
	}
	// The port is up, so the host is alive: its addressing is wrong.
	if mac == "" {
		c := newCause("host_incorrect_ip", []string{h.Host.Name}, where,
			fmt.Sprintf("Host %s does not answer ARP for %s on %s:%s although the port is up: the host does not hold that address (wrong or missing IP).", h.Host.Name, dst.Addr, h.Router.Device, h.Router.Iface), ev)
		c.Fix = fmt.Sprintf("Configure %s on host %s, in %s's subnet.", dst.Addr, h.Host.Name, h.Router.Addr)
		return c
	}
	c := newCause("host_incorrect_netmask", []string{h.Host.Name}, where,
		fmt.Sprintf("Host %s resolves (%s) but does not answer its router %s on the same LAN: its netmask (or a route of its own) sends the replies elsewhere.", h.Host.Name, arp, h.Router.Device), ev)
	c.Fix = fmt.Sprintf("Check host %s's netmask and routes: %s must be on-link.", h.Host.Name, h.Router.Addr)
	return c
}

// routerARP is what the router of the host at dst knows of it: its ARP
// entry (arp in words, mac "" when none) and that as evidence.
func (r *run) routerARP(n *network, dst endpoint) (ev Evidence, arp, mac string) {
	h, _ := n.HostAt(dst.Addr)
	d := n.Devices[h.Router.Device]
	arp = "no ARP entry"
	if it := d.Iface(h.Router.Iface); it != nil {
		for _, a := range it.ARP {
			if a.IP == dst.Addr {
				arp, mac = "ARP entry "+a.MAC, a.MAC
			}
		}
	}
	return r.ev(d.Calls[pathInterfaces], d.Name, netproto.ToolYangGet, "%s on %s: %s", dst.Addr, h.Router.Iface, arp), arp, mac
}

// hostPortDown: the host at dst, which serves its own view, has a port
// down (and does not answer its router, ev): the link to it is down.
func (r *run) hostPortDown(n *network, dst endpoint, ev Evidence) (Cause, bool) {
	h, _ := n.HostAt(dst.Addr)
	hv := n.HostViews[h.Host.Name]
	if hv == nil || hv.Err != "" {
		return Cause{}, false
	}
	where := h.Router.Device + ":" + h.Router.Iface
	for _, hi := range hv.Ifaces {
		if hi.Loopback || hi.Name == "lo" || hi.OperUp || hi.OperStatus == "" {
			continue
		}
		hev := r.ev(hv.Calls[pathInterfaces], hv.Name, netproto.ToolYangGet, "%s admin %s, oper %s", hi.Name, upDown(hi.AdminUp), hi.OperStatus)
		rd := n.Devices[h.Router.Device]
		if rp := rd.Iface(h.Router.Iface); hi.AdminUp && rp != nil && rp.AdminUp && rp.OperUp && len(darkPorts(rd)) == 0 {
			// The router's end is up (and none of its switched ports,
			// one of which may be the host's, is down): the host's
			// port alone has no carrier, it is detached from the LAN.
			he := end{Device: h.Host.Name, Iface: hi.Name, Addr: dst.Addr}
			return detachCause(link{A: h.Router, B: he}, he, h.Router, ev, hev,
				r.ev(n.Devices[h.Router.Device].Calls[pathInterfaces], h.Router.Device, netproto.ToolYangGet, "%s admin UP, oper UP", rp.Name)), true
		}
		if hi.AdminUp {
			// Down though up administratively: a flap comes back by
			// itself. The router's end watched is its port without
			// carrier when one alone is (its VLAN interface stays up).
			re := end{Device: h.Router.Device, Addr: h.Router.Addr}
			if rp := rd.Iface(h.Router.Iface); rp != nil && !rp.OperUp {
				re.Iface = rp.Name
			} else if dark := darkPorts(rd); len(dark) == 1 {
				re.Iface = dark[0].Name
			}
			if c, ok := r.watchLink(link{A: re, B: end{Device: h.Host.Name, Iface: hi.Name, Addr: dst.Addr}}, ev, hev); ok {
				return c, true
			}
		}
		c := newCause("link_down", []string{h.Router.Device, h.Host.Name}, where+" — "+h.Host.Name+":"+hi.Name,
			fmt.Sprintf("The link from %s:%s to host %s is down: the host's %s is operationally %s, and %s gets no answer from %s.", h.Router.Device, h.Router.Iface, h.Host.Name, hi.Name, hi.OperStatus, h.Router.Device, dst.Addr),
			ev, r.ev(hv.Calls[pathInterfaces], hv.Name, netproto.ToolYangGet, "%s admin %s, oper %s", hi.Name, upDown(hi.AdminUp), hi.OperStatus))
		c.Fix = fmt.Sprintf("Restore the link between %s and host %s (cable, the access port, the host's port).", h.Router.Device, h.Host.Name)
		return c, true
	}
	return Cause{}, false
}

// routerPortDetached: the host at dst shows its port up and holding its
// address, its router's VLAN interface toward it is up, but exactly one
// of the router's switched ports is administratively up without carrier:
// that port, the host's peer, is detached from the host's segment.
func (r *run) routerPortDetached(n *network, dst endpoint, hv *hostView, ev Evidence) (Cause, bool) {
	h, _ := n.HostAt(dst.Addr)
	hi := hostPort(hv, dst.Addr)
	if hi == nil || !hi.AdminUp || !hi.OperUp || !slices.ContainsFunc(hi.Addrs, func(p netip.Prefix) bool { return p.Addr() == dst.Addr }) {
		return Cause{}, false
	}
	rd := n.Devices[h.Router.Device]
	dark := darkPorts(rd)
	if len(dark) != 1 || !dark[0].AdminUp {
		return Cause{}, false
	}
	det := end{Device: rd.Name, Iface: dark[0].Name}
	he := end{Device: hv.Name, Iface: hi.Name, Addr: dst.Addr}
	return detachCause(link{A: det, B: he}, det, he, ev,
		r.ev(rd.Calls[pathInterfaces], rd.Name, netproto.ToolYangGet, "%s admin UP, oper %s, no address (a switched port)", dark[0].Name, dark[0].OperStatus),
		r.ev(hv.Calls[pathInterfaces], hv.Name, netproto.ToolYangGet, "%s admin UP, oper UP, %s", hi.Name, dst.Addr)), true
}

// locateLoss pings across every link of a path from both ends and names
// the links that lose packets.
func (r *run) locateLoss(n *network, hops []hop) []Cause {
	var links []link
	for _, h := range hops {
		if h.HasLink {
			links = append(links, h.Link)
		}
	}
	if len(links) == 0 {
		return nil
	}
	r.begin("locate the loss: ping across each link of the path from both ends")
	return r.lossOnLinks(n, links)
}
