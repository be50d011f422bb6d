//go:build linux

package real

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// expectation is what a converged router shows.
type expectation struct {
	ospfFull int      // OSPF neighbours in state Full
	bgpUp    []string // BGP neighbour addresses in state Established
}

// expectations derives from the topology what convergence means: one Full
// OSPF neighbour per link whose two ends are in OSPF, in the same area,
// neither passive nor down; every BGP neighbour that is not shut down and
// whose address belongs to a lab router running BGP with a neighbour
// statement back to this router.
func (l *Lab) expectations() map[string]*expectation {
	p := l.plan
	out := map[string]*expectation{}
	owner := map[netip.Addr]*planDevice{}
	for _, d := range p.Devices {
		if d.Router() {
			out[d.Dev.Name] = &expectation{}
		}
		for _, i := range d.Ifaces {
			for _, a := range i.Addrs {
				owner[a.Addr()] = d
			}
		}
	}
	for _, lk := range p.Links {
		ao, bo := lk.AI.Topol.OSPF, lk.BI.Topol.OSPF
		if !lk.A.Router() || !lk.B.Router() || ao == nil || bo == nil || lk.A.Dev.OSPF == nil || lk.B.Dev.OSPF == nil {
			continue
		}
		if ao.Passive || bo.Passive || lk.AI.Down || lk.BI.Down || normArea(ao.Area) != normArea(bo.Area) {
			continue
		}
		out[lk.A.Dev.Name].ospfFull++
		out[lk.B.Dev.Name].ospfFull++
	}
	for _, d := range p.Devices {
		if !d.Router() || d.Dev.BGP == nil {
			continue
		}
		for _, n := range d.Dev.BGP.Neighbors {
			a, err := netip.ParseAddr(n.Address)
			if err != nil || n.Shutdown {
				continue
			}
			peer, ok := owner[a]
			if !ok || !peer.Router() || peer.Dev.BGP == nil {
				continue
			}
			back := false
			for _, pn := range peer.Dev.BGP.Neighbors {
				if pa, err := netip.ParseAddr(pn.Address); err == nil && owner[pa] == d && !pn.Shutdown {
					back = true
				}
			}
			if back {
				out[d.Dev.Name].bgpUp = append(out[d.Dev.Name].bgpUp, n.Address)
			}
		}
	}
	return out
}

// normArea writes an area id dotted: "0" -> "0.0.0.0".
func normArea(a string) string {
	var n uint32
	if _, err := fmt.Sscanf(a, "%d", &n); err == nil && !strings.Contains(a, ".") {
		return fmt.Sprintf("%d.%d.%d.%d", n>>24, n>>16&255, n>>8&255, n&255)
	}
	return a
}

// WaitConverged polls every router's FRR (vtysh JSON) until OSPF and BGP
// show what the topology expects, or timeout; the error then lists what
// is missing on each router.
func (l *Lab) WaitConverged(ctx context.Context, timeout time.Duration) error {
	exp := l.expectations()
	routers := l.Routers()
	deadline := time.Now().Add(timeout)
	last := ""
	prev := ""
	for {
		var missing, fps []string
		busy := ""
		for k, p := range onEachRouter(routers, func(r string) routerPoll { return l.pollRouter(ctx, r, exp[r]) }) {
			if p.missing != "" {
				missing = append(missing, routers[k]+": "+p.missing)
			}
			fps = append(fps, p.fp)
			if busy == "" {
				busy = p.busy
			}
		}
		if len(missing) == 0 {
			// Sessions up is not routes exchanged: an Established session
			// still has its UPDATEs to send and zebra its routes to
			// install. Converged is the routing tables unchanged across
			// two polls with nothing queued to or from a BGP peer.
			fp := strings.Join(fps, "\n")
			if busy == "" && fp == prev {
				return nil
			}
			prev = fp
			missing = []string{"routing tables still changing"}
			if busy != "" {
				missing = []string{busy}
			}
		} else {
			prev = ""
		}
		if m := strings.Join(missing, "; "); m != last {
			l.logger.Debug("real lab: waiting for convergence", "missing", m)
			last = m
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the real lab did not converge within %s: %s (logs in %s)", timeout, strings.Join(missing, "; "), l.dir)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// routerPoll is one poll of one router: what it still lacks ("" when
// converged); when nothing, its routing fingerprint (selected routes,
// prefix and protocol, and BGP prefix counts) and busy, naming a route
// or BGP peer still being worked on ("" when none).
type routerPoll struct{ missing, fp, busy string }

// pollRouter polls router r against e: each vtysh command once.
func (l *Lab) pollRouter(ctx context.Context, r string, e *expectation) routerPoll {
	var missing []string
	if e.ospfFull > 0 {
		full, err := l.OSPFFull(ctx, r)
		if err != nil {
			return routerPoll{missing: err.Error()}
		}
		if full < e.ospfFull {
			missing = append(missing, fmt.Sprintf("OSPF %d/%d neighbours Full", full, e.ospfFull))
		}
	}
	var peers map[string]bgpPeer
	if d, ok := l.plan.Device(r); len(e.bgpUp) > 0 || (ok && d.Dev.BGP != nil) {
		var err error
		peers, err = l.bgpNeighbors(ctx, r)
		if err != nil && len(e.bgpUp) > 0 {
			return routerPoll{missing: err.Error()}
		}
	}
	for _, a := range e.bgpUp {
		switch p := peers[a]; {
		case p.State != "Established":
			missing = append(missing, fmt.Sprintf("BGP %s %s", a, orUnknown(p.State)))
		case !p.EoR:
			// Established, but the peer's initial routes are still
			// coming (FRR holds a new session's first updates for
			// its coalesce time, about a second).
			missing = append(missing, fmt.Sprintf("BGP %s: no End-of-RIB received yet", a))
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return routerPoll{missing: strings.Join(missing, ", ")}
	}
	return l.routerFingerprint(ctx, r, peers)
}

// routerFingerprint is pollRouter's fingerprint of router r, whose BGP
// peers are peers.
func (l *Lab) routerFingerprint(ctx context.Context, r string, peers map[string]bgpPeer) (p routerPoll) {
	out, err := l.Vtysh(ctx, r, "show ip route json")
	if err != nil {
		return routerPoll{fp: r + ": " + err.Error()}
	}
	var rib map[string][]struct {
		Protocol  string `json:"protocol"`
		Selected  bool   `json:"selected"`
		Installed bool   `json:"installed"`
	}
	if err := json.Unmarshal(out, &rib); err != nil {
		return routerPoll{fp: r + ": show ip route json: " + err.Error()}
	}
	prefixes := make([]string, 0, len(rib))
	for pfx, rs := range rib {
		for _, e := range rs {
			if !e.Selected {
				continue
			}
			prefixes = append(prefixes, pfx+"="+e.Protocol)
			if !e.Installed && e.Protocol != "connected" && e.Protocol != "local" {
				// Chosen by zebra but not yet in the kernel (a BGP
				// route whose recursive next hop is being resolved):
				// packets still find no route.
				p.busy = fmt.Sprintf("%s: %s route %s not yet in the kernel", r, e.Protocol, pfx)
			}
		}
	}
	slices.Sort(prefixes)
	p.fp = r + ":" + strings.Join(prefixes, ",")
	if peers == nil {
		return p
	}
	counts := make([]string, 0, len(peers))
	for a, n := range peers {
		counts = append(counts, fmt.Sprintf("%s=%d", a, n.Pfx))
		if n.Queued && p.busy == "" {
			p.busy = fmt.Sprintf("%s: BGP %s has messages queued", r, a)
		}
	}
	slices.Sort(counts)
	p.fp += ";" + strings.Join(counts, ",")
	return p
}

// eachRouter runs check on every router at once (a router's check is a
// few vtysh calls, mostly waiting) and returns "ROUTER: WHAT" for every
// non-empty answer, in topology order.
func (l *Lab) eachRouter(check func(r string) string) []string {
	routers := l.Routers()
	var out []string
	for k, a := range onEachRouter(routers, check) {
		if a != "" {
			out = append(out, routers[k]+": "+a)
		}
	}
	return out
}

// onEachRouter runs fn on every router at once and returns its answers in
// the order of routers.
func onEachRouter[T any](routers []string, fn func(r string) T) []T {
	answers := make([]T, len(routers))
	var wg sync.WaitGroup
	for k, r := range routers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[k] = fn(r)
		}()
	}
	wg.Wait()
	return answers
}

func orUnknown(s string) string {
	if s == "" {
		return "not configured"
	}
	return s
}

// OSPFFull counts router r's OSPF neighbours in state Full, from
// "show ip ospf neighbor json".
func (l *Lab) OSPFFull(ctx context.Context, r string) (int, error) {
	out, err := l.Vtysh(ctx, r, "show ip ospf neighbor json")
	if err != nil {
		return 0, err
	}
	var v struct {
		Neighbors map[string][]struct {
			State    string `json:"state"`
			NbrState string `json:"nbrState"`
		} `json:"neighbors"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return 0, fmt.Errorf("show ip ospf neighbor json: %w", err)
	}
	n := 0
	for _, list := range v.Neighbors {
		for _, nb := range list {
			if strings.HasPrefix(nb.State, "Full") || strings.HasPrefix(nb.NbrState, "Full") {
				n++
			}
		}
	}
	return n, nil
}

// BGPStates returns router r's BGP neighbours and their states
// ("Established", "Active", ...), from "show bgp neighbors json".
func (l *Lab) BGPStates(ctx context.Context, r string) (map[string]string, error) {
	peers, err := l.bgpNeighbors(ctx, r)
	if err != nil {
		return nil, err
	}
	states := map[string]string{}
	for a, p := range peers {
		states[a] = p.State
	}
	return states, nil
}

// bgpPeer is what "show bgp neighbors json" tells of one BGP neighbour.
type bgpPeer struct {
	State  string // "Established", "Active", ...
	EoR    bool   // End-of-RIB received for IPv4 unicast, or no graceful restart negotiated (no End-of-RIB is sent)
	Queued bool   // messages queued to or from it
	Pfx    int    // IPv4 unicast prefixes accepted from it
}

// bgpNeighbors returns router r's BGP neighbours by address.
func (l *Lab) bgpNeighbors(ctx context.Context, r string) (map[string]bgpPeer, error) {
	out, err := l.Vtysh(ctx, r, "show bgp neighbors json")
	if err != nil {
		return nil, err
	}
	var v map[string]struct {
		State string `json:"bgpState"`
		GR    *struct {
			EoRRecv map[string]bool `json:"endOfRibRecv"`
		} `json:"gracefulRestartInfo"`
		Stats struct {
			InQ  int `json:"depthInq"`
			OutQ int `json:"depthOutq"`
		} `json:"messageStats"`
		AF struct {
			IPv4 struct {
				Pfx int `json:"acceptedPrefixCounter"`
			} `json:"ipv4Unicast"`
		} `json:"addressFamilyInfo"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("show bgp neighbors json: %w", err)
	}
	peers := map[string]bgpPeer{}
	for a, n := range v {
		peers[a] = bgpPeer{
			State:  n.State,
			EoR:    n.GR == nil || n.GR.EoRRecv == nil || n.GR.EoRRecv["ipv4Unicast"],
			Queued: n.Stats.InQ > 0 || n.Stats.OutQ > 0,
			Pfx:    n.AF.IPv4.Pfx,
		}
	}
	return peers, nil
}
