package agent

import (
	"context"
	"encoding/json"
	"math"
	"sync"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// The draft's capture step: after the probes, every path interface is
// captured (ICMP, both directions) on its device, locally or through a
// neighbour's ietf-capture, and each signed capture (its decoded packets
// and the base64 libpcap file) joins the evidence. The simulator answers a
// capture at once with the window just past, so the captures follow the
// probes; every capture is then counted over the same interval of time, so
// the devices' views compare.

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
}

// echoes counts the echo requests from src to dst crossing the interface
// in direction dir within [lo, hi].
func (v capView) echoes(dir, src, dst string, lo, hi time.Time) int {
	n := 0
	for _, p := range v.pkts {
		if p.Direction == dir && p.Protocol == "icmp" && p.ICMPType != nil && *p.ICMPType == 8 &&
			p.Src == src && p.Dst == dst && !p.Time.Before(lo) && !p.Time.After(hi) {
			n++
		}
	}
	return n
}

// captureSides captures ICMP on every side (one capture per interface,
// both directions), reaching back window. A device runs its captures one
// after the other (a device session runs at most two diagnostics at once).
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
				res, i, err := r.do(ctx, s.dev, netproto.ToolCapture, map[string]any{"interface": s.ifName, "protocol": "icmp",
					"direction": "both", "durationSeconds": secs, "maxPackets": 1000})
				if err != nil {
					continue
				}
				var body struct {
					Packets []capturedPkt `json:"packets"`
				}
				if json.Unmarshal(res.Body, &body) != nil {
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
