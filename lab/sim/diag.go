package sim

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/internal/lazyre"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// defaultProbeInterval paces ping output in a realtime lab when the
// request sets no interval: iputils' one second.
const defaultProbeInterval = time.Second

// How long the tools wait for a probe that gets no answer: traceroute's
// -w (when the request sets no timeout) and tracepath's fixed wait.
const (
	defaultTraceWait = 5 * time.Second
	tracepathWait    = time.Second
	tracepathTries   = 3
	// traceInFlight is how many probes traceroute 2.1 keeps in flight (-N).
	traceInFlight = 16
)

// Diagnose runs ping, traceroute, tracepath or dig from the device through
// the network model and returns the real Linux tools' text. The lab's time
// is simulated: the output comes at once with the modelled RTTs, unless
// the lab is realtime (LabOptions.Realtime), where lines go to onLine as
// they would appear: ping's one request per interval;
// traceroute's and tracepath's as the model answers, each hop after its
// probes' round trip, or after the tool's wait when a probe gets no
// answer (see traceWaits). A cancelled ctx stops the run at once with the
// output so far.
func (d *Driver) Diagnose(ctx context.Context, req diag.Request, onLine func(string)) (device.DiagResult, error) {
	interval := req.Interval()
	if interval <= 0 {
		interval = defaultProbeInterval
	}
	em := &emitter{ctx: ctx, onLine: onLine, interval: interval, paced: d.lab.opts.Realtime}
	if req.Tool == "dig" {
		text, code := d.dig(req)
		em.lines(strings.Split(strings.TrimSuffix(text, "\n"), "\n"), 0)
		return device.DiagResult{Output: em.out.String(), ExitCode: code}, em.err
	}
	dst, ok := d.resolveHost(req.Destination, req.IPv6)
	if !ok {
		msg := req.Tool + ": " + req.Destination + ": Name or service not known"
		if req.Tool == "traceroute" {
			msg = "Cannot handle \"host\" cmdline arg `" + req.Destination + "' on position 1 (argc 1)"
		}
		em.line(msg)
		return device.DiagResult{Output: em.out.String(), ExitCode: 2}, nil
	}
	pr := netsim.ProbeRequest{From: d.name, VRF: req.VRF, Source: req.Source, Destination: dst,
		Count: req.Count, Size: req.PacketSize, DontFragment: req.DontFragment}
	if req.Tool == "ping" {
		pr.TTL = req.TTL // traceroute's MaxHops is no ping TTL
	} else {
		pr.MaxHops = req.MaxHops
	}
	d.tel.addLoad(d.lab.opts.Now(), loadProbe)
	switch req.Tool {
	case "ping":
		out, err := d.lab.net.Ping(pr)
		if err != nil {
			return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "ping from %s: %v", d.name, err)
		}
		em.ping(out.Render(), max(out.Count, len(out.Replies)))
		return device.DiagResult{Output: em.out.String(), ExitCode: out.ExitCode()}, em.err
	case "traceroute", "tracepath":
		if req.Tool == "traceroute" {
			pr.Protocol = "udp"
		}
		out, err := d.lab.net.Traceroute(pr)
		if err != nil {
			return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "%s from %s: %v", req.Tool, d.name, err)
		}
		text := out.Render()
		if req.Tool == "tracepath" {
			text = out.RenderTracepath()
		}
		return em.trace(out, req, text)
	}
	return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "diagnostic tool %q is not supported by the simulator (ping, traceroute, tracepath, dig)", req.Tool)
}

// trace emits a traceroute or tracepath text line by line, each hop after
// the time the model says it takes, and returns the tool's result.
func (em *emitter) trace(out netsim.TraceOutcome, req diag.Request, text string) (device.DiagResult, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	em.line(lines[0])
	waits := traceWaits(out, req.Tool, cmp.Or(req.ReplyTimeout(), defaultTraceWait))
	for i, l := range lines[1:] {
		var w time.Duration
		if i < len(waits) {
			w = waits[i]
		}
		if !em.wait(w) {
			break
		}
		em.line(l)
	}
	code := 0
	if out.Error != "" {
		code = 1
	}
	return device.DiagResult{Output: em.out.String(), ExitCode: code}, em.err
}

// traceWaits returns how long each line after the header takes to appear,
// by the model. traceroute sends its probes in hop order, keeping
// traceInFlight of them in flight, each done after its round trip or,
// unanswered, after wait; a hop's line is printed once all its probes
// are done and the previous hops' lines are out. tracepath probes one at a
// time: a step comes after its probe's round trip, or after its three
// unanswered tries. Lines beyond the hops (tracepath's summary, an error)
// come at once.
func traceWaits(o netsim.TraceOutcome, tool string, wait time.Duration) []time.Duration {
	var out []time.Duration
	if tool == "tracepath" {
		for _, s := range o.Tracepath {
			if s.Probe.Kind == netsim.ResultLost {
				out = append(out, tracepathTries*tracepathWait)
			} else {
				out = append(out, s.Probe.RTT)
			}
		}
		return out
	}
	if o.Error != "" {
		return nil
	}
	// slots holds when each of the in-flight probes is done: a new probe
	// is sent when the earliest of them is.
	slots := make([]time.Duration, traceInFlight)
	var printed time.Duration
	for _, h := range o.Hops {
		var done time.Duration
		for _, p := range h.Probes {
			i := slices.Index(slots, slices.Min(slots))
			d := p.RTT
			if p.Kind == netsim.ResultLost {
				d = wait
			}
			slots[i] += d
			done = max(done, slots[i])
		}
		at := max(printed, done)
		out = append(out, at-printed)
		printed = at
	}
	return out
}

// emitter delivers output lines, paced, until ctx is cancelled.
type emitter struct {
	ctx      context.Context
	onLine   func(string)
	interval time.Duration
	// paced makes waits real (LabOptions.Realtime); otherwise the lab's
	// time is simulated and every line comes at once, RTTs as modelled.
	paced bool
	out   strings.Builder
	err   error
}

func (e *emitter) line(l string) {
	if e.err != nil {
		return
	}
	e.out.WriteString(l + "\n")
	if e.onLine != nil {
		e.onLine(l)
	}
}

// wait sleeps d (d <= 0 only checks ctx); false when ctx was cancelled.
func (e *emitter) wait(d time.Duration) bool {
	if e.err != nil {
		return false
	}
	if d <= 0 || !e.paced {
		// Unpaced, the answer was computed in the lab's simulated time
		// before any line is emitted: a wall-clock deadline that passed
		// meanwhile (a busy machine) must not turn it into a timeout, or
		// the same network would answer differently under load. Only a
		// cancellation stops it.
		if err := e.ctx.Err(); err != nil && (e.paced || !errors.Is(err, context.DeadlineExceeded)) {
			e.err = err
			return false
		}
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.ctx.Done():
		e.err = e.ctx.Err()
		return false
	case <-t.C:
		return true
	}
}

func (e *emitter) lines(ls []string, gap time.Duration) {
	for _, l := range ls {
		if !e.wait(gap) {
			return
		}
		e.line(l)
	}
}

var icmpSeq = lazyre.New(`icmp_seq=(\d+)`)

// ping emits iputils output one request per interval: the lines of
// icmp_seq k appear k-1 intervals after the header, the statistics after
// the last request.
func (e *emitter) ping(text string, count int) {
	ls := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	last := 1
	i := 0
	for ; i < len(ls); i++ {
		l := ls[i]
		if m := icmpSeq.Re().FindStringSubmatch(l); m != nil {
			k, _ := strconv.Atoi(m[1])
			if k > last && !e.wait(time.Duration(k-last)*e.interval) {
				return
			}
			last = max(last, k)
		} else if strings.HasPrefix(l, "--- ") || (l == "" && i > 0) {
			break
		}
		e.line(l)
	}
	if count > last && !e.wait(time.Duration(count-last)*e.interval) {
		return
	}
	e.lines(ls[i:], 0)
}
