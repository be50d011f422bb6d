package controller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Controller runs intents over a fleet.
type Controller struct {
	// Fleet is the devices, connected (client.Fleet.Connect).
	Fleet *client.Fleet
	// Hosts are the end hosts known by name (they serve no MCP; the
	// controller reaches them from the routers of their subnet).
	Hosts []Host
	// Domains are the network's DNS zones (the first is used to check
	// the devices' records); none: records are not checked.
	Domains []string
	// Progress receives the plan and each call as it completes (nil: silent).
	Progress io.Writer
	// LinkPings is the number of probes per link in a loss check (default 10).
	LinkPings int
	// LinkLatencyMS is the round trip across one link above which the
	// sweep reports the link's latency (default 100 ms: a lab's or a
	// campus's links take a few ms; raise it for long-haul links).
	LinkLatencyMS float64
	// FlapWindow is how far back the sweep counts a link's state changes
	// in its ends' logs when it looks for a flapping link (default
	// DefaultFlapWindow): older changes are history, not a fault now.
	// Lines a device gives no time for are all counted.
	FlapWindow time.Duration
	// FlapWatch is how long the sweep watches a link found down at both
	// ends, though administratively up at both, for its coming back up
	// by itself, which makes it a flap rather than a link down (default
	// DefaultFlapWatch; negative: no watch).
	FlapWatch time.Duration
	// SweepMesh makes the sweep's first look measure the pingmesh (rule
	// pingmesh) into the report's facts. Off by default: no rule reads it
	// yet, and it costs a ping per pair, the square of the fleet.
	SweepMesh bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// run is one intent being executed.
type run struct {
	c   *Controller
	ctx context.Context
	rep *Report

	mu   sync.Mutex
	step int
	net  *network
	// history is each router's interface history from its log (flap.go).
	history map[string]map[string]ifHistory
	// probeSlots bound the diagnostics run at once on each device to
	// what a device allows one caller (diag.DefaultPerCaller), and
	// inflight those over the whole fleet (maxProbesInFlight).
	probeSlots map[string]chan struct{}
	inflight   chan struct{}
}

// maxProbesInFlight bounds the probes a run has in flight over the whole
// fleet. A sweep probes every link from both ends at once: on a network
// of a few dozen routers every probe still starts at once, while on one
// of a thousand the calls (each with its own buffers on both sides) go in
// waves instead of thousands together.
const maxProbesInFlight = 256

// newReportID returns a fresh report id: the time and a random suffix,
// sortable by time.
func newReportID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Ask runs an intent and returns its report. The error is for a run that
// could not be made at all (an invalid intent, a cancelled context); a
// device that fails is recorded in the report and the run goes on.
func (c *Controller) Ask(ctx context.Context, in Intent) (*Report, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if c.Fleet == nil {
		return nil, errors.New("controller: no fleet")
	}
	start := c.now()
	corr := client.CorrelationID(ctx)
	if corr == "" {
		corr = client.NewCorrelationID()
		ctx = client.WithCorrelationID(ctx, corr)
	}
	r := &run{c: c, ctx: ctx, rep: &Report{ID: newReportID(start), Intent: in, CorrelationID: corr, Started: start.UTC(), Calls: []Call{}, Steps: []Step{}}}
	r.progress("intent: %s (correlation id %s)", in, corr)
	var err error
	switch in.Kind {
	case KindReachability:
		err = r.reachability(in, false)
	case KindPathMTU:
		err = r.reachability(in, true)
	case KindBGPDown:
		err = r.bgpDown(in)
	case KindOSPFDown:
		err = r.ospfDown(in)
	case KindSweep:
		err = r.sweep()
	}
	if err != nil {
		return nil, err
	}
	r.rep.finish()
	r.rep.ElapsedMS = float64(c.now().Sub(start).Microseconds()) / 1000
	r.progress("diagnosis: %s", r.rep.Diagnosis)
	return r.rep, nil
}

// progress prints a line of progress.
func (r *run) progress(format string, args ...any) {
	if r.c.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.c.Progress, format+"\n", args...)
}

// begin starts a step of the plan.
func (r *run) begin(title string) {
	r.mu.Lock()
	r.step++
	r.rep.Steps = append(r.rep.Steps, Step{N: r.step, Title: title})
	n := r.step
	r.mu.Unlock()
	r.progress("step %d: %s", n, title)
}

// call makes one tool call on a device, records it and returns its
// structured result (or the text decoded as JSON) and the call's number.
func (r *run) call(dev, tool string, args map[string]any) (any, int, error) {
	return r.callCtx(r.ctx, dev, tool, args)
}

// callCtx is call under ctx (the run's context with a deadline of its own).
func (r *run) callCtx(ctx context.Context, dev, tool string, args map[string]any) (any, int, error) {
	r.mu.Lock()
	n := len(r.rep.Calls) + 1
	r.rep.Calls = append(r.rep.Calls, Call{N: n, Step: r.step, Device: dev, Tool: tool, Args: args})
	r.mu.Unlock()
	start := time.Now()
	var res *mcp.CallToolResult
	var err error
	d := r.c.Fleet.Device(dev)
	if d == nil {
		err = fmt.Errorf("device %s is not in the inventory", dev)
	} else {
		res, err = d.CallTool(ctx, tool, args)
	}
	el := time.Since(start)
	var out any
	if res != nil {
		out = res.StructuredContent
		if out == nil {
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					var v any
					if json.Unmarshal([]byte(t.Text), &v) == nil {
						out = v
					} else {
						out = t.Text
					}
					break
				}
			}
		}
		if m, ok := out.(map[string]any); ok && out != nil && !plainTree(m) {
			// Normalise to a plain decoded tree (a result over an
			// in-process connection may hold Go values; one decoded from
			// the wire is plain already).
			b, _ := json.Marshal(m)
			var v any
			_ = json.Unmarshal(b, &v)
			out = v
		}
	}
	r.mu.Lock()
	c := &r.rep.Calls[n-1]
	c.ElapsedMS = float64(el.Microseconds()) / 1000
	if err != nil {
		c.Error = err.Error()
		var je *jsonrpc.Error
		if errors.As(err, &je) && len(je.Data) > 0 {
			c.Error += " " + string(je.Data) // the device's details (MCP-NET error data)
		}
	}
	r.mu.Unlock()
	status := "ok"
	if err != nil && strings.Contains(err.Error(), "no data at path") {
		status = "no data"
	} else if err != nil {
		status = "error: " + firstLine(err.Error())
	}
	r.progress("  #%d [%s] %s %s (%.0f ms) %s", n, dev, tool, argWords(args), float64(el.Microseconds())/1000, status)
	return out, n, err
}

// plainTree tells whether v is made only of what encoding/json decodes
// into an any: maps of string to any, slices of any, strings, float64s,
// booleans and nils.
func plainTree(v any) bool {
	switch v := v.(type) {
	case nil, string, float64, bool:
		return true
	case map[string]any:
		for _, x := range v {
			if !plainTree(x) {
				return false
			}
		}
		return true
	case []any:
		for _, x := range v {
			if !plainTree(x) {
				return false
			}
		}
		return true
	}
	return false
}

// summarize sets what call n showed.
func (r *run) summarize(n int, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > 0 && n <= len(r.rep.Calls) {
		r.rep.Calls[n-1].Summary = fmt.Sprintf(format, args...)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

// argWords prints call arguments compactly: key=value sorted.
func argWords(args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		v, _ := json.Marshal(args[k])
		s := string(v)
		if len(s) > 80 {
			s = s[:80] + "..."
		}
		fmt.Fprintf(&b, "%s=%s", k, strings.Trim(s, `"`))
	}
	return b.String()
}

// yangGet reads a path from a device's operational datastore.
func (r *run) yangGet(dev, path string) (any, int, error) {
	out, n, err := r.call(dev, netproto.ToolYangGet, map[string]any{"path": path})
	if err != nil && strings.Contains(err.Error(), "no data at path") {
		// An empty subtree is an answer, not a failure.
		r.mu.Lock()
		r.rep.Calls[n-1].Error = ""
		r.rep.Calls[n-1].Summary = "no data"
		r.mu.Unlock()
		return nil, n, nil
	}
	if err != nil {
		return nil, n, err
	}
	return yang.Member(out, "data"), n, nil
}

// readNetwork reads every device of the fleet (interfaces, VRFs, routes,
// ACLs, routing protocols) in parallel and infers links and hosts.
func (r *run) readNetwork() *network {
	if r.net != nil {
		return r.net
	}
	r.begin("read every device: interfaces, VRFs, ACLs, BGP and OSPF (" + pathInterfaces + ", " + pathNetInst + ", " + PathACL + "); a router's routes (" + pathRouting + ") when a check follows a path through it")
	n := &network{Devices: map[string]*deviceView{}, Unread: map[string]string{}}
	var mu sync.Mutex
	results := r.c.Fleet.Each(r.ctx, r.routers(), func(ctx context.Context, d *client.Device) error {
		v := &deviceView{Name: d.Name(), Calls: map[string]int{}}
		data, call, err := r.yangGet(d.Name(), pathInterfaces)
		if err != nil {
			return err
		}
		v.Ifaces = parseInterfaces(data)
		v.Calls[pathInterfaces] = call
		r.summarize(call, "%d interfaces", len(v.Ifaces))
		if data, call, err = r.yangGet(d.Name(), pathNetInst); err == nil {
			parseVRFs(data, v.Ifaces)
			v.Calls[pathNetInst] = call
			v.BGP, v.OSPF = parseBGP(data), parseOSPF(data)
			r.summarize(call, "BGP %v, OSPF %v", v.BGP != nil, v.OSPF != nil)
		} else if lostDevice(err) {
			return err // lost part-way: unread, not absent
		}
		v.readRoutes = func() []route { return r.readRoutes(v) }
		if data, call, err = r.yangGet(d.Name(), PathACL); err == nil {
			v.ACLs, v.Bindings = parseACL(data)
			v.Calls[PathACL] = call
			r.summarize(call, "%d ACLs, %d bindings", len(v.ACLs), len(v.Bindings))
		} else if lostDevice(err) {
			return err // lost part-way: unread, not absent
		}
		mu.Lock()
		n.Devices[d.Name()] = v
		mu.Unlock()
		return nil
	})
	for _, res := range results {
		if res.Err != nil {
			n.Unread[res.Device.Name()] = res.Err.Error()
			continue
		}
		n.Order = append(n.Order, res.Device.Name())
	}
	if len(n.Unread) > 0 {
		r.rep.Unreachable = n.Unread
	}
	n.infer(r.c.Hosts)
	r.readHosts(n)
	r.net = n
	r.progress("  network: %d devices read, %d links, %d hosts", len(n.Order), len(n.Links), len(n.Hosts))
	return n
}

// readRoutes reads a router's IPv4 table (its first lookup calls it):
// the call goes in the report under the step that needed it. A device
// lost meanwhile is noted (Report.Unreachable); its table stays empty.
func (r *run) readRoutes(v *deviceView) []route {
	data, call, err := r.yangGet(v.Name, pathRouting)
	if err != nil {
		if lostDevice(err) {
			r.noteLost(v.Name, err)
		}
		return nil
	}
	rs := parseRoutes(data)
	v.Calls[pathRouting] = call
	r.summarize(call, "%d IPv4 routes", len(rs))
	return rs
}

// pingOpts are a ping's options.
type pingOpts struct {
	Count    int
	Source   string
	VRF      string
	Size     int
	DF       bool
	Interval int
}

// pingResult is what a ping showed.
type pingResult struct {
	Dev  string
	Dst  netip.Addr
	Loss float64 // percent; 100 when the call failed
	RTT  float64 // average round trip in ms (0 when none came back)
	// Mdev is the round trips' mean deviation in ms (ping's mdev): the
	// probes' own jitter.
	Mdev float64
	Call int
	Err  error
	Text string
	// Unknown is set when the device refused or timed out the probe
	// itself (busy with other diagnostics), or runs no probes at all (a
	// router reached over gNMI answers -32084): the probe shows nothing
	// of the path, and is no evidence either way.
	Unknown bool
}

// OK tells whether every probe came back.
func (p pingResult) OK() bool { return p.Err == nil && p.Loss == 0 }

// ping pings dst from dev.
func (r *run) ping(dev string, dst netip.Addr, o pingOpts) pingResult {
	args := map[string]any{"destination": dst.String(), "count": max(o.Count, 1), "intervalMs": max(o.Interval, 200), "timeout": 1}
	if o.Source != "" {
		args["source"] = o.Source
	}
	if o.VRF != "" {
		args["vrf"] = o.VRF
	}
	if o.Size > 0 {
		args["packetSize"] = o.Size
	}
	if o.DF {
		args["dontFragment"] = true
	}
	out, n, err := r.probe(dev, netproto.ToolPing, args)
	p := pingResult{Dev: dev, Dst: dst, Call: n, Err: err, Loss: 100, Unknown: refused(err) || notRun(err)}
	if lostDevice(err) {
		r.noteLost(dev, err)
	}
	if err != nil {
		p.Text = fmt.Sprintf("ping %s failed: %s", dst, firstLine(err.Error()))
		r.summarize(n, "%s", p.Text)
		return p
	}
	if l := yang.Member(out, "loss"); l != nil {
		p.Loss, _ = yang.Number(l)
	} else if l := yang.Member(out, "result", "packet_loss_percent"); l != nil {
		p.Loss, _ = l.(float64)
	}
	p.RTT, _ = yang.Member(out, "result", "round_trip_ms_avg").(float64)
	p.Mdev, _ = yang.Member(out, "result", "round_trip_ms_stddev").(float64)
	sent, _ := yang.Int(yang.Member(out, "result", "packets_transmitted"))
	recv, _ := yang.Int(yang.Member(out, "result", "packets_received"))
	size := ""
	if o.Size > 0 {
		size = fmt.Sprintf(" (%d bytes", o.Size)
		if o.DF {
			size += ", DF"
		}
		size += ")"
	}
	p.Text = fmt.Sprintf("ping %s%s: %d/%d replies, %g%% loss", dst, size, recv, sent, p.Loss)
	if p.RTT > 0 {
		p.Text += fmt.Sprintf(", rtt avg %.1f ms", p.RTT)
	}
	if errs := yang.List(yang.Member(out, "result", "icmp_errors")); len(errs) > 0 {
		b, _ := json.Marshal(errs[0])
		p.Text += ", ICMP error " + firstLine(string(b))
	}
	r.summarize(n, "%s", p.Text)
	return p
}

// probe makes a diagnostic call (a ping) on dev: at most
// diag.DefaultPerCaller at once per device, and a call the device
// refuses as busy is retried with back-off before it is given up.
func (r *run) probe(dev, tool string, args map[string]any) (any, int, error) {
	r.mu.Lock()
	if r.probeSlots == nil {
		r.probeSlots = map[string]chan struct{}{}
	}
	slots := r.probeSlots[dev]
	if slots == nil {
		slots = make(chan struct{}, diag.DefaultPerCaller)
		r.probeSlots[dev] = slots
	}
	if r.inflight == nil {
		r.inflight = make(chan struct{}, maxProbesInFlight)
	}
	inflight := r.inflight
	r.mu.Unlock()
	wait := 50 * time.Millisecond
	for try := 0; ; try++ {
		select {
		case slots <- struct{}{}:
		case <-r.ctx.Done():
			return nil, 0, r.ctx.Err()
		}
		select {
		case inflight <- struct{}{}:
		case <-r.ctx.Done():
			<-slots
			return nil, 0, r.ctx.Err()
		}
		out, n, err := r.call(dev, tool, args)
		<-inflight
		<-slots
		if !refused(err) || try == probeTries-1 {
			return out, n, err
		}
		select {
		case <-time.After(wait):
		case <-r.ctx.Done():
			return out, n, err
		}
		wait *= 2
	}
}

// probeTries is how many times a probe a device refuses is tried.
const probeTries = 6

// refused tells whether a diagnostic call failed because the device
// would not run it now (too many diagnostics running, or its own time
// limit), not because of what it probed.
// notRun reports whether a probe's error is the device's answer that it
// cannot run it (-32084: no diagnostics through its driver, an option it
// lacks), not a result.
func notRun(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == int64(netproto.CodeConfigIncompatible)
}

func refused(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, diag.ErrBusy.Error()) || errors.Is(err, context.DeadlineExceeded)
}

// now reads the controller's clock (Now, else time.Now).
func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
