package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// PingStatus is what the probes of one pair of a pingmesh showed.
type PingStatus string

// The statuses of a pair. Only a ping that ran is evidence (ok, loss,
// unreachable); a probe the source refused ("too many diagnostics
// running"), a call that timed out or a source that could not be reached
// is retried with back-off and, if it never ran, is unknown: it says
// nothing of the network.
const (
	PingOK          PingStatus = "ok"          // every probe came back
	PingLoss        PingStatus = "loss"        // some probes came back
	PingUnreachable PingStatus = "unreachable" // none came back, or the source has no way there
	PingUnknown     PingStatus = "unknown"     // the ping never ran
)

// Defaults of PingmeshOptions.
const (
	DefaultMeshCount       = 5
	DefaultMeshTimeout     = 10 * time.Second
	DefaultMeshRetries     = 3
	DefaultMeshBackoff     = 250 * time.Millisecond
	DefaultMeshConcurrency = 16
	// DefaultMeshPerSource is a device server's default limit of
	// diagnostics running at once in one session.
	DefaultMeshPerSource = 2
)

// PingmeshOptions choose the pairs of a pingmesh and how they are probed.
type PingmeshOptions struct {
	// Sources are the devices that ping, by name (none: every device of
	// the fleet that serves the ping tool).
	Sources []string
	// Destinations are the targets, by device name or address (none:
	// every host and every router's loopback).
	Destinations []string
	// Count is the number of probes per pair (default DefaultMeshCount).
	Count int
	// Timeout bounds each ping call (default DefaultMeshTimeout).
	Timeout time.Duration
	// Retries is how many times a probe that did not run is tried again
	// (default DefaultMeshRetries; negative: never).
	Retries int
	// Backoff is the wait before the first retry, doubled before each
	// next one, with up to half of it added at random so that refused
	// probes do not come back together (default DefaultMeshBackoff).
	Backoff time.Duration
	// Concurrency bounds the pings in flight over the whole fleet
	// (default DefaultMeshConcurrency), PerSource those from one device
	// (default DefaultMeshPerSource).
	Concurrency, PerSource int
}

func (o PingmeshOptions) withDefaults() PingmeshOptions {
	if o.Count <= 0 {
		o.Count = DefaultMeshCount
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultMeshTimeout
	}
	if o.Retries == 0 {
		o.Retries = DefaultMeshRetries
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultMeshBackoff
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultMeshConcurrency
	}
	if o.PerSource <= 0 {
		o.PerSource = DefaultMeshPerSource
	}
	return o
}

// PingTarget is one destination of a pingmesh: a host's address or a
// router's loopback.
type PingTarget struct {
	Name    string `json:"name"`
	Kind    string `json:"kind" jsonschema:"host or router"`
	Address string `json:"address"`
	// VRF is the routing instance of a host attached to a router's
	// interface of a VRF ("" for the default one): it is pinged only
	// from the routers that have that VRF (in it) and the hosts in it.
	VRF string `json:"vrf,omitempty"`
}

// PingPair is one cell of the matrix: what Source's pings of Destination
// showed. The counts and round trips are those of the last attempt that
// ran; an unknown pair has none.
type PingPair struct {
	Source      string     `json:"source"`
	Destination string     `json:"destination"`
	Address     string     `json:"address"`
	VRF         string     `json:"vrf,omitempty"`
	Sent        int        `json:"sent"`
	Received    int        `json:"received"`
	LossPercent float64    `json:"loss_percent"`
	RTTMinMS    *float64   `json:"rtt_min_ms,omitempty"`
	RTTAvgMS    *float64   `json:"rtt_avg_ms,omitempty"`
	RTTMaxMS    *float64   `json:"rtt_max_ms,omitempty"`
	Status      PingStatus `json:"status" jsonschema:"ok, loss, unreachable or unknown"`
	// Attempts is the number of ping calls made for the pair.
	Attempts int `json:"attempts"`
	// Detail says why a pair is unreachable without a reply count (the
	// source's error) or unknown (the last refusal or failure).
	Detail string `json:"detail,omitempty"`
}

// PingmeshCounts counts the pairs by status.
type PingmeshCounts struct {
	Pairs       int `json:"pairs"`
	OK          int `json:"ok"`
	Loss        int `json:"loss"`
	Unreachable int `json:"unreachable"`
	Unknown     int `json:"unknown"`
}

// Pingmesh is the reachability and latency matrix between a fleet's
// devices: every source's pings of every destination.
type Pingmesh struct {
	Sources      []string       `json:"sources"`
	Destinations []PingTarget   `json:"destinations"`
	Count        int            `json:"count" jsonschema:"probes per pair"`
	Pairs        []PingPair     `json:"pairs"`
	Counts       PingmeshCounts `json:"counts"`
	// Calls is the number of ping calls made, retries included.
	Calls     int     `json:"calls"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// Pair returns the pair of source and destination (a target's name or
// address).
func (m *Pingmesh) Pair(source, destination string) (PingPair, bool) {
	for _, p := range m.Pairs {
		if p.Source == source && (p.Destination == destination || p.Address == destination) {
			return p, true
		}
	}
	return PingPair{}, false
}

// String is a one-line summary: the counts and the pairs not ok.
func (m *Pingmesh) String() string {
	c := m.Counts
	s := fmt.Sprintf("%d pairs: %d ok, %d loss, %d unreachable, %d unknown", c.Pairs, c.OK, c.Loss, c.Unreachable, c.Unknown)
	var bad []string
	for _, p := range m.Pairs {
		if p.Status != PingOK {
			bad = append(bad, fmt.Sprintf("%s->%s %s", p.Source, p.Destination, p.Status))
		}
	}
	if len(bad) > 0 {
		s += " (" + strings.Join(bad, ", ") + ")"
	}
	return s
}

// WriteText writes the matrix as a compact table, one line per pair.
func (m *Pingmesh) WriteText(w io.Writer) {
	fmt.Fprintf(w, "pingmesh: %d sources x %d destinations, %d probes per pair: %d ok, %d loss, %d unreachable, %d unknown (%d calls, %.0f ms)\n",
		len(m.Sources), len(m.Destinations), m.Count, m.Counts.OK, m.Counts.Loss, m.Counts.Unreachable, m.Counts.Unknown, m.Calls, m.ElapsedMS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tDESTINATION\tADDRESS\tSENT\tRECV\tLOSS\tRTT MIN/AVG/MAX MS\tSTATUS")
	for _, p := range m.Pairs {
		rtt := "-"
		if p.RTTAvgMS != nil {
			rtt = fmt.Sprintf("%s/%s/%s", ms(p.RTTMinMS), ms(p.RTTAvgMS), ms(p.RTTMaxMS))
		}
		loss := fmt.Sprintf("%g%%", p.LossPercent)
		if p.Status == PingUnknown {
			loss = "-"
		}
		status := string(p.Status)
		if p.Detail != "" {
			status += ": " + p.Detail
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", p.Source, p.Destination, p.Address, p.Sent, p.Received, loss, rtt, status)
	}
	_ = tw.Flush()
}

func ms(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *v)
}

// Pingmesh measures the reachability and latency matrix between the
// fleet's devices in one call: every source (by default every device that
// serves the ping tool, hosts and routers) pings every destination (by
// default every host, at the address the controller knows it by or the
// one it shows, and every router's loopback) of its routing instance,
// except itself: a host behind a router's VRF interface is pinged from
// the routers with that VRF (in it) and the hosts in it only. It reads
// only the devices' interfaces and VRFs to find the addresses. The error is for a
// mesh that could not be made at all (no fleet, a filter naming nothing).
func (c *Controller) Pingmesh(ctx context.Context, o PingmeshOptions) (*Pingmesh, error) {
	if c.Fleet == nil {
		return nil, errors.New("controller: no fleet")
	}
	if client.CorrelationID(ctx) == "" {
		ctx = client.WithCorrelationID(ctx, client.NewCorrelationID())
	}
	r := &run{c: c, ctx: ctx, rep: &Report{Calls: []Call{}, Steps: []Step{}}}
	r.begin("read every device's addresses (" + pathInterfaces + ", " + pathNetInst + ")")
	return r.pingmesh(r.readAddresses(), o)
}

// readAddresses reads every device's interfaces, and the routers' VRFs: a
// network with only them, enough for the pingmesh's targets.
func (r *run) readAddresses() *network {
	n := &network{Devices: map[string]*deviceView{}, Unread: map[string]string{}, HostViews: map[string]*hostView{}}
	var mu sync.Mutex
	r.c.Fleet.Each(r.ctx, nil, func(ctx context.Context, d *client.Device) error {
		data, call, err := r.yangGet(d.Name(), pathInterfaces)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			n.Unread[d.Name()] = firstLine(err.Error())
			return nil
		}
		ifs := parseInterfaces(data)
		if isHost(d) {
			n.HostViews[d.Name()] = &hostView{Name: d.Name(), Ifaces: ifs, Calls: map[string]int{pathInterfaces: call}}
			return nil
		}
		v := &deviceView{Name: d.Name(), Ifaces: ifs, Calls: map[string]int{pathInterfaces: call}}
		n.Devices[d.Name()] = v
		mu.Unlock()
		data, call, err = r.yangGet(d.Name(), pathNetInst)
		mu.Lock()
		if err == nil {
			parseVRFs(data, v.Ifaces)
			v.Calls[pathNetInst] = call
		}
		return nil
	})
	for _, d := range r.c.Fleet.Devices() {
		if n.Devices[d.Name()] != nil {
			n.Order = append(n.Order, d.Name())
		}
	}
	return n
}

// meshTargets returns the pingmesh's destinations in n: the hosts (the
// controller's known ones at their intended address, the fleet's others
// at the first address they show) and the routers' loopbacks, in
// inventory order, hosts the controller knows but the fleet does not
// serve last.
func (r *run) meshTargets(n *network) []PingTarget {
	known := map[string]netip.Addr{}
	for _, h := range r.c.Hosts {
		for _, a := range h.Addrs {
			if a.Is4() {
				known[h.Name] = a
				break
			}
		}
	}
	var out []PingTarget
	seen := map[string]bool{}
	for _, d := range r.c.Fleet.Devices() {
		name := d.Name()
		switch {
		case known[name].IsValid():
			out = append(out, PingTarget{Name: name, Kind: RoleHost, Address: known[name].String()})
		case n.HostViews[name] != nil:
			if as := n.HostViews[name].Addrs4(); len(as) > 0 {
				out = append(out, PingTarget{Name: name, Kind: RoleHost, Address: as[0].Addr().String()})
			}
		case n.Devices[name] != nil:
			if a, ok := n.Devices[name].Loopback(); ok {
				out = append(out, PingTarget{Name: name, Kind: "router", Address: a.String()})
			}
		}
		seen[name] = true
	}
	for _, h := range r.c.Hosts {
		if a := known[h.Name]; !seen[h.Name] && a.IsValid() {
			out = append(out, PingTarget{Name: h.Name, Kind: RoleHost, Address: a.String()})
		}
	}
	for i, t := range out {
		if t.Kind == RoleHost {
			out[i].VRF = vrfAt(n, netip.MustParseAddr(t.Address))
		}
	}
	return out
}

// vrfAt returns the VRF of the router interface whose subnet holds a (""
// when none does, or it is the default VRF).
func vrfAt(n *network, a netip.Addr) string {
	for _, name := range n.Order {
		for _, it := range n.Devices[name].Ifaces {
			for _, p := range it.Addrs {
				if p.Bits() < 32 && p.Contains(a) && p.Addr() != a {
					return it.VRF
				}
			}
		}
	}
	return ""
}

// meshVRFs returns the routing instances dev pings in: a router's default
// one and those of its interfaces, a host's own (that of the first
// target it is; the default one when it is none).
func meshVRFs(n *network, dev string, targets []PingTarget) []string {
	if d := n.Devices[dev]; d != nil {
		out := []string{""}
		for _, it := range d.Ifaces {
			if !slices.Contains(out, it.VRF) {
				out = append(out, it.VRF)
			}
		}
		return out
	}
	for _, t := range targets {
		if t.Name == dev {
			return []string{t.VRF}
		}
	}
	return []string{""}
}

// pingmesh probes every pair of the fleet's sources and n's targets that
// o selects.
func (r *run) pingmesh(n *network, o PingmeshOptions) (*Pingmesh, error) {
	o = o.withDefaults()
	start := time.Now()
	var srcs []string
	for _, d := range r.c.Fleet.Devices() {
		if (len(o.Sources) == 0 && d.HasTool(netproto.ToolPing)) || slices.Contains(o.Sources, d.Name()) {
			srcs = append(srcs, d.Name())
		}
	}
	for _, s := range o.Sources {
		if !slices.Contains(srcs, s) {
			return nil, fmt.Errorf("pingmesh: no source %q in the fleet", s)
		}
	}
	var dsts []PingTarget
	for _, t := range r.meshTargets(n) {
		if len(o.Destinations) == 0 || slices.Contains(o.Destinations, t.Name) || slices.Contains(o.Destinations, t.Address) {
			dsts = append(dsts, t)
		}
	}
	if len(o.Destinations) > 0 && len(dsts) == 0 {
		return nil, fmt.Errorf("pingmesh: the destinations %v name no host or router loopback", o.Destinations)
	}
	m := &Pingmesh{Sources: srcs, Destinations: dsts, Count: o.Count, Pairs: []PingPair{}}
	if m.Destinations == nil {
		m.Destinations = []PingTarget{}
	}
	if m.Sources == nil {
		m.Sources = []string{}
	}
	all := r.meshTargets(n)
	for _, s := range srcs {
		vrfs := meshVRFs(n, s, all)
		for _, t := range dsts {
			if t.Name != s && slices.Contains(vrfs, t.VRF) {
				p := PingPair{Source: s, Destination: t.Name, Address: t.Address}
				if n.Devices[s] != nil {
					p.VRF = t.VRF // a router pings into the VRF; a host is in it
				}
				m.Pairs = append(m.Pairs, p)
			}
		}
	}
	slots := make(chan struct{}, o.Concurrency)
	per := map[string]chan struct{}{}
	for _, s := range srcs {
		per[s] = make(chan struct{}, o.PerSource)
	}
	var wg sync.WaitGroup
	for i := range m.Pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &m.Pairs[i]
			select { // the source's slot first: a busy source holds no fleet slot
			case per[p.Source] <- struct{}{}:
			case <-r.ctx.Done():
				p.Status, p.Detail = PingUnknown, "not run: "+r.ctx.Err().Error()
				return
			}
			defer func() { <-per[p.Source] }()
			select {
			case slots <- struct{}{}:
			case <-r.ctx.Done():
				p.Status, p.Detail = PingUnknown, "not run: "+r.ctx.Err().Error()
				return
			}
			defer func() { <-slots }()
			r.probePair(p, o)
		}()
	}
	wg.Wait()
	for _, p := range m.Pairs {
		m.Calls += p.Attempts
		switch p.Status {
		case PingOK:
			m.Counts.OK++
		case PingLoss:
			m.Counts.Loss++
		case PingUnreachable:
			m.Counts.Unreachable++
		default:
			m.Counts.Unknown++
		}
	}
	m.Counts.Pairs = len(m.Pairs)
	m.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	r.progress("  pingmesh: %s", m)
	return m, nil
}

// probePair pings p's destination from its source until a ping runs,
// retrying with back-off what did not run; what never ran is unknown.
func (r *run) probePair(p *PingPair, o PingmeshOptions) {
	args := map[string]any{"destination": p.Address, "count": o.Count, "intervalMs": 200, "timeout": 1}
	if p.VRF != "" {
		args["vrf"] = p.VRF
	}
	wait := o.Backoff
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(r.ctx, o.Timeout)
		out, n, err := r.callCtx(ctx, p.Source, netproto.ToolPing, args)
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		p.Attempts++
		if err == nil {
			r.readPing(p, out)
			r.summarize(n, "pingmesh %s -> %s: %d/%d replies, %s", p.Source, p.Destination, p.Received, p.Sent, p.Status)
			return
		}
		if noRoute(err) {
			// The ping ran and the source has no way to the destination:
			// evidence, as a ping with no reply is.
			p.Status, p.LossPercent, p.Detail = PingUnreachable, 100, firstLine(err.Error())
			r.mu.Lock()
			r.rep.Calls[n-1].Error = "" // an answer, not a failed call
			r.mu.Unlock()
			r.summarize(n, "pingmesh %s -> %s: unreachable: %s", p.Source, p.Destination, p.Detail)
			return
		}
		p.Status, p.Detail = PingUnknown, firstLine(err.Error())
		if timedOut && r.ctx.Err() == nil {
			p.Detail = fmt.Sprintf("no answer within %v", o.Timeout)
		}
		r.summarize(n, "pingmesh %s -> %s: not run (%s), attempt %d of %d", p.Source, p.Destination, p.Detail, attempt+1, o.Retries+1)
		if attempt >= o.Retries || r.ctx.Err() != nil {
			return
		}
		select {
		case <-time.After(wait + rand.N(wait/2+1)):
		case <-r.ctx.Done():
			return
		}
		wait *= 2
	}
}

// readPing fills p from a ping tool's result (loss, rtt and the parsed
// run under result).
func (r *run) readPing(p *PingPair, out any) {
	sent, _ := yang.Int(yang.Member(out, "result", "packets_transmitted"))
	p.Sent = int(sent)
	recv, _ := yang.Int(yang.Member(out, "result", "packets_received"))
	p.Received = int(recv)
	switch l := yang.Member(out, "loss").(type) {
	case float64:
		p.LossPercent = l
	default:
		if l, ok := yang.Member(out, "result", "packet_loss_percent").(float64); ok {
			p.LossPercent = l
		} else if p.Sent > 0 {
			p.LossPercent = 100 * float64(p.Sent-p.Received) / float64(p.Sent)
		}
	}
	num := func(k string) *float64 {
		if v, ok := yang.Member(out, "rtt", k).(float64); ok {
			return &v
		}
		if v, ok := yang.Member(out, "result", "round_trip_ms_"+k).(float64); ok {
			return &v
		}
		return nil
	}
	p.RTTMinMS, p.RTTAvgMS, p.RTTMaxMS = num("min"), num("avg"), num("max")
	p.Detail = ""
	switch {
	case p.Sent == 0:
		p.Status, p.Detail = PingUnknown, "the result counts no probe sent"
	case p.LossPercent == 0 && p.Received > 0:
		p.Status = PingOK
	case p.LossPercent >= 100 || p.Received == 0:
		p.Status = PingUnreachable
		if errs := yang.List(yang.Member(out, "result", "icmp_errors")); len(errs) > 0 {
			p.Detail = firstLine(fmt.Sprint(errs[0]))
		}
	default:
		p.Status = PingLoss
	}
}

// noRoute tells whether a failed ping ran and found no route: the
// source's own "Network is unreachable" or "No route to host", which is
// evidence; every other failure (a refusal, a timeout, a lost session)
// says nothing of the path.
func noRoute(err error) bool {
	var te *client.ToolError
	if !errors.As(err, &te) {
		return false
	}
	t := strings.ToLower(te.Text)
	return strings.Contains(t, "exit code") && (strings.Contains(t, "network is unreachable") || strings.Contains(t, "no route to host"))
}

// firstLook measures the pingmesh of the network the sweep read and
// records it in the report's facts (pingmesh) for the rules after it and
// the reader; it names no cause itself.
func (r *run) firstLook(s *sweepState) {
	m, err := r.pingmesh(s.n, PingmeshOptions{Count: 3})
	if err != nil {
		return
	}
	s.mesh = m
	r.mu.Lock()
	if r.rep.Facts == nil {
		r.rep.Facts = map[string]any{}
	}
	r.rep.Facts["pingmesh"] = m
	r.mu.Unlock()
}
