package controller

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// bgpDown explains why a BGP neighbour is down (the troubleshooting
// draft's 4.4.2): the session's state and last error, the path to the
// peer (interfaces, ACLs on TCP 179 both ways), a capture on port 179 when
// the device has the capture tool, and the configuration of both ends.
func (r *run) bgpDown(in Intent) error {
	n := r.readNetwork()
	if in.Device == "" {
		for _, name := range n.Order {
			if b := n.Devices[name].BGP; b != nil && slices.ContainsFunc(b.Neighbors, func(nb bgpNeighbor) bool { return nb.Address == in.Peer }) {
				in.Device = name
				break
			}
		}
		if in.Device == "" {
			return fmt.Errorf("no device of the fleet has a BGP neighbor %s", in.Peer)
		}
		r.progress("  %s has the BGP neighbor %s", in.Device, in.Peer)
	}
	d := n.Devices[in.Device]
	if d == nil {
		return fmt.Errorf("device %s: not in the fleet or not readable (%s)", in.Device, n.Unread[in.Device])
	}
	r.begin(fmt.Sprintf("BGP neighbor %s on %s: state, last error, configuration", in.Peer, in.Device))
	if d.BGP == nil {
		// No BGP state to read: the path to the peer is still checked.
		r.progress("  %s reports no BGP state (%s has no BGP protocol instance): checking the path to %s only", in.Device, pathNetInst, in.Peer)
		for _, c := range r.analyzeBGP(n, d, bgpNeighbor{Address: in.Peer, Enabled: true, State: "UNKNOWN"}, true) {
			r.rep.addCause(c)
		}
		if len(r.rep.RootCauses) == 0 {
			r.rep.Diagnosis = fmt.Sprintf("%s reports no BGP state, and the path to %s (interfaces, ACLs on TCP 179) is clear.", in.Device, in.Peer)
		}
		return nil
	}
	i := slices.IndexFunc(d.BGP.Neighbors, func(nb bgpNeighbor) bool { return nb.Address == in.Peer })
	if i < 0 {
		c := newCause("bgp_neighbor_missing", []string{in.Device}, in.Peer, fmt.Sprintf("%s has no BGP neighbor %s configured.", in.Device, in.Peer),
			r.ev(d.Calls[pathNetInst], in.Device, netproto.ToolYangGet, "neighbors: %s", neighborList(d.BGP)))
		c.Fix = fmt.Sprintf("Configure neighbor %s on %s.", in.Peer, in.Device)
		r.rep.addCause(c)
		return nil
	}
	nb := d.BGP.Neighbors[i]
	r.summarize(d.Calls[pathNetInst], "BGP AS %d, neighbor %s: %s", d.BGP.AS, nb.Address, bgpWords(nb))
	for _, c := range r.analyzeBGP(n, d, nb, true) {
		r.rep.addCause(c)
	}
	ok := nb.Established()
	r.rep.Verified = &ok
	if ok && len(r.rep.RootCauses) == 0 {
		r.rep.Diagnosis = fmt.Sprintf("The BGP session from %s to %s is established (%d prefixes received).", in.Device, in.Peer, nb.Received)
	} else if len(r.rep.RootCauses) == 0 {
		r.rep.Diagnosis = fmt.Sprintf("The BGP session from %s to %s is %s (%s) and no cause was found in the path or configuration.", in.Device, in.Peer, nb.State, nb.LastError)
	}
	return nil
}

func neighborList(b *bgpView) string {
	var s []string
	for _, nb := range b.Neighbors {
		s = append(s, nb.Address)
	}
	return strings.Join(s, ", ")
}

func bgpWords(nb bgpNeighbor) string {
	s := fmt.Sprintf("session %s, peer-as %d", cmpOr(nb.State, "unknown"), nb.PeerAS)
	if nb.LastError != "" || nb.ErrSub != "" {
		s += fmt.Sprintf(", last error %s", cmpOr(nb.LastError, nb.ErrCode+"/"+nb.ErrSub))
	}
	return s
}

func cmpOr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// analyzeBGP finds why a session is not established. capture asks for a
// packet capture on port 179 when the device has the tool.
func (r *run) analyzeBGP(n *network, d *deviceView, nb bgpNeighbor, capture bool) []Cause {
	if nb.Established() {
		return nil
	}
	nev := r.ev(d.Calls[pathNetInst], d.Name, netproto.ToolYangGet, "neighbor %s: %s", nb.Address, bgpWords(nb))
	if nb.State == "UNKNOWN" {
		nev.Showed = "no BGP state reported"
	}
	var causes []Cause
	if !nb.Enabled {
		c := newCause("bgp_neighbor_shutdown", []string{d.Name}, nb.Address, fmt.Sprintf("The BGP neighbor %s is administratively disabled on %s.", nb.Address, d.Name), nev)
		c.Fix = fmt.Sprintf("Enable neighbor %s on %s.", nb.Address, d.Name)
		return []Cause{c}
	}
	peerAddr, err := netip.ParseAddr(nb.Address)
	if err != nil {
		return nil
	}
	p, _ := n.Owner(peerAddr)
	// The address d uses toward the peer: the one the peer has configured.
	var local netip.Addr
	var pnb *bgpNeighbor
	if p != nil && p.BGP != nil {
		for i, x := range p.BGP.Neighbors {
			if a, err := netip.ParseAddr(x.Address); err == nil && d.Owns(a) != nil {
				local, pnb = a, &p.BGP.Neighbors[i]
			}
		}
	}
	// Configuration: the AS numbers each end expects.
	if p != nil && p.BGP != nil && p.BGP.AS != 0 && nb.PeerAS != 0 && nb.PeerAS != p.BGP.AS {
		c := newCause("bgp_asn_misconfig", []string{d.Name}, nb.Address,
			fmt.Sprintf("%s expects AS %d for neighbor %s, but %s is AS %d: the session fails with OPEN Message Error/Bad Peer AS.", d.Name, nb.PeerAS, nb.Address, p.Name, p.BGP.AS),
			nev, r.ev(p.Calls[pathNetInst], p.Name, netproto.ToolYangGet, "BGP global AS %d", p.BGP.AS))
		c.Fix = fmt.Sprintf("Set the remote AS of neighbor %s on %s to %d.", nb.Address, d.Name, p.BGP.AS)
		c.Changes = []Change{{Device: d.Name, Summary: fmt.Sprintf("peer-as of %s from %d to %d", nb.Address, nb.PeerAS, p.BGP.AS),
			Edit:  []EditOp{{Operation: "merge", Path: bgpNeighborPath(nb.Address) + "/config", Value: map[string]any{"peer-as": p.BGP.AS}}},
			Diff:  fmt.Sprintf("--- %s running\n+++ %s proposed\n bgp neighbor %s\n-  remote-as %d\n+  remote-as %d\n", d.Name, d.Name, nb.Address, nb.PeerAS, p.BGP.AS),
			Cause: "bgp_asn_misconfig"}}
		causes = append(causes, c)
	}
	if pnb != nil && d.BGP != nil && d.BGP.AS != 0 && pnb.PeerAS != 0 && pnb.PeerAS != d.BGP.AS {
		c := newCause("bgp_asn_misconfig", []string{p.Name}, pnb.Address,
			fmt.Sprintf("%s expects AS %d for neighbor %s, but %s is AS %d: the session fails with OPEN Message Error/Bad Peer AS.", p.Name, pnb.PeerAS, pnb.Address, d.Name, d.BGP.AS),
			r.ev(p.Calls[pathNetInst], p.Name, netproto.ToolYangGet, "neighbor %s: %s", pnb.Address, bgpWords(*pnb)),
			r.ev(d.Calls[pathNetInst], d.Name, netproto.ToolYangGet, "BGP global AS %d", d.BGP.AS))
		c.Fix = fmt.Sprintf("Set the remote AS of neighbor %s on %s to %d.", pnb.Address, p.Name, d.BGP.AS)
		causes = append(causes, c)
	}
	if len(causes) > 0 {
		return causes
	}
	if p != nil && p.BGP == nil && d.BGP != nil {
		c := newCause("frr_service_down", []string{p.Name}, "",
			fmt.Sprintf("%s reports no BGP process although %s peers with it at %s: its routing daemons are down.", p.Name, d.Name, nb.Address),
			nev, r.ev(p.Calls[pathNetInst], p.Name, netproto.ToolYangGet, "no BGP protocol instance"))
		c.Fix = fmt.Sprintf("Restart the routing service on %s.", p.Name)
		return []Cause{c}
	}
	// The path: interfaces and ACLs on TCP 179, both ways.
	hops, stop := n.walk(d.Name, peerAddr)
	t := traffic{Protocol: "TCP", Port: 179, Dst: peerAddr, Src: local}
	what := fmt.Sprintf("BGP (TCP port 179) between %s and %s", d.Name, nb.Address)
	cs, _ := r.checkHops(n, hops, t, what)
	causes = append(causes, cs...)
	if p != nil && local.IsValid() {
		bh, _ := n.walk(p.Name, local)
		cs, _ := r.checkHops(n, bh, traffic{Protocol: "TCP", Port: 179, Src: peerAddr, Dst: local}, what)
		causes = append(causes, cs...)
	}
	if capture {
		r.captureBGP(causes, d.Name, hops) // capture_bgp.go
	}
	if len(causes) == 0 && stop != "" {
		// No route to the peer: the IGP that should carry it comes first.
		causes = r.ospfProblems(n)
		if len(causes) == 0 {
			causes = append(causes, r.routeCause(n, hops, d.Name, endpoint{Name: nb.Address, Addr: peerAddr}, stop))
		}
	}
	for i := range causes {
		causes[i].Evidence = append([]Evidence{nev}, causes[i].Evidence...)
	}
	return causes
}

// bgpNeighborPath is the YANG path of a BGP neighbour (COMMON.md).
func bgpNeighborPath(addr string) string {
	return "/openconfig-network-instance:network-instances/network-instance[name='default']/protocols/protocol[identifier='openconfig-policy-types:BGP'][name='bgp']/bgp/neighbors/neighbor[neighbor-address='" + addr + "']"
}

// capture runs the capture tool on an interface for a port, over window
// (0: the tool's default), when the device has it; its arguments are built
// from the tool's input schema. It returns the packets captured and the
// call's number (0: no capture was made).
func (r *run) capture(dev, iface string, port int, window time.Duration) ([]any, int) {
	if r.c.Fleet == nil {
		return nil, 0
	}
	d := r.c.Fleet.Device(dev)
	if d == nil || !d.HasTool(netproto.ToolCapture) {
		r.progress("  [%s] has no %s tool: no packet capture", dev, netproto.ToolCapture)
		return nil, 0
	}
	var props map[string]any
	for _, t := range d.Tools() {
		if t.Name == netproto.ToolCapture {
			props = yang.Object(yang.Member(t.InputSchema, "properties"))
			if props == nil {
				if m, ok := t.InputSchema.(map[string]any); ok {
					props = yang.Object(m["properties"])
				}
			}
		}
	}
	args := map[string]any{}
	for k, v := range props {
		typ := yang.Text(yang.Object(v)["type"])
		switch k {
		case "interface":
			args[k] = iface
		case "port":
			args[k] = port
		case "protocol":
			args[k] = "tcp"
		case "filter":
			if typ == "string" {
				args[k] = fmt.Sprintf("tcp port %d", port)
			} else {
				args[k] = map[string]any{"protocol": "tcp", "port": port}
			}
		case "count", "packets", "maxPackets":
			args[k] = capturePackets
		case "durationSeconds":
			if window > 0 {
				args[k] = int(window / time.Second)
			}
		}
	}
	out, call, err := r.call(dev, netproto.ToolCapture, args)
	if err != nil {
		return nil, 0
	}
	pk := yang.List(yang.Member(out, "packets"))
	r.summarize(call, "%d packets on port %d captured on %s", len(pk), port, iface)
	return pk, call
}

// ospfDown explains why the OSPF adjacency between two routers is down.
func (r *run) ospfDown(in Intent) error {
	n := r.readNetwork()
	for _, x := range []string{in.Device, in.Peer} {
		if n.Devices[x] == nil {
			return fmt.Errorf("device %s: not in the fleet or not readable (%s)", x, n.Unread[x])
		}
	}
	links := n.LinksBetween(in.Device, in.Peer)
	r.begin(fmt.Sprintf("OSPF between %s and %s: the links, both ends' area, network type, timers, passive, MTU, ACLs on protocol 89", in.Device, in.Peer))
	if len(links) == 0 {
		r.rep.Diagnosis = fmt.Sprintf("%s and %s share no link (no common subnet): they cannot be OSPF neighbours directly.", in.Device, in.Peer)
		return nil
	}
	full := true
	for _, l := range links {
		cs, isFull := r.analyzeOSPFLink(n, l)
		full = full && isFull
		for _, c := range cs {
			r.rep.addCause(c)
		}
	}
	r.rep.Verified = &full
	if len(r.rep.RootCauses) == 0 {
		if full {
			r.rep.Diagnosis = fmt.Sprintf("The OSPF adjacency between %s and %s is FULL.", in.Device, in.Peer)
		} else {
			r.rep.Diagnosis = fmt.Sprintf("The OSPF adjacency between %s and %s is not FULL and no cause was found.", in.Device, in.Peer)
		}
	}
	return nil
}

// adjacency returns the state of the neighbour on an OSPF interface
// whose router id is rid ("" when absent).
func adjacency(oi ospfIface, rid string) ospfNeighbor {
	for _, nb := range oi.Neighbors {
		if rid == "" || nb.RouterID == rid {
			return nb
		}
	}
	return ospfNeighbor{}
}

// analyzeOSPFLink checks one link for what keeps OSPF from FULL; it also
// tells whether the adjacency is FULL on both ends.
func (r *run) analyzeOSPFLink(n *network, l link) ([]Cause, bool) {
	da, db := n.Devices[l.A.Device], n.Devices[l.B.Device]
	a, b := da.Iface(l.A.Iface), db.Iface(l.B.Iface)
	ea := func(format string, args ...any) Evidence {
		return r.ev(da.Calls[pathNetInst], da.Name, netproto.ToolYangGet, format, args...)
	}
	eb := func(format string, args ...any) Evidence {
		return r.ev(db.Calls[pathNetInst], db.Name, netproto.ToolYangGet, format, args...)
	}
	if a == nil || b == nil {
		return nil, false
	}
	if c, ok := endsCause(l, a, b,
		r.ev(da.Calls[pathInterfaces], da.Name, netproto.ToolYangGet, "%s admin %s, oper %s", a.Name, upDown(a.AdminUp), a.OperStatus),
		r.ev(db.Calls[pathInterfaces], db.Name, netproto.ToolYangGet, "%s admin %s, oper %s", b.Name, upDown(b.AdminUp), b.OperStatus)); ok {
		return []Cause{c}, false
	}
	if da.OSPF == nil && db.OSPF == nil {
		// No OSPF state reported: what would stop OSPF on the link is
		// still checked (MTU, ACLs on protocol 89).
		var causes []Cause
		if a.MTU != b.MTU {
			causes = append(causes, r.mtuMismatch(n, l))
		}
		causes = append(causes, r.ospfACLs(n, l)...)
		return causes, len(causes) == 0
	}
	var oa, ob ospfIface
	var hasA, hasB bool
	if da.OSPF != nil {
		oa, hasA = da.OSPF.Iface(l.A.Iface)
	}
	if db.OSPF != nil {
		ob, hasB = db.OSPF.Iface(l.B.Iface)
	}
	if !hasA && !hasB {
		return nil, true // the link is not in OSPF on purpose
	}
	ridA, ridB := "", ""
	if da.OSPF != nil {
		ridA = da.OSPF.RouterID
	}
	if db.OSPF != nil {
		ridB = db.OSPF.RouterID
	}
	na, nb := adjacency(oa, ridB), adjacency(ob, ridA)
	full := hasA && hasB && na.State == "FULL" && nb.State == "FULL"
	if full || (oa.Passive && ob.Passive) {
		return nil, full
	}
	state := fmt.Sprintf("%s sees %s, %s sees %s", da.Name, cmpOr(na.State, "no neighbor"), db.Name, cmpOr(nb.State, "no neighbor"))
	if na.Reason != "" || nb.Reason != "" {
		state += " (" + strings.Trim(na.Reason+"; "+nb.Reason, "; ") + ")"
	}
	var causes []Cause
	switch {
	case da.OSPF == nil || db.OSPF == nil:
		down, up := db, da
		if da.OSPF == nil {
			down, up = da, db
		}
		c := newCause("frr_service_down", []string{down.Name}, "", fmt.Sprintf("%s reports no OSPF process although its link to %s is in OSPF on %s: its routing daemons are down.", down.Name, up.Name, up.Name),
			r.ev(down.Calls[pathNetInst], down.Name, netproto.ToolYangGet, "no OSPF protocol instance"))
		c.Fix = fmt.Sprintf("Restart the routing service on %s.", down.Name)
		return []Cause{c}, false
	case !hasA || !hasB:
		miss, other, mi := da, db, l.A.Iface
		if hasA {
			miss, other, mi = db, da, l.B.Iface
		}
		c := newCause("ospf_neighbor_missing", []string{miss.Name}, miss.Name+":"+mi,
			fmt.Sprintf("%s:%s is not in OSPF while %s runs OSPF on the other end: no adjacency on the link %s.", miss.Name, mi, other.Name, l),
			r.ev(miss.Calls[pathNetInst], miss.Name, netproto.ToolYangGet, "no OSPF interface %s", mi))
		c.Fix = fmt.Sprintf("Add %s:%s to OSPF (area %s).", miss.Name, mi, cmpOr(oa.Area, ob.Area))
		return []Cause{c}, false
	}
	if oa.Area != ob.Area {
		odd, oi, oddIf := db, ob, l.B.Iface
		if r.oddAreaIsA(n, da, oa, db, ob) {
			odd, oi, oddIf = da, oa, l.A.Iface
		}
		right := oa.Area
		if odd == da {
			right = ob.Area
		}
		c := newCause("ospf_area_misconfiguration", []string{odd.Name}, odd.Name+":"+oddIf,
			fmt.Sprintf("Area mismatch on the link %s: %s:%s is in area %s, %s:%s in area %s (%s).", l, da.Name, l.A.Iface, oa.Area, db.Name, l.B.Iface, ob.Area, state),
			ea("%s area %s", l.A.Iface, oa.Area), eb("%s area %s", l.B.Iface, ob.Area))
		c.Fix = fmt.Sprintf("Put %s:%s in area %s.", odd.Name, oi.Name, right)
		causes = append(causes, c)
	}
	if a.MTU != b.MTU {
		causes = append(causes, r.mtuMismatch(n, l))
	}
	if oa.Passive != ob.Passive {
		pd, pif := da, l.A.Iface
		if ob.Passive {
			pd, pif = db, l.B.Iface
		}
		c := newCause("ospf_passive_interface", []string{pd.Name}, pd.Name+":"+pif,
			fmt.Sprintf("%s:%s is passive in OSPF: it sends no hellos to %s (%s).", pd.Name, pif, l, state),
			ea("%s passive %v", l.A.Iface, oa.Passive), eb("%s passive %v", l.B.Iface, ob.Passive))
		c.Fix = fmt.Sprintf("Make %s:%s non-passive.", pd.Name, pif)
		causes = append(causes, c)
	}
	if (oa.Hello != 0 && ob.Hello != 0 && oa.Hello != ob.Hello) || (oa.Dead != 0 && ob.Dead != 0 && oa.Dead != ob.Dead) {
		c := newCause("ospf_timer_mismatch", []string{da.Name, db.Name}, l.String(),
			fmt.Sprintf("OSPF timers differ on the link %s: hello %d/%d, dead %d/%d (%s).", l, oa.Hello, ob.Hello, oa.Dead, ob.Dead, state),
			ea("%s hello %d dead %d", l.A.Iface, oa.Hello, oa.Dead), eb("%s hello %d dead %d", l.B.Iface, ob.Hello, ob.Dead))
		c.Fix = "Use the same hello and dead intervals on both ends."
		causes = append(causes, c)
	}
	causes = append(causes, r.ospfACLs(n, l)...)
	for i := range causes {
		causes[i].Evidence = append(causes[i].Evidence, ea("adjacency: %s", state))
	}
	return causes, false
}

// oddAreaIsA tells whether end A (oa, on router da) of a link whose ends
// are in different areas is the misconfigured one rather than end B. The
// comparison is local, each end against its own router:
//   - a router in several areas must be in the backbone (an area border
//     router joins areas through area 0): an end whose area makes its
//     router one in several areas without the backbone is the odd one;
//   - else an end whose area is on none of its router's other OSPF
//     interfaces, while the other end's area is on its router's, is.
//
// Only when neither decides are the areas counted across the network,
// the rarer taken for the mistake.
func (r *run) oddAreaIsA(n *network, da *deviceView, oa ospfIface, db *deviceView, ob ospfIface) bool {
	aBad, bBad := !backboneJoined(da), !backboneJoined(db)
	if aBad != bBad {
		return aBad
	}
	aAlone, bAlone := !areaElsewhere(da, oa), !areaElsewhere(db, ob)
	if aAlone != bAlone {
		return aAlone
	}
	return r.areaCount(n, oa.Area) < r.areaCount(n, ob.Area)
}

// backboneJoined tells whether router d is in one area only, or in the
// backbone (area 0) among its areas.
func backboneJoined(d *deviceView) bool {
	areas := map[string]bool{}
	for _, i := range d.OSPF.Interfaces {
		areas[i.Area] = true
	}
	return len(areas) <= 1 || areas["0.0.0.0"]
}

// areaElsewhere tells whether router d has oi's area on an OSPF interface
// other than oi.
func areaElsewhere(d *deviceView, oi ospfIface) bool {
	for _, i := range d.OSPF.Interfaces {
		if i.Name != oi.Name && i.Area == oi.Area {
			return true
		}
	}
	return false
}

// areaCount counts the OSPF interfaces of the network in an area.
func (r *run) areaCount(n *network, area string) int {
	c := 0
	for _, d := range n.Devices {
		if d.OSPF == nil {
			continue
		}
		for _, i := range d.OSPF.Interfaces {
			if i.Area == area {
				c++
			}
		}
	}
	return c
}

// anyRouting tells whether any router of the network runs BGP or OSPF.
func anyRouting(n *network) bool { return anyBGP(n) || anyOSPF(n) }

// routingDaemons names the routers whose routing daemons are down
// (deadDaemons); the other routing rules leave their sessions and
// adjacencies alone.
func (r *run) routingDaemons(s *sweepState) {
	n := s.n
	dead := r.deadDaemons(n)
	for _, name := range sortedKeys(dead) {
		c := newCause("frr_service_down", []string{name}, "", fmt.Sprintf("The OSPF process of %s reports every one of its interfaces down while the interfaces are up, and its sessions and adjacencies are down: its routing daemons are down.", name),
			r.ev(n.Devices[name].Calls[pathNetInst], name, netproto.ToolYangGet, "every OSPF interface netmcp-oper-up false; %d sessions and adjacencies, none up", dead[name]),
			r.ev(n.Devices[name].Calls[pathInterfaces], name, netproto.ToolYangGet, "its interfaces are oper UP"))
		c.Fix = fmt.Sprintf("Restart the routing service on %s.", name)
		r.rep.addCause(c)
	}
	s.dead = dead
}

// ospfAdjacencies checks every link for what keeps OSPF from FULL
// (analyzeOSPFLink), but links of a router whose daemons are down and
// causes the link rules found already.
func (r *run) ospfAdjacencies(s *sweepState) {
	n := s.n
	for _, l := range n.Links {
		if s.dead[l.A.Device] > 0 || s.dead[l.B.Device] > 0 {
			continue
		}
		cs, _ := r.analyzeOSPFLink(n, l)
		for _, c := range cs {
			if !r.linkCauseKnown(c) {
				r.rep.addCause(c)
			}
		}
	}
}

// bgpSessions checks every BGP session that is not established
// (analyzeBGP), but those of a router whose daemons are down, on either
// end, and causes the link rules found already.
func (r *run) bgpSessions(s *sweepState) {
	n := s.n
	involves := func(d *deviceView, addr string) bool {
		if s.dead[d.Name] > 0 {
			return true
		}
		if a, err := netip.ParseAddr(addr); err == nil {
			if p, _ := n.Owner(a); p != nil && s.dead[p.Name] > 0 {
				return true
			}
		}
		return false
	}
	for _, name := range n.Order {
		d := n.Devices[name]
		if d.BGP == nil {
			continue
		}
		for _, nb := range d.BGP.Neighbors {
			if nb.Established() || involves(d, nb.Address) {
				continue
			}
			for _, c := range r.analyzeBGP(n, d, nb, false) {
				if c.Name == "missing_route" && len(s.dead) > 0 {
					// A router whose daemons are down withdrew every
					// route through it: a route missing elsewhere is
					// its consequence, not a cause of its own.
					continue
				}
				if !r.linkCauseKnown(c) {
					r.rep.addCause(c)
				}
			}
		}
	}
}

// ospfProblems returns what keeps OSPF from FULL on every link of the
// network (each cause once).
func (r *run) ospfProblems(n *network) []Cause {
	var out []Cause
	for _, l := range n.Links {
		cs, _ := r.analyzeOSPFLink(n, l)
		for _, c := range cs {
			if !slices.ContainsFunc(out, func(o Cause) bool { return o.Name == c.Name && o.Where == c.Where }) {
				out = append(out, c)
			}
		}
	}
	return out
}

// linkCauseKnown tells whether a cause repeats one already found (a link
// down or an MTU mismatch seen by the link check).
func (r *run) linkCauseKnown(c Cause) bool {
	devs := slices.Sorted(slices.Values(c.Devices)) // as found causes keep them
	for _, o := range r.rep.RootCauses {
		if (o.Name == c.Name || o.Name == "link_flap" && c.Name == "link_down") && (o.Where == c.Where || slices.Equal(o.Devices, devs) && (c.Name == "link_down" || c.Name == "mtu_mismatch")) {
			return true
		}
	}
	return false
}

// missingAdvertisements finds a router whose connected LAN (with a known
// host) is in no other BGP router's table while its sessions are up: it
// does not advertise the prefix.
func (r *run) missingAdvertisements(n *network) {
	if len(r.rep.RootCauses) > 0 {
		return // a cause found already explains missing routes
	}
	for _, h := range n.Hosts {
		origin := n.Devices[h.Router.Device]
		if origin == nil || origin.BGP == nil || len(origin.BGP.Neighbors) == 0 {
			continue
		}
		if it := origin.Iface(h.Router.Iface); it == nil || it.VRF != "" || !it.OperUp {
			continue // a LAN in a VRF is not the default table's to carry
		}
		if origin.BGP.Networks != nil && slices.ContainsFunc(origin.BGP.Networks, func(p string) bool {
			q, err := netip.ParsePrefix(p)
			return err == nil && q.Contains(h.Addr)
		}) {
			continue // originated: something else keeps it from the peers
		}
		up := false
		for _, nb := range origin.BGP.Neighbors {
			up = up || nb.Established()
		}
		if !up {
			continue
		}
		var missing []string
		var ev []Evidence
		for _, name := range n.Order {
			d := n.Devices[name]
			if name == origin.Name || d.BGP == nil {
				continue
			}
			if rt, ok := d.Lookup(h.Addr); !ok || rt.Prefix.Bits() == 0 {
				missing = append(missing, name)
				ev = append(ev, r.ev(d.Calls[pathRouting], name, netproto.ToolYangGet, "no route to %s but the default", h.Addr))
			}
		}
		if len(missing) == 0 {
			continue
		}
		ev = append(ev, r.ev(origin.Calls[pathNetInst], origin.Name, netproto.ToolYangGet, "BGP networks %v", origin.BGP.Networks))
		c := newCause("bgp_missing_route_advertisement", []string{origin.Name}, "",
			fmt.Sprintf("%s has %s's LAN connected and its BGP sessions up, but %s have no route to %s: %s does not advertise the prefix.",
				origin.Name, h.Host.Name, strings.Join(missing, ", "), h.Addr, origin.Name), ev...)
		c.Fix = fmt.Sprintf("Add the network statement of %s's LAN to %s's BGP configuration.", h.Host.Name, origin.Name)
		if !r.causeKnown(c) {
			r.rep.addCause(c)
		}
	}
}

// deadDaemons finds the routers whose routing daemons are down: their
// OSPF process reports every one of its interfaces down (netmcp-oper-up
// false) while at least one of those interfaces is up, so the daemon, not
// the links, is gone. It returns each one with its number of sessions and
// adjacencies.
func (r *run) deadDaemons(n *network) map[string]int {
	dead := map[string]int{}
	for _, name := range n.Order {
		d := n.Devices[name]
		if d.OSPF == nil || len(d.OSPF.Interfaces) == 0 {
			continue
		}
		allDown, someUp := true, false
		for _, oi := range d.OSPF.Interfaces {
			allDown = allDown && oi.DaemonDown
			if it := d.Iface(oi.Name); it != nil && it.OperUp {
				someUp = true
			}
		}
		if !allDown || !someUp {
			continue
		}
		count := len(d.OSPF.Interfaces)
		if d.BGP != nil {
			count += len(d.BGP.Neighbors)
		}
		dead[name] = count
	}
	return dead
}

// ospfACLs returns the ACLs bound on either end of a link that drop OSPF.
func (r *run) ospfACLs(n *network, l link) []Cause {
	var causes []Cause
	what := fmt.Sprintf("OSPF (IP protocol 89) on the link %s", l)
	for _, e := range []end{l.A, l.B} {
		d := n.Devices[e.Device]
		for _, f := range droppingACLs(d, e.Iface, traffic{Protocol: "OSPF"}) {
			if f.Entry.Protocol == "OSPF" || f.Entry.Seq == 0 {
				causes = append(causes, aclCause(f, traffic{Protocol: "OSPF"}, what,
					r.ev(d.Calls[PathACL], d.Name, netproto.ToolYangGet, "ACL %s bound %s on %s: %s", f.Binding.Set, f.Binding.Dir(), f.Binding.Iface, f.Entry)))
			}
		}
	}
	return causes
}
