package controller

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// SyslogURI is the device log the sweep reads for each router's
// interface history: in its last 200 lines, a link that went down and
// came back up by itself (no administrative shutdown logged at either
// end) within the flap window (Controller.FlapWindow) is a flapping link.
const SyslogURI = netproto.URISyslogPrefix + "200"

// DefaultFlapWindow is Controller.FlapWindow's default: a link whose
// changes stopped longer ago has flapped, and is not flapping now.
const DefaultFlapWindow = 5 * time.Minute

// DefaultFlapWatch is Controller.FlapWatch's default: a flap's down phase
// lasts seconds (the carrier lost, then renegotiated), so a link still
// down after this second look is down.
const DefaultFlapWatch = 10 * time.Second

// ToolReadResource names a resource read in Report.Calls (it is an MCP
// resources/read, not a tool call; Args holds the URI).
const ToolReadResource = "resources/read"

// ifChangeRe matches an interface's oper state change in the dialects'
// words: IOS XE and IOS XR "%LINK-3-UPDOWN: Interface X, changed state to
// down", VRP "Interface X has turned into DOWN state." (administrative
// shutdowns are logged in other words and are not matched).
var ifChangeRe = []*regexp.Regexp{
	regexp.MustCompile(`Interface (\S+), changed state to (up|down)\b`),
	regexp.MustCompile(`Interface (\S+) has turned into (UP|DOWN) state`),
}

// ifShutRe matches an administrative shutdown in the dialects' words: IOS
// XE and IOS XR "%LINK-5-CHANGED: Interface X, changed state to
// administratively down", VRP "Interface X has turned into
// administratively DOWN state."
var ifShutRe = []*regexp.Regexp{
	regexp.MustCompile(`Interface (\S+), changed state to administratively down`),
	regexp.MustCompile(`Interface (\S+) has turned into administratively DOWN state`),
}

// ifHistory is what one interface's log lines show.
type ifHistory struct {
	// Downs counts its changes to down; UpsAfter its changes to up that
	// follow a down.
	Downs, UpsAfter int
	// Shuts counts its administrative shutdowns.
	Shuts int
	Call  int
	// Window is the time counted back from the read (0: every line read,
	// the device gave no times).
	Window time.Duration
}

// bounced: the interface lost its carrier and got it back. It is a flap
// of its link unless either end was shut down on purpose (linkBounced).
func (h ifHistory) bounced() bool { return h.Downs >= 1 && h.UpsAfter >= 1 }

func (h ifHistory) words() string {
	if h.Window > 0 {
		return fmt.Sprintf("%d changes to down and %d back to up in the last %s of its log", h.Downs, h.UpsAfter, h.Window)
	}
	return fmt.Sprintf("%d changes to down and %d back to up in its last 200 log lines", h.Downs, h.UpsAfter)
}

// parseIfHistory counts each interface's oper changes in log lines. With
// times (one per line, as the syslog read's _meta gives them), a line
// older than window before now is not counted; a line without a time is.
func parseIfHistory(text string, times []time.Time, now time.Time, window time.Duration, call int) map[string]ifHistory {
	out := map[string]ifHistory{}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(times) != len(lines) {
		times, window = nil, 0 // not one per line: no line can be dated
	}
	since := now.Add(-window)
	for i, line := range lines {
		if strings.Contains(line, "Line protocol") || strings.Contains(line, "line protocol") {
			continue // the same change again, at the protocol layer
		}
		if times != nil && !times[i].IsZero() && times[i].Before(since) {
			continue // older than the window
		}
		if shut := matchIface(ifShutRe, line); shut != "" {
			h := out[shut]
			h.Call, h.Window = call, window
			h.Shuts++
			out[shut] = h
			continue
		}
		for _, re := range ifChangeRe {
			m := re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			h := out[m[1]]
			h.Call, h.Window = call, window
			if strings.EqualFold(m[2], "down") {
				h.Downs++
			} else if h.Downs > 0 {
				h.UpsAfter++
			}
			out[m[1]] = h
			break
		}
	}
	return out
}

// matchIface returns the interface of the first of res that matches line.
func matchIface(res []*regexp.Regexp, line string) string {
	for _, re := range res {
		if m := re.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return ""
}

// readHistory reads every router's syslog once per run and returns each
// device's interface history (absent for a device whose log could not be
// read: no history is no evidence either way).
func (r *run) readHistory(n *network) map[string]map[string]ifHistory {
	r.mu.Lock()
	if r.history != nil {
		defer r.mu.Unlock()
		return r.history
	}
	r.mu.Unlock()
	window := cmp.Or(r.c.FlapWindow, DefaultFlapWindow)
	out := map[string]map[string]ifHistory{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, dev := range sortedKeys(n.Devices) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, meta, call, err := r.readResource(dev, SyslogURI)
			if err != nil {
				return
			}
			h := parseIfHistory(text, logTimes(meta), r.c.now(), window, call)
			r.summarize(call, "%d interfaces with state changes logged", len(h))
			mu.Lock()
			out[dev] = h
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.mu.Lock()
	r.history = out
	r.mu.Unlock()
	return out
}

// logTimes returns the times of a syslog read's lines from its _meta
// (netproto.MetaLogTimes), zero where a line has none; nil when the
// device gave none or they do not parse.
func logTimes(meta mcp.Meta) []time.Time {
	raw, ok := meta[netproto.MetaLogTimes].([]any)
	if !ok {
		return nil
	}
	out := make([]time.Time, len(raw))
	for i, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil
		}
		out[i] = t
	}
	return out
}

// readResource reads a device's resource as text, recorded in the
// report's calls like a tool call, with the result's _meta.
func (r *run) readResource(dev, uri string) (string, mcp.Meta, int, error) {
	args := map[string]any{"uri": uri}
	r.mu.Lock()
	n := len(r.rep.Calls) + 1
	r.rep.Calls = append(r.rep.Calls, Call{N: n, Step: r.step, Device: dev, Tool: ToolReadResource, Args: args})
	r.mu.Unlock()
	start := time.Now()
	var res *mcp.ReadResourceResult
	var err error
	if d := r.c.Fleet.Device(dev); d == nil {
		err = fmt.Errorf("device %s is not in the inventory", dev)
	} else {
		res, err = d.ReadResource(r.ctx, uri)
	}
	el := time.Since(start)
	var b strings.Builder
	var meta mcp.Meta
	if res != nil {
		for _, c := range res.Contents {
			b.WriteString(c.Text)
			if meta == nil {
				meta = c.Meta
			}
		}
	}
	r.mu.Lock()
	c := &r.rep.Calls[n-1]
	c.ElapsedMS = float64(el.Microseconds()) / 1000
	if err != nil {
		c.Error = err.Error()
	}
	r.mu.Unlock()
	status := "ok"
	if err != nil {
		status = "error: " + firstLine(err.Error())
	}
	r.progress("  #%d [%s] %s %s (%.0f ms) %s", n, dev, ToolReadResource, uri, float64(el.Microseconds())/1000, status)
	return b.String(), meta, n, err
}

// flapCause returns a link_flap cause when either end's log shows the
// link losing its carrier and getting it back within the flap window
// while neither end was shut down on purpose, whatever its state now.
func (r *run) flapCause(n *network, l link) (Cause, bool) {
	hist := r.readHistory(n)
	var ev []Evidence
	for _, e := range []end{l.A, l.B} {
		if hist[e.Device][e.Iface].Shuts > 0 {
			return Cause{}, false // an operator's shutdown, not a flap
		}
	}
	for _, e := range []end{l.A, l.B} {
		if h, ok := hist[e.Device][e.Iface]; ok && h.bounced() {
			ev = append(ev, r.ev(h.Call, e.Device, ToolReadResource, "%s: %s", e.Iface, h.words()))
		}
	}
	if len(ev) == 0 {
		return Cause{}, false
	}
	a, b := n.Devices[l.A.Device].Iface(l.A.Iface), n.Devices[l.B.Device].Iface(l.B.Iface)
	now := "up now"
	if !a.OperUp || !b.OperUp {
		now = "down now"
	}
	ev = append(ev,
		r.ev(n.Devices[l.A.Device].Calls[pathInterfaces], l.A.Device, netproto.ToolYangGet, "%s oper %s", a.Name, a.OperStatus),
		r.ev(n.Devices[l.B.Device].Calls[pathInterfaces], l.B.Device, netproto.ToolYangGet, "%s oper %s", b.Name, b.OperStatus))
	return flapCauseOf(l, fmt.Sprintf("its ends' logs show it going down and coming back up by itself (%s)", now), ev...), true
}

// flapCauseOf is the link_flap cause of link l, for the reason why.
func flapCauseOf(l link, why string, ev ...Evidence) Cause {
	c := newCause("link_flap", []string{l.A.Device, l.B.Device}, l.String(),
		fmt.Sprintf("The link %s flaps: %s.", l, why), ev...)
	c.Fix = fmt.Sprintf("Check the physical link between %s:%s and %s:%s (cable, optics, port errors, the far end's power); dampen the interface if the flapping must be tolerated until then.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// watchLink takes a second look at a link that lost its carrier while
// its ends are administratively up and no log shows it coming back: it
// reads the ends' interfaces again about once a second until one is
// operationally up again, still administratively up (the link came back
// by itself: it flaps), or the watch (Controller.FlapWatch) ends (the
// link stays down). An end whose device cannot be read (a host without
// its own view) is left out; ev is the first look's evidence.
func (r *run) watchLink(l link, ev ...Evidence) (Cause, bool) {
	watch := cmp.Or(r.c.FlapWatch, DefaultFlapWatch)
	if watch < 0 {
		return Cause{}, false
	}
	start := time.Now()
	tick := min(time.Second, watch)
	t := time.NewTimer(tick)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return Cause{}, false
		case <-t.C:
		}
		for _, e := range []end{l.A, l.B} {
			if e.Iface == "" || r.c.Fleet.Device(e.Device) == nil {
				continue
			}
			data, call, err := r.yangGet(e.Device, pathInterfaces)
			if err != nil {
				continue
			}
			for _, it := range parseInterfaces(data) {
				if it.Name != e.Iface || !it.AdminUp || !it.OperUp {
					continue
				}
				after := time.Since(start).Round(100 * time.Millisecond)
				ev = append(ev, r.ev(call, e.Device, netproto.ToolYangGet, "%s admin UP, oper UP again %s later", it.Name, after))
				return flapCauseOf(l, fmt.Sprintf("it was down at both ends though both are administratively up, and %s:%s came back up by itself %s later", e.Device, e.Iface, after), ev...), true
			}
		}
		if time.Since(start) >= watch {
			return Cause{}, false
		}
		t.Reset(tick)
	}
}
