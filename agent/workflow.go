package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/d2d/tlv"
	"github.com/netmcp/netmcp/netproto"
)

// Probes is the number of pings each device sends to its path neighbour.
const Probes = 10

// ProbeIntervalMs is the time between two pings (the smallest diag allows).
const ProbeIntervalMs = 200

// pathLink is a link of the path, x before y, with the interfaces facing
// each other.
type pathLink struct{ x, xIf, y, yIf string }

// side is one end of a path link: a device and its interface.
type side struct{ dev, ifName string }

// run is the state of one Ask.
type run struct {
	a        *Agent
	mu       sync.Mutex
	evidence []sign.Result
	failed   map[string]string
}

// do runs one call on device dev (locally or on a neighbour), keeps the
// signed result as evidence and returns its index.
func (r *run) do(ctx context.Context, dev, tool string, args map[string]any) (sign.Result, int, error) {
	res, err := r.call(ctx, dev, tool, args)
	if res.Sig == "" {
		return res, -1, err
	}
	return res, r.keep(res), err
}

// call runs one call on device dev (locally or on a neighbour) and returns
// its signed result without keeping it; a call that brought no signed
// result is remembered as dev's failure.
func (r *run) call(ctx context.Context, dev, tool string, args map[string]any) (sign.Result, error) {
	var res sign.Result
	var err error
	if dev == r.a.name {
		raw, _ := json.Marshal(args)
		var body json.RawMessage
		var cerr error
		if tool == ToolNeighbors {
			body, cerr = r.a.neighborsBody(ctx)
		} else {
			body, cerr = r.a.callDevice(ctx, tool, raw)
		}
		res, err = r.a.signResult(r.a.name, tool, raw, body, cerr)
		if err == nil && cerr != nil {
			err = cerr
		}
	} else {
		res, err = r.a.Call(ctx, dev, tool, args)
	}
	if res.Sig == "" {
		r.mu.Lock()
		if r.failed == nil {
			r.failed = map[string]string{}
		}
		if _, ok := r.failed[dev]; !ok && err != nil {
			r.failed[dev] = err.Error()
		}
		r.mu.Unlock()
	}
	return res, err
}

// keep adds a signed result to the evidence and returns its index.
func (r *run) keep(res sign.Result) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evidence = append(r.evidence, res)
	return len(r.evidence) - 1
}

// parallel runs fns at once and waits for all.
func parallel(fns ...func()) {
	var wg sync.WaitGroup
	for _, f := range fns {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}

// neighbours returns dev's D2D neighbours: this agent's own discovery, or
// the neighbour's signed d2d.neighbors.
func (r *run) neighbours(ctx context.Context, dev string) ([]discover.Neighbor, error) {
	res, _, err := r.do(ctx, dev, ToolNeighbors, map[string]any{})
	if err != nil {
		return nil, err
	}
	var body struct {
		Neighbors []struct {
			Name, LocalInterface, PortID, Address string
			TLV                                   string `json:"tlv"`
		} `json:"neighbors"`
	}
	if err := json.Unmarshal(res.Body, &body); err != nil {
		return nil, fmt.Errorf("agent: %s's neighbours: %w", dev, err)
	}
	var out []discover.Neighbor
	for _, n := range body.Neighbors {
		adv, err := tlv.DecodeHex(n.TLV)
		if err != nil {
			continue
		}
		out = append(out, discover.Neighbor{Name: n.Name, LocalInterface: n.LocalInterface, PortID: n.PortID, Address: n.Address, Advert: adv})
	}
	return out, nil
}

// Ask runs an intent from this device (the draft's steps 1 to 5) and
// returns the sealed report, also kept in the agent's store.
func (a *Agent) Ask(ctx context.Context, intent string) (report.Report, error) {
	in, err := ParseIntent(intent)
	if err != nil {
		return report.Report{}, err
	}
	if err := a.allowed(ctx); err != nil {
		return report.Report{}, fmt.Errorf("agent: %w", err)
	}
	r := &run{a: a}
	if _, err := a.Discover(ctx); err != nil {
		return report.Report{}, fmt.Errorf("agent: discovery: %w", err)
	}
	// Step 1: every path device's neighbours, learning the domain as it
	// goes (a device two hops away is learnt from the one in between).
	nbrs := map[string][]discover.Neighbor{}
	for round := 0; round < len(in.Path) && len(nbrs) < len(in.Path); round++ {
		var fns []func()
		var mu sync.Mutex
		for _, dev := range in.Path {
			if _, done := nbrs[dev]; done {
				continue
			}
			if _, known := a.member(dev); !known && dev != a.name {
				continue
			}
			fns = append(fns, func() {
				ns, err := r.neighbours(ctx, dev)
				if err != nil {
					return
				}
				a.learn(ns)
				mu.Lock()
				nbrs[dev] = ns
				mu.Unlock()
			})
		}
		if len(fns) == 0 {
			break
		}
		parallel(fns...)
	}
	// The links of the path, from the LLDP of their two ends.
	var links []pathLink
	var problems []report.Finding
	for i := 0; i+1 < len(in.Path); i++ {
		x, y := in.Path[i], in.Path[i+1]
		l := pathLink{x: x, y: y}
		for _, n := range nbrs[x] {
			if n.Name == y {
				l.xIf, l.yIf = n.LocalInterface, n.PortID
			}
		}
		for _, n := range nbrs[y] {
			if n.Name == x && l.xIf == "" {
				l.xIf, l.yIf = n.PortID, n.LocalInterface
			}
		}
		if l.xIf == "" || l.yIf == "" {
			problems = append(problems, report.Finding{Rule: "no-adjacency", Device: x, Direction: x + "->" + y, Cause: "not-measured",
				Statement: fmt.Sprintf("no D2D LLDP adjacency between %s and %s could be read (%s)", x, y, r.why(x, y))})
			continue
		}
		links = append(links, l)
	}
	// Steps 2-3: counters before, pings both ways, counters after; every
	// device's calls run in parallel.
	var sides []side
	for _, l := range links {
		sides = append(sides, side{l.x, l.xIf}, side{l.y, l.yIf})
	}
	readAll := func() (map[side]ifState, map[side]int) {
		st, ev := map[side]ifState{}, map[side]int{}
		var mu sync.Mutex
		var fns []func()
		for _, s := range sides {
			fns = append(fns, func() {
				res, i, err := r.do(ctx, s.dev, netproto.ToolYangGet, map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name=" + s.ifName + "]"})
				if err != nil {
					return
				}
				if v, ok := parseIfState(res.Body); ok {
					mu.Lock()
					st[s], ev[s] = v, i
					mu.Unlock()
				}
			})
		}
		parallel(fns...)
		return st, ev
	}
	before, evB := readAll()
	pingLoss := map[side]float64{}
	pingEv := map[side]int{}
	var streams []stream // the probes' echo requests, for the captures
	var pmu sync.Mutex
	var fns []func()
	for _, l := range links {
		for _, dirn := range [][4]string{{l.x, l.xIf, l.y, l.yIf}, {l.y, l.yIf, l.x, l.xIf}} {
			src, srcIf, dst, dstIf := dirn[0], dirn[1], dirn[2], dirn[3]
			target, ok := before[side{dst, dstIf}]
			if !ok || target.Addr == "" {
				continue
			}
			fns = append(fns, func() {
				res, i, err := r.do(ctx, src, netproto.ToolPing, map[string]any{"destination": target.Addr, "count": Probes, "intervalMs": ProbeIntervalMs})
				if err != nil {
					return
				}
				if p, ok := parsePing(res.Body); ok {
					pmu.Lock()
					pingLoss[side{src, srcIf}], pingEv[side{src, srcIf}] = p.Loss, i
					streams = append(streams, stream{From: src, To: dst, Src: before[side{src, srcIf}].Addr, Dst: target.Addr, Sent: p.sent(),
						Points: []point{{Dev: src, If: srcIf, Dir: "out", Peer: dst}, {Dev: dst, If: dstIf, Dir: "in", Peer: src}}, Evidence: []int{i}})
					pmu.Unlock()
				}
			})
		}
	}
	// The draft's head-to-tail probes: they cross the mid-points, where
	// a transit filter (an egress ACL) acts.
	if len(links) == len(in.Path)-1 && len(links) > 1 {
		head, tail := side{links[0].x, links[0].xIf}, side{links[len(links)-1].y, links[len(links)-1].yIf}
		for _, e := range [][2]side{{head, tail}, {tail, head}} {
			src, dst := e[0], e[1]
			target, ok := before[dst]
			if !ok || target.Addr == "" {
				continue
			}
			forward := src == head
			fns = append(fns, func() {
				res, i, err := r.do(ctx, src.dev, netproto.ToolPing, map[string]any{"destination": target.Addr, "count": Probes, "intervalMs": ProbeIntervalMs})
				if err != nil {
					return
				}
				if p, ok := parsePing(res.Body); ok {
					st := stream{From: src.dev, To: dst.dev, Src: before[src].Addr, Dst: target.Addr, Sent: p.sent(), Evidence: []int{i}}
					st.Points = transitPoints(links, forward)
					pmu.Lock()
					streams = append(streams, st)
					pmu.Unlock()
				}
			})
		}
	}
	// Step 3a: the captures start before the probes and run across them
	// (a real device); one that answers at once looked back (the
	// simulator) and is made again after the probes.
	early, earlyAll := r.startCaptures(ctx, sides, CaptureLead+time.Duration(Probes*ProbeIntervalMs)*time.Millisecond+captureMargin)
	select {
	case <-earlyAll:
	case <-time.After(CaptureLead):
	case <-ctx.Done():
	}
	pingStart := time.Now()
	parallel(fns...)
	after, evA := readAll()
	caps, rest := r.collectForward(early)
	// Step 3b: look-back captures of the other interfaces, and where each
	// probe stream's echo requests stop being seen.
	capStart := time.Now()
	for s, v := range r.captureSides(ctx, rest, capStart.Sub(pingStart)+time.Duration(Probes+3)*time.Second) {
		caps[s] = v
	}
	lo, hi := pingStart.Add(-time.Duration(Probes+1)*time.Second), capStart.Add(time.Second)
	// A simulated ping's probes are stamped back from its start: an
	// earlier run's may share the interval. Counting starts after them;
	// the first point then stands for the ping's count. (A stream seen
	// only by forward captures holds this run's probes only.)
	truncated := false
	if prev := a.swapLastProbes(hi); lo.Before(prev) && len(rest) > 0 {
		lo, truncated = prev, true
	}
	intactDir := map[[2]string]bool{}
	for k := range streams {
		st := &streams[k]
		if truncated {
			st.Sent = 0
		}
		for j := range st.Points {
			pt := &st.Points[j]
			if v, ok := caps[side{pt.Dev, pt.If}]; ok {
				pt.Seen, pt.Measured, pt.Ev = v.echoes(pt.Dir, st.Src, st.Dst, lo, hi), true, v.ev
			}
		}
		want := st.Sent
		if want == 0 && len(st.Points) > 0 {
			want = st.Points[0].Seen
		}
		if len(st.Points) == 2 && want > 0 && st.Points[0].Measured && st.Points[1].Measured &&
			st.Points[0].Seen >= want && st.Points[1].Seen >= want {
			intactDir[[2]string{st.From, st.To}] = true
		}
	}
	// Step 4: correlation.
	var hops []hop
	for pos, l := range links {
		for _, dirn := range [][4]string{{l.x, l.xIf, l.y, l.yIf}, {l.y, l.yIf, l.x, l.xIf}} {
			f, t := side{dirn[0], dirn[1]}, side{dirn[2], dirn[3]}
			fb, ok1 := before[f]
			fa, ok2 := after[f]
			tb, ok3 := before[t]
			ta, ok4 := after[t]
			if !(ok1 && ok2 && ok3 && ok4) {
				problems = append(problems, report.Finding{Rule: "no-counters", Device: f.dev, Interface: f.ifName, Direction: f.dev + "->" + t.dev, Cause: "not-measured",
					Statement: fmt.Sprintf("the %s->%s direction could not be measured (%s)", f.dev, t.dev, r.why(f.dev, t.dev))})
				continue
			}
			h := hop{From: f.dev, FromIf: f.ifName, To: t.dev, ToIf: t.ifName, Pos: pos, FromBefore: fb, FromAfter: fa, ToBefore: tb, ToAfter: ta, PingLoss: -1,
				Evidence: []int{evB[f], evB[t], evA[f], evA[t]}}
			h.ProbesIntact = intactDir[[2]string{f.dev, t.dev}]
			if pl, ok := pingLoss[f]; ok {
				h.PingLoss = pl
				h.Evidence = append(h.Evidence, pingEv[f])
			}
			hops = append(hops, h)
		}
	}
	sort.Slice(streams, func(i, j int) bool {
		if streams[i].From != streams[j].From {
			return streams[i].From < streams[j].From
		}
		return len(streams[i].Points) < len(streams[j].Points)
	})
	findings := append(rankFindings(append(append(correlate(hops), egressDropRule(streams)...), captureRules(streams)...)), problems...)
	// Step 5: the report.
	rep := report.Report{Version: report.Version, ID: newID(), Creator: a.name, Created: a.cfg.Now().UTC().Format(time.RFC3339Nano), Intent: intent, Path: in.Path,
		Findings: findings, Evidence: r.evidence, Participants: map[string]sign.Binding{a.name: a.binding}, Untrusted: map[string]string{}}
	rep.URI = report.URIPrefix + rep.ID
	for i := range findings {
		if findings[i].Cause != "not-measured" {
			rep.Hypothesis = &findings[i]
			break
		}
	}
	rep.Proposals = r.propose(ctx, rep.Hypothesis) // mitigate.go
	rep.Evidence = r.evidence
	for _, e := range r.evidence {
		if e.Signer != a.name {
			if b, ok := a.bindingOf(e.Signer); ok {
				rep.Participants[e.Signer] = b
			}
		}
	}
	untrusted := a.Untrusted()
	for _, d := range in.Path {
		if why, bad := untrusted[d]; bad {
			rep.Untrusted[d] = why
		} else if why, failed := r.failedOf(d); failed {
			rep.Untrusted[d] = "unreachable during the run: " + why
		}
	}
	if len(rep.Untrusted) == 0 {
		rep.Untrusted = nil
	}
	rep.Fallback = a.fallBack(ctx, intent, rep.Untrusted)
	if rep.Findings == nil {
		rep.Findings = []report.Finding{}
	}
	if err := rep.Seal(a.cfg.Signer, a.countersignAll(ctx, &rep)); err != nil {
		return report.Report{}, err
	}
	a.reports.Put(rep)
	a.pushReport(ctx, rep) // push.go
	return rep, nil
}

// failedOf returns the first error of a call to dev in this run.
func (r *run) failedOf(dev string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why, ok := r.failed[dev]
	return why, ok
}

// why explains why devices could not be measured.
func (r *run) why(devs ...string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, d := range devs {
		if e, ok := r.failed[d]; ok {
			out = append(out, d+": "+e)
		}
	}
	for d, e := range r.a.Untrusted() {
		for _, x := range devs {
			if x == d {
				out = append(out, d+" untrusted: "+e)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "no data"
	}
	return fmt.Sprint(out)
}

func (a *Agent) bindingOf(name string) (sign.Binding, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.bindings[name]
	return b, ok
}

func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
