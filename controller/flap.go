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
// came back up more than once within the flap window
// (Controller.FlapWindow) is a flapping link.
const SyslogURI = netproto.URISyslogPrefix + "200"

// DefaultFlapWindow is Controller.FlapWindow's default: a link whose
// changes stopped longer ago has flapped, and is not flapping now.
const DefaultFlapWindow = 5 * time.Minute

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

// ifHistory is what one interface's log lines show.
type ifHistory struct {
	// Downs counts its changes to down; UpsAfter its changes to up that
	// follow a down.
	Downs, UpsAfter int
	Call            int
	// Window is the time counted back from the read (0: every line read,
	// the device gave no times).
	Window time.Duration
}

// flapping: down more than once and back up in between.
func (h ifHistory) flapping() bool { return h.Downs >= 2 && h.UpsAfter >= 1 }

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
// link going down and up again repeatedly, whatever its state now.
func (r *run) flapCause(n *network, l link) (Cause, bool) {
	hist := r.readHistory(n)
	var ev []Evidence
	for _, e := range []end{l.A, l.B} {
		if h, ok := hist[e.Device][e.Iface]; ok && h.flapping() {
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
	c := newCause("link_flap", []string{l.A.Device, l.B.Device}, l.String(),
		fmt.Sprintf("The link %s flaps: its ends' logs show it going down and coming back up repeatedly (%s).", l, now), ev...)
	c.Fix = fmt.Sprintf("Check the physical link between %s:%s and %s:%s (cable, optics, port errors, the far end's power); dampen the interface if the flapping must be tolerated until then.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c, true
}
