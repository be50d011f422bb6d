package netsim

import (
	"fmt"
	"net/netip"
	"time"
)

// This file runs the control plane on each rebuild and answers the
// control-plane API of control.go.
//
// Order: the OSPF adjacencies and graph come first (they need only the
// interfaces, links and ACLs); the routing tables then take their OSPF
// routes from the graph lazily, as before. When some router runs BGP, the
// sessions and routes are computed at once, to a fixed point: sessions
// need the tables (TCP to port 179 is forwarded through them), the tables
// take the best BGP paths, which can change what the sessions reach. The
// loop stops when the installed BGP routes and the sessions no longer
// change (at most bgpMaxOuterRounds rounds). A topology without OSPF and
// BGP skips all of it and keeps its lazy tables.

// controlPlane computes OSPF and BGP for a freshly built state; old is the
// previous state (nil on the first build), whose neighbour states give
// the new ones their history (Since, BGP's last error).
func (s *state) controlPlane(old *state, now time.Time) {
	s.compileOSPF()
	s.compileBGP()
	if len(s.ospfList) > 0 {
		s.ospfExternals()
		s.ospfAdjacencies(old, now)
		s.ospfBuildGraph()
	}
	if len(s.bgpList) > 0 {
		s.bgpConverge()
		s.bgpHistory(old, now)
	}
}

// bgpConverge runs the sessions/routes fixed point.
func (s *state) bgpConverge() {
	owner := map[netip.Addr]*device{}
	for _, d := range s.order {
		for _, it := range d.ifList {
			if it.vrf != "" || !it.adminUp {
				continue
			}
			for _, p := range it.addrs {
				if _, dup := owner[p.Addr()]; !dup {
					owner[p.Addr()] = d
				}
			}
		}
	}
	for _, p := range s.bgpList {
		for i, fam := range []int{4, 6} {
			k := ribKey{"", fam}
			t := s.tablesOf(p.d)
			p.base[i] = t.fibs[k]
			p.baseRoutes[i] = t.ribs[k]
		}
	}
	s.bgpSessions(owner)
	for round := 0; round < bgpMaxOuterRounds; round++ {
		for s.bgpPropagate() {
			s.bgpSessions(owner) // a maximum-prefix trip takes sessions down
		}
		changed := false
		for _, p := range s.bgpList {
			if p.install() {
				changed = true
				s.recomputeTables(p.d)
			}
		}
		if !changed {
			break
		}
		// The routes changed: the sessions may reach differently. When
		// they do not, the exchange over them stands.
		before := sessionStates(s.bgpList)
		s.bgpSessions(owner)
		if sessionStates(s.bgpList) == before {
			break
		}
	}
}

// sessionStates summarises every session's outcome, to tell whether a
// recomputation changed any.
func sessionStates(ps []*bgpProc) string {
	var b []byte
	for _, p := range ps {
		for _, n := range p.nbrs {
			b = append(b, n.state...)
			b = append(b, '|')
			b = append(b, n.cause...)
			b = append(b, '|')
		}
	}
	return string(b)
}

// bgpRoutesOf returns the BGP routes to put in one of a device's tables.
func (s *state) bgpRoutesOf(d *device, k ribKey) []*route {
	p := s.bgp[d]
	if p == nil || k.vrf != "" {
		return nil
	}
	src := p.installed[0]
	if k.family == 6 {
		src = p.installed[1]
	}
	out := make([]*route, len(src))
	for i, r := range src {
		c := *r
		out[i] = &c
	}
	return out
}

// OSPF returns the OSPF process of a device (Configured false when it has none).
func (n *Network) OSPF(dev string) (OSPFState, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return OSPFState{}, err
	}
	p := n.state.ospf[d]
	if p == nil {
		return OSPFState{}, nil
	}
	return p.state(), nil
}

// BGP returns the BGP process of a device with its sessions (Configured
// false when it has none).
func (n *Network) BGP(dev string) (BGPState, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return BGPState{}, err
	}
	p := n.state.bgp[d]
	if p == nil {
		return BGPState{}, nil
	}
	st := BGPState{Configured: true, Running: p.running, ASN: p.asn, RouterID: p.rid}
	for _, nb := range p.nbrs {
		st.Neighbors = append(st.Neighbors, nb.neighborState())
	}
	return st, nil
}

// BGPRoutes returns a device's BGP table of one family (4 or 6): every
// path, the selected one of each prefix marked Best.
func (n *Network) BGPRoutes(dev string, family int) ([]BGPRoute, error) {
	if family != 4 && family != 6 {
		return nil, errFamily(family)
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return nil, err
	}
	p := n.state.bgp[d]
	if p == nil || !p.running {
		return nil, nil
	}
	return p.routesOf(family), nil
}

// Adjacencies returns every OSPF adjacency and BGP session of the network,
// in topology order: one pass under one lock.
func (n *Network) Adjacencies() []AdjacencyStatus {
	n.mu.RLock()
	defer n.mu.RUnlock()
	s := n.state
	var out []AdjacencyStatus
	for _, d := range s.order {
		if p := s.ospf[d]; p != nil {
			for _, oi := range p.ifs {
				for _, nb := range oi.nbrs {
					out = append(out, AdjacencyStatus{Device: d.name, Protocol: ProtoOSPF, Peer: nb.rid.String(),
						Interface: oi.it.name, State: nb.state, Reason: nb.reason})
				}
			}
		}
		if p := s.bgp[d]; p != nil {
			for _, nb := range p.nbrs {
				out = append(out, AdjacencyStatus{Device: d.name, Protocol: ProtoBGP, Peer: nb.addr.String(),
					State: nb.state, Reason: nb.lastErr})
			}
		}
	}
	return out
}

// errFamily is the error of an address family that is neither 4 nor 6.
func errFamily(family int) error {
	return fmt.Errorf("netsim: address family %d (want 4 or 6)", family)
}
