package sim

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/sim/netsim"
	"github.com/netmcp/netmcp/internal/lazyre"
	"github.com/netmcp/netmcp/netproto"
)

// defaultProbeInterval paces simulated output lines when the request sets
// no interval: fast enough for tests, slow enough to be seen streaming.
const defaultProbeInterval = 100 * time.Millisecond

// Diagnose runs ping, traceroute, tracepath or dig from the device through
// the network model and returns the real Linux tools' text. Lines go to
// onLine as they would appear, one probe (or hop) per interval; a
// cancelled ctx stops the run at once with the output so far.
func (d *Driver) Diagnose(ctx context.Context, req device.DiagRequest, onLine func(string)) (device.DiagResult, error) {
	interval := req.Interval
	if interval <= 0 {
		interval = defaultProbeInterval
	}
	em := &emitter{ctx: ctx, onLine: onLine, interval: interval}
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
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		em.line(lines[0])
		em.lines(lines[1:], interval)
		code := 0
		if out.Error != "" {
			code = 1
		}
		return device.DiagResult{Output: em.out.String(), ExitCode: code}, em.err
	}
	return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "diagnostic tool %q is not supported by the simulator (ping, traceroute, tracepath, dig)", req.Tool)
}

// emitter delivers output lines, paced, until ctx is cancelled.
type emitter struct {
	ctx      context.Context
	onLine   func(string)
	interval time.Duration
	out      strings.Builder
	err      error
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
	if d <= 0 {
		if err := e.ctx.Err(); err != nil {
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
