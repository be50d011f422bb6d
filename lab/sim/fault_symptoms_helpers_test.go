package sim_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// symClock is the lab's settable clock: the symptoms of timed faults
// (link_flap) and of timers (BGP hold time) follow it, not wall time.
type symClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *symClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *symClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// opsLab is the default lab as an operator reaches it: one real MCP
// session (server package over in-memory transports) per device, routers
// and hosts alike, opened on first use.
type opsLab struct {
	t     *testing.T
	lab   *sim.Lab
	clock *symClock
	sess  map[string]*mcp.ClientSession
}

// newOpsLab starts the default lab on a fixed clock (a multiple of 10 s,
// so a link_flap starts in its down phase) and seed.
func newOpsLab(t *testing.T) *opsLab {
	t.Helper()
	clk := &symClock{t: time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC)}
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 7, Now: clk.Now, TelemetryInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	return &opsLab{t: t, lab: lab, clock: clk, sess: map[string]*mcp.ClientSession{}}
}

// session returns the MCP session to a device of the lab.
func (o *opsLab) session(name string) *mcp.ClientSession {
	o.t.Helper()
	if cs := o.sess[name]; cs != nil {
		return cs
	}
	var drv device.Driver
	if d, err := o.lab.Device(name); err == nil {
		drv = d
	} else if h, herr := o.lab.Host(name); herr == nil {
		drv = h
	} else {
		o.t.Fatalf("no device %s: %v", name, err)
	}
	s, err := server.New(drv, server.Options{})
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() { s.Close() })
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
		o.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fault-symptoms", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() { cs.Close() })
	o.sess[name] = cs
	return cs
}

// call runs a tool on a device and returns its text, its structured
// content (as JSON) and whether it was a tool error.
func (o *opsLab) call(dev, tool string, args map[string]any) (text string, structured json.RawMessage, isErr bool) {
	o.t.Helper()
	res, err := o.session(dev).CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		// A device error reaches the client as a JSON-RPC error.
		return err.Error(), nil, true
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		structured, _ = json.Marshal(res.StructuredContent)
	}
	return text, structured, res.IsError
}

// mustCall is call that fails the test on a tool error.
func (o *opsLab) mustCall(dev, tool string, args map[string]any) (string, json.RawMessage) {
	o.t.Helper()
	text, st, isErr := o.call(dev, tool, args)
	if isErr {
		o.t.Fatalf("%s %s %v: tool error: %s", dev, tool, args, text)
	}
	return text, st
}

// cli runs a show command (network.cli.exec) and returns its stdout.
func (o *opsLab) cli(dev, cmd string) string {
	o.t.Helper()
	_, st := o.mustCall(dev, netproto.ToolCLIExec, map[string]any{"cmd": cmd})
	var out struct {
		Stdout string `json:"stdout"`
	}
	if err := json.Unmarshal(st, &out); err != nil {
		o.t.Fatalf("%s %q: %v", dev, cmd, err)
	}
	return out.Stdout
}

// yang reads a path of the operational datastore (network.yang.get) and
// returns the data as compact JSON.
func (o *opsLab) yang(dev, path string) string {
	o.t.Helper()
	text, st, isErr := o.call(dev, netproto.ToolYangGet, map[string]any{"path": path, "datastore": "operational"})
	if isErr {
		return "ERROR " + text
	}
	var out struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(st, &out); err != nil {
		o.t.Fatalf("%s yang %s: %v", dev, path, err)
	}
	return string(out.Data)
}

// pingResult is the part of ping's structured result the rows check.
type pingResult struct {
	Loss float64 `json:"loss"`
	Text string  `json:"-"`
	Err  bool    `json:"-"`
}

// ping runs the ping tool (count 5) and returns its loss and text; a
// tool error (no route, an unreachable device) is Err with loss 100.
func (o *opsLab) ping(dev string, args map[string]any) pingResult {
	o.t.Helper()
	if _, ok := args["count"]; !ok {
		args["count"] = 5
	}
	text, st, isErr := o.call(dev, netproto.ToolPing, args)
	r := pingResult{Loss: 100, Text: text, Err: isErr}
	if !isErr {
		if err := json.Unmarshal(st, &r); err != nil {
			o.t.Fatalf("ping %v: %v", args, err)
		}
	}
	return r
}

// traceroute runs the traceroute tool and returns its text.
func (o *opsLab) traceroute(dev string, args map[string]any) string {
	o.t.Helper()
	text, _, _ := o.call(dev, netproto.ToolTraceroute, args)
	return text
}

// captured is the capture tool's structured result.
type captured struct {
	Count   int                     `json:"count"`
	Packets []device.CapturedPacket `json:"packets"`
	Summary string                  `json:"summary"`
}

// capture runs the capture tool with a filter (pcap omitted).
func (o *opsLab) capture(dev string, filter map[string]any) captured {
	o.t.Helper()
	filter["pcap"] = false
	_, st := o.mustCall(dev, netproto.ToolCapture, filter)
	var c captured
	if err := json.Unmarshal(st, &c); err != nil {
		o.t.Fatalf("capture %v: %v", filter, err)
	}
	return c
}

// syslog reads the device's last 200 syslog lines (the MCP-NET resource).
func (o *opsLab) syslog(dev string) string {
	o.t.Helper()
	res, err := o.session(dev).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "network:///log/syslog/last200"})
	if err != nil {
		o.t.Fatalf("%s syslog: %v", dev, err)
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return b.String()
}
