package agent

import (
	"context"
	"encoding/json"
	"math"
	"sync"
	"time"

	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// The draft's capture step: every path interface is captured (ICMP, both
// directions) on its device, locally or through a neighbour's
// ietf-capture, and each signed capture (its decoded packets and the base64
// libpcap file) joins the evidence.
//
// A real device (tcpdump) captures from the moment it is asked, for the
// duration asked; the simulator answers at once with the window just
// past. The workflow does not need to know which is which: it starts
// every capture before the probes (CaptureLead ahead of them, for the
// capture program to attach), for long enough to cover them. A capture
// that answered before the probes were over looked back (or failed): it is
// dropped, not kept as evidence, and made again after the probes,
// reaching back over them; every look-back capture is then counted over
// the same interval of time, so the devices' views compare. A capture
// that ran across the probes (a forward capture) counts everything it saw:
// it cannot hold an earlier run's probes.

// CaptureLead is how long the captures get to start (tcpdump attaching
// to the interface, over D2D) before the probes are sent.
const CaptureLead = 1500 * time.Millisecond

// captureMargin is how long a forward capture runs past the last probe
// the pings were due to send.
const captureMargin = time.Second

// DeviceDiagPerSession is the number of diagnostics (pings and captures)
// a run may have running at once on one device, all through the agent's
// one session to it (Config.Local): a device in the middle of the path
// captures on two interfaces while it pings both neighbours. The device
// server behind Config.Local must admit at least this many per session
// (server.Options.DiagLimiter), or a real device's pings are refused.
const DeviceDiagPerSession = 4

// DeviceDiagLimiter is the diagnostics limiter for the agent's device
// server (server.Options.DiagLimiter): the default overall limit
// (diag.DefaultMax), DeviceDiagPerSession per session.
func DeviceDiagLimiter() *diag.Limiter {
	return diag.NewLimiter(diag.DefaultMax, DeviceDiagPerSession)
}

// capturedPkt is what the workflow reads of a captured packet.
type capturedPkt struct {
	Time      time.Time `json:"time"`
	Direction string    `json:"direction"`
	Protocol  string    `json:"protocol"`
	Src       string    `json:"src"`
	Dst       string    `json:"dst"`
	ICMPType  *int      `json:"icmpType"`
}

// capView is one signed capture.
type capView struct {
	pkts []capturedPkt
	ev   int
	// forward is a capture that ran across the probes: everything it
	// saw is of this run.
	forward bool
}

// echoes counts the echo requests from src to dst crossing the interface
// in direction dir: within [lo, hi] for a capture that looked back, all of
// them for a forward one.
func (v capView) echoes(dir, src, dst string, lo, hi time.Time) int {
	n := 0
	for _, p := range v.pkts {
		if p.Direction == dir && p.Protocol == "icmp" && p.ICMPType != nil && *p.ICMPType == 8 &&
			p.Src == src && p.Dst == dst && (v.forward || !p.Time.Before(lo) && !p.Time.After(hi)) {
			n++
		}
	}
	return n
}

// captureArgs are the capture tool's arguments for side s over secs.
func captureArgs(s side, secs float64) map[string]any {
	return map[string]any{"interface": s.ifName, "protocol": "icmp", "direction": "both", "durationSeconds": secs, "maxPackets": 1000}
}

// captureBody is what the workflow reads of a signed capture: its
// packets, and whether it stopped at its packet limit.
type captureBody struct {
	Packets   []capturedPkt `json:"packets"`
	Truncated bool          `json:"truncated"`
}

// decodeCapture reads a signed capture's body.
func decodeCapture(res sign.Result) (captureBody, bool) {
	var body captureBody
	if json.Unmarshal(res.Body, &body) != nil {
		return captureBody{}, false
	}
	return body, true
}

// earlyCapture is a capture started before the probes.
type earlyCapture struct {
	s      side
	res    sign.Result
	err    error
	window time.Duration // asked for
	took   time.Duration // until it answered
}

// forwardSlack is how much sooner than its window a capture may answer
// and still count as having run across it (timers, the round trip).
const forwardSlack = 500 * time.Millisecond

// startCaptures starts a capture of every side at once, for window, and
// returns a channel that yields each one as it answers (closed when all
// have), and a channel closed once all have answered.
func (r *run) startCaptures(ctx context.Context, sides []side, window time.Duration) (<-chan earlyCapture, <-chan struct{}) {
	out := make(chan earlyCapture, len(sides))
	all := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			res, err := r.call(ctx, s.dev, netproto.ToolCapture, captureArgs(s, window.Seconds()))
			out <- earlyCapture{s: s, res: res, err: err, window: window, took: time.Since(t0)}
		}()
	}
	go func() { wg.Wait(); close(out); close(all) }()
	return out, all
}

// collectForward keeps, of the captures started before the probes, those
// that ran for their window (or stopped at their packet limit): they
// captured the probes. One that answered sooner looked back (the
// simulator) or failed; its side needs a look-back capture.
func (r *run) collectForward(early <-chan earlyCapture) (map[side]capView, []side) {
	out := map[side]capView{}
	var rest []side
	for e := range early {
		body, ok := decodeCapture(e.res)
		if e.err != nil || e.res.Sig == "" || !ok || e.took < e.window-forwardSlack && !body.Truncated {
			rest = append(rest, e.s)
			continue
		}
		out[e.s] = capView{pkts: body.Packets, ev: r.keep(e.res), forward: true}
	}
	return out, rest
}

// captureSides captures ICMP on every side (one capture per interface,
// both directions), reaching back window. A device runs its captures one
// after the other (a device session runs few diagnostics at once).
func (r *run) captureSides(ctx context.Context, sides []side, window time.Duration) map[side]capView {
	byDev := map[string][]side{}
	for _, s := range sides {
		byDev[s.dev] = append(byDev[s.dev], s)
	}
	out := map[side]capView{}
	var mu sync.Mutex
	var fns []func()
	secs := math.Ceil(window.Seconds())
	for _, ss := range byDev {
		fns = append(fns, func() {
			for _, s := range ss {
				res, i, err := r.do(ctx, s.dev, netproto.ToolCapture, captureArgs(s, secs))
				if err != nil {
					continue
				}
				body, ok := decodeCapture(res)
				if !ok {
					continue
				}
				mu.Lock()
				out[s] = capView{pkts: body.Packets, ev: i}
				mu.Unlock()
			}
		})
	}
	parallel(fns...)
	return out
}

// pingOut is what the workflow reads of a ping result.
type pingOut struct {
	Loss   float64 `json:"loss"`
	Result struct {
		Transmitted *int `json:"packets_transmitted"`
	} `json:"result"`
}

// sent is the number of echo requests the ping sent (Probes when the
// result does not say).
func (p pingOut) sent() int {
	if p.Result.Transmitted != nil {
		return *p.Result.Transmitted
	}
	return Probes
}

func parsePing(body json.RawMessage) (pingOut, bool) {
	var p pingOut
	return p, json.Unmarshal(body, &p) == nil
}

// transitPoints are the points the head-to-tail probes cross (forward),
// or the tail-to-head ones: out of each link's sending end, into its
// receiving end.
func transitPoints(links []pathLink, forward bool) []point {
	var pts []point
	if forward {
		for _, l := range links {
			pts = append(pts, point{Dev: l.x, If: l.xIf, Dir: "out", Peer: l.y}, point{Dev: l.y, If: l.yIf, Dir: "in", Peer: l.x})
		}
		return pts
	}
	for i := len(links) - 1; i >= 0; i-- {
		l := links[i]
		pts = append(pts, point{Dev: l.y, If: l.yIf, Dir: "out", Peer: l.x}, point{Dev: l.x, If: l.xIf, Dir: "in", Peer: l.y})
	}
	return pts
}
