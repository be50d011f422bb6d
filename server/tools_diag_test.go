package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/linux" // linux://
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/server/servertest"
	"github.com/netmcp/netmcp/transport"
)

// h3 is the address of host h3 in the default topology.
const h3 = "10.3.0.10"

// Protocol versions the diagnostic tests run with: the newest carries the
// log level in each request's _meta, older ones use logging/setLevel.
const (
	protoNew = "2026-07-28"
	protoOld = "2025-11-25"
)

// observed wraps a driver's Diagnoser: it counts runs and records when
// each one returned.
type observed struct {
	device.Driver
	dg       device.Diagnoser
	calls    atomic.Int32
	returned chan time.Time
}

func observe(drv device.Driver) *observed {
	return &observed{Driver: drv, dg: drv.(device.Diagnoser), returned: make(chan time.Time, 16)}
}

func (o *observed) Diagnose(ctx context.Context, req diag.Request, onLine func(string)) (device.DiagResult, error) {
	o.calls.Add(1)
	res, err := o.dg.Diagnose(ctx, req, onLine)
	o.returned <- time.Now()
	return res, err
}

// newLab returns the default simulated topology.
func newLab(t testing.TB) *sim.Lab {
	t.Helper()
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	return lab
}

// simR1 returns r1 of the default simulated topology.
func simR1(t testing.TB) device.Driver { return labDevice(t, newLab(t), "r1") }

func labDevice(t testing.TB, lab *sim.Lab, name string) device.Driver {
	t.Helper()
	d, err := lab.Device(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// event is a notification the client received.
type event struct {
	kind     string // "log", "progress" or "result"
	logger   string
	data     string
	token    any
	progress float64
	total    float64
}

// diagClient is an MCP client session recording notifications as its
// handlers see them (evs) and messages in the order they came off the
// wire (wire: "log", "progress" or "result").
type diagClient struct {
	cs    *mcp.ClientSession
	proto string // negotiated protocol version
	mu    sync.Mutex
	evs   []event
	wire  []string
}

// tap records the order of incoming messages on a client connection.
type tap struct {
	mcp.Transport
	c *diagClient
}

func (t tap) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	return tapConn{conn, t.c}, err
}

type tapConn struct {
	mcp.Connection
	c *diagClient
}

func (t tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := t.Connection.Read(ctx)
	kind := ""
	switch m := m.(type) {
	case *jsonrpc.Request:
		kind = map[string]string{"notifications/message": "log", "notifications/progress": "progress"}[m.Method]
	case *jsonrpc.Response:
		kind = "result"
	}
	if kind != "" {
		t.c.mu.Lock()
		t.c.wire = append(t.c.wire, kind)
		t.c.mu.Unlock()
	}
	return m, err
}

// reset forgets the events recorded so far.
func (c *diagClient) reset() {
	c.mu.Lock()
	c.evs, c.wire = nil, nil
	c.mu.Unlock()
}

// settle waits until the handlers have seen logs log events and progress
// progress events (they may run after the call returned, and a progress
// notification may follow the last log line) or a second passed.
func (c *diagClient) settle(logs, progress int) []event {
	deadline := time.Now().Add(time.Second)
	for {
		evs := c.events()
		n := map[string]int{}
		for _, e := range evs {
			n[e.kind]++
		}
		if n["log"] >= logs && n["progress"] >= progress || time.Now().After(deadline) {
			return evs
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *diagClient) add(e event) {
	c.mu.Lock()
	c.evs = append(c.evs, e)
	c.mu.Unlock()
}

func (c *diagClient) events() []event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]event(nil), c.evs...)
}

// dial serves drv and connects a client over "memory" or "http" asking
// for protocol version proto (the server may negotiate an older one); the
// client asks for info-level log messages the way the protocol wants.
func dial(t testing.TB, drv device.Driver, opts server.Options, over, proto string) *diagClient {
	t.Helper()
	s, err := server.New(drv, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &diagClient{}
	copts := &mcp.ClientOptions{
		//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			d, _ := r.Params.Data.(string)
			c.add(event{kind: "log", logger: r.Params.Logger, data: d})
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.add(event{kind: "progress", token: r.Params.ProgressToken, progress: r.Params.Progress, total: r.Params.Total, data: r.Params.Message})
		},
	}
	var tr mcp.Transport
	switch over {
	case "memory":
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		tr = ct
	case "http":
		ts := httptest.NewServer(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() }, transport.HTTPOptions{}))
		t.Cleanup(ts.Close)
		tr = &mcp.StreamableClientTransport{Endpoint: ts.URL + transport.Path}
	default:
		t.Fatalf("unknown transport %q", over)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "diag-test", Version: "1"}, copts).Connect(context.Background(), tap{tr, c}, &mcp.ClientSessionOptions{ProtocolVersion: proto})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	c.proto = cs.InitializeResult().ProtocolVersion
	if c.proto != protoNew {
		//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
		if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	c.reset()
	return c
}

// call runs a tool; token, if non-nil, is the progress token. A tool error
// (isError) is returned as an error prefixed "tool error: ".
func (c *diagClient) call(ctx context.Context, name string, args map[string]any, token any) (map[string]any, error) {
	p := &mcp.CallToolParams{Name: name, Arguments: args}
	if c.proto == protoNew {
		//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
		p.Meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
	}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := c.cs.CallTool(ctx, p)
	if err != nil {
		return nil, err
	}
	c.add(event{kind: "result"})
	if res.IsError {
		return nil, errors.New("tool error: " + res.Content[0].(*mcp.TextContent).Text)
	}
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func TestDiagToolsListed(t *testing.T) {
	lab := newLab(t)
	for _, tc := range []struct {
		name      string
		drv       device.Driver
		available bool
	}{
		{"sim", labDevice(t, lab, "r1"), true},
		{"no Diagnoser", servertest.New(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, tc.drv, server.Options{}, "memory", protoNew)
			res, err := c.cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]*mcp.Tool{}
			for _, tl := range res.Tools {
				tools[tl.Name] = tl
			}
			for _, name := range []string{netproto.ToolPing, netproto.ToolTraceroute, netproto.ToolTracepath, netproto.ToolDNSLookup} {
				tl := tools[name]
				if tl == nil {
					t.Fatalf("%s not listed", name)
				}
				if tl.Meta["available"] != tc.available || !tl.Annotations.ReadOnlyHint {
					t.Errorf("%s: _meta %v readOnlyHint %v", name, tl.Meta, tl.Annotations.ReadOnlyHint)
				}
				if !tc.available {
					_, err := c.call(context.Background(), name, map[string]any{"destination": "10.0.0.1"}, nil)
					if rpcCode(err) != netproto.CodeConfigIncompatible {
						t.Errorf("%s on a driver without diagnostics: %v, want -32084", name, err)
					}
				}
			}
			// The troubleshooting draft's ping schema (section 3.2).
			in, _ := json.Marshal(tools["ping"].InputSchema)
			var sch struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			}
			if err := json.Unmarshal(in, &sch); err != nil {
				t.Fatal(err)
			}
			if sch.Properties["count"]["default"] != float64(5) || sch.Properties["count"]["type"] != "integer" ||
				sch.Properties["destination"]["type"] != "string" || sch.Properties["source"]["type"] != "string" ||
				len(sch.Required) != 1 || sch.Required[0] != "destination" {
				t.Errorf("ping inputSchema %s", in)
			}
			out, _ := json.Marshal(tools["ping"].OutputSchema)
			for _, k := range []string{`"loss"`, `"rtt"`, `"result"`, `"packet_loss_percent"`} {
				if !strings.Contains(string(out), k) {
					t.Errorf("ping outputSchema lacks %s: %s", k, out)
				}
			}
		})
	}
}

func TestPingFollowsTheModel(t *testing.T) {
	lab := newLab(t)
	c := dial(t, labDevice(t, lab, "r1"), server.Options{}, "memory", protoNew)
	ctx := context.Background()
	args := map[string]any{"destination": h3, "count": 3, "intervalMs": 200}

	got, err := c.call(ctx, "ping", args, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The model: r1 -> r2 -> r3 -> h3, one-way delays 1.5 + 2.5 + 0.2 ms.
	rtt := got["rtt"].(map[string]any)
	res := got["result"].(map[string]any)
	if got["loss"] != float64(0) || res["packets_received"] != float64(3) || res["destination_ip"] != h3 {
		t.Fatalf("ping r1 -> h3: %v", got)
	}
	if min, avg, max := rtt["min"].(float64), rtt["avg"].(float64), rtt["max"].(float64); min < 8 || max > 12 || min > avg || avg > max {
		t.Fatalf("rtt %v, want about 2 x 4.2 ms plus processing", rtt)
	}

	if err := lab.InjectFault(topology.Fault{Kind: topology.FaultLinkDown, Link: "r3:GigabitEthernet0/0/1"}); err != nil {
		t.Fatal(err)
	}
	got, err = c.call(ctx, "ping", args, nil)
	if err != nil {
		t.Fatal(err)
	}
	rtt = got["rtt"].(map[string]any)
	if got["loss"] != float64(100) || rtt["min"] != nil || rtt["avg"] != nil || rtt["max"] != nil {
		t.Fatalf("ping after link-down r3-h3: %v", got)
	}

	// The draft's defaults: count 5 when omitted.
	lab.ClearFaults()
	got, err = c.call(ctx, "ping", map[string]any{"destination": h3, "intervalMs": 200}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["result"].(map[string]any)["packets_transmitted"] != float64(5) {
		t.Fatalf("default count: %v", got["result"])
	}
}

func TestTraceFollowsTheModel(t *testing.T) {
	lab := newLab(t)
	c := dial(t, labDevice(t, lab, "r1"), server.Options{}, "memory", protoNew)
	ctx := context.Background()
	model, err := lab.Network().Traceroute(netsim.ProbeRequest{From: "r1", Destination: netip.MustParseAddr(h3), Protocol: "udp", MaxHops: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(model.Hops) != 3 || !model.Reached {
		t.Fatalf("model: r1 -> r2 -> r3 -> h3 is 3 hops, got %d (reached %v)", len(model.Hops), model.Reached)
	}

	got, err := c.call(ctx, "traceroute", map[string]any{"destination": h3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hops := got["hops"].([]any)
	if len(hops) != len(model.Hops) || got["destination_ip"] != h3 {
		t.Fatalf("traceroute r1 -> h3: %d hops, want %d: %v", len(hops), len(model.Hops), got)
	}
	last := hops[len(hops)-1].(map[string]any)["probes"].([]any)[0].(map[string]any)
	if last["ip"] != h3 {
		t.Fatalf("last hop %v, want %s", last, h3)
	}

	got, err = c.call(ctx, "tracepath", map[string]any{"destination": h3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["pmtu"] != float64(model.PMTU) || got["forward_hops"] != float64(len(model.Hops)) {
		t.Fatalf("tracepath r1 -> h3: pmtu %v forward_hops %v, want %d and %d", got["pmtu"], got["forward_hops"], model.PMTU, len(model.Hops))
	}
}

func TestDNSLookup(t *testing.T) {
	lab := newLab(t)
	c := dial(t, labDevice(t, lab, "r1"), server.Options{}, "memory", protoNew)
	got, err := c.call(context.Background(), "dns_lookup", map[string]any{"destination": "r3.lab.example"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	qs := got["result"].([]any)
	q := qs[0].(map[string]any)
	ans := q["answer"].([]any)[0].(map[string]any)
	// r3's name resolves to its router ID (the model's DNS rule).
	if q["status"] != "NOERROR" || ans["data"] != "10.255.0.3" || ans["type"] != "A" {
		t.Fatalf("dns_lookup r3.lab.example: %v", q)
	}
	got, err = c.call(context.Background(), "dns_lookup", map[string]any{"destination": "nonexistent.lab.example", "queryType": "AAAA"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := got["result"].([]any)[0].(map[string]any)["status"]; s != "NXDOMAIN" {
		t.Fatalf("status %v, want NXDOMAIN", s)
	}
}

// TestStreaming checks, in memory and over Streamable HTTP and with both
// ways of setting the log level, that every output line comes as a
// notifications/message, and progress with the request's token, all
// before the result on the wire.
func TestStreaming(t *testing.T) {
	for _, over := range []string{"memory", "http"} {
		for _, proto := range []string{protoNew, protoOld} {
			t.Run(over+"/"+proto, func(t *testing.T) {
				lab := newLab(t)
				c := dial(t, labDevice(t, lab, "r1"), server.Options{}, over, proto)
				t.Logf("negotiated %s", c.proto)
				ctx := context.Background()
				if _, err := c.call(ctx, "ping", map[string]any{"destination": h3, "count": 4, "intervalMs": 200}, "tok-ping"); err != nil {
					t.Fatal(err)
				}
				// iputils: header, 4 replies, blank, 3 statistics lines; 4 probes.
				checkWire(t, c, 9, 4)
				var lines []string
				var progress []float64
				for _, e := range c.settle(9, 4) {
					switch e.kind {
					case "log":
						if e.logger != "ping" {
							t.Errorf("logger %q", e.logger)
						}
						lines = append(lines, e.data)
					case "progress":
						if e.token != "tok-ping" || e.total != 4 {
							t.Errorf("progress %+v", e)
						}
						progress = append(progress, e.progress)
					}
				}
				if len(lines) != 9 || !strings.HasPrefix(lines[0], "PING "+h3) || !strings.Contains(lines[1], "icmp_seq=1") ||
					!strings.HasPrefix(lines[8], "rtt min/avg/max") {
					t.Fatalf("lines %q", lines)
				}
				if want := []float64{1, 2, 3, 4}; !equalFloats(progress, want) {
					t.Fatalf("progress %v, want %v", progress, want)
				}

				c.reset()
				if _, err := c.call(ctx, "traceroute", map[string]any{"destination": h3, "maxHops": 10}, 7); err != nil {
					t.Fatal(err)
				}
				checkWire(t, c, 4, 3) // header and 3 hops
				progress = nil
				for _, e := range c.settle(4, 3) {
					if e.kind == "progress" {
						if e.total != 10 {
							t.Errorf("traceroute progress total %v, want maxHops 10", e.total)
						}
						progress = append(progress, e.progress)
					}
				}
				if !equalFloats(progress, []float64{1, 2, 3}) {
					t.Fatalf("traceroute progress %v", progress)
				}
			})
		}
	}
}

// checkWire checks that the client read logs log and progress progress
// notifications, then the result, in that order.
func checkWire(t *testing.T, c *diagClient, logs, progress int) {
	t.Helper()
	c.mu.Lock()
	wire := append([]string(nil), c.wire...)
	c.mu.Unlock()
	n := map[string]int{}
	for i, k := range wire {
		n[k]++
		if k == "result" && i != len(wire)-1 {
			t.Fatalf("wire order %v: messages after the result", wire)
		}
	}
	if n["log"] != logs || n["progress"] != progress || n["result"] != 1 {
		t.Fatalf("wire %v: want %d log, %d progress, then the result", wire, logs, progress)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCancel cancels a long ping from the client (notifications/cancelled)
// and checks that the driver stops within a second.
func TestCancel(t *testing.T) {
	for _, over := range []string{"memory", "http"} {
		t.Run(over, func(t *testing.T) {
			// A realtime lab: its ping paces one request per interval, so
			// the call is still running when it is cancelled (a default lab
			// answers at once, and the cancel would race the result).
			lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1, Realtime: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { lab.Close() })
			obs := observe(labDevice(t, lab, "r1"))
			c := dial(t, obs, server.Options{}, over, protoNew)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := c.call(ctx, "ping", map[string]any{"destination": h3, "count": 100, "intervalMs": 500}, "tok")
				done <- err
			}()
			// Wait for the second reply line: the run is well under way.
			deadline := time.Now().Add(5 * time.Second)
			for {
				n := 0
				for _, e := range c.events() {
					if e.kind == "log" {
						n++
					}
				}
				if n >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no lines within 5 s")
				}
				time.Sleep(10 * time.Millisecond)
			}
			t0 := time.Now()
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("call error %v, want context.Canceled", err)
			}
			select {
			case end := <-obs.returned:
				if d := end.Sub(t0); d > time.Second {
					t.Fatalf("driver stopped %s after the cancel", d)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("driver still running 2 s after the cancel")
			}
			// The session's slot is free again: a new call runs.
			if _, err := c.call(context.Background(), "ping", map[string]any{"destination": h3, "count": 1}, nil); err != nil {
				t.Fatalf("after cancel: %v", err)
			}
		})
	}
}

func TestInjectionRefused(t *testing.T) {
	lab := newLab(t)
	obs := observe(labDevice(t, lab, "r1"))
	c := dial(t, obs, server.Options{}, "memory", protoNew)
	tests := []struct {
		tool string
		args map[string]any
		want string // in the error message
	}{
		{"ping", map[string]any{"destination": "10.3.0.10; rm -rf /"}, "destination"},
		{"ping", map[string]any{"destination": "$(reboot)"}, "destination"},
		{"ping", map[string]any{"destination": "`id`"}, "destination"},
		{"ping", map[string]any{"destination": "-f"}, "starts with '-'"},
		{"ping", map[string]any{"destination": "--help"}, "starts with '-'"},
		{"ping", map[string]any{"destination": "a\nb"}, "destination"},
		{"ping", map[string]any{"destination": "10.3.0.10", "source": "-I eth0"}, "source"},
		{"ping", map[string]any{"destination": "10.3.0.10", "source": "lo;id"}, "source"},
		{"ping", map[string]any{"destination": "10.3.0.10", "count": 100000}, "count"},
		{"ping", map[string]any{"destination": "10.3.0.10", "extra": "x"}, "extra"},
		{"traceroute", map[string]any{"destination": "h3|nc -e sh 1.2.3.4"}, "destination"},
		{"tracepath", map[string]any{"destination": "host..example"}, "label"},
		{"dns_lookup", map[string]any{"destination": "example.com", "server": "8.8.8.8 -p 53"}, "server"},
		{"dns_lookup", map[string]any{"destination": "example.com", "queryType": "ANY;ls"}, "queryType"},
		{"dns_lookup", map[string]any{"destination": "-x"}, "starts with '-'"},
	}
	for _, tc := range tests {
		_, err := c.call(context.Background(), tc.tool, tc.args, nil)
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want -32602 mentioning %q", tc.tool, tc.args, err, tc.want)
		}
	}
	if n := obs.calls.Load(); n != 0 {
		t.Fatalf("%d diagnostics ran; refused requests must run nothing", n)
	}
}

func TestConcurrencyLimits(t *testing.T) {
	// A realtime lab: its long ping runs until cancelled.
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1, Realtime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	r1 := observe(labDevice(t, lab, "r1"))
	opts := server.Options{DiagLimiter: diag.NewLimiter(2, 1)}
	s, err := server.New(r1, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	connect := func() *mcp.ClientSession {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a, b, z := connect(), connect(), connect()
	long := map[string]any{"destination": h3, "count": 100, "intervalMs": 500}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var cancelled atomic.Bool
	start := func(cs *mcp.ClientSession) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping", Arguments: long})
			if !cancelled.Load() {
				t.Errorf("the long ping ended before the cancel: %v %+v", err, res)
			}
		}()
	}
	short := &mcp.CallToolParams{Name: "ping", Arguments: map[string]any{"destination": h3, "count": 1}}
	refused := func(cs *mcp.ClientSession, want string) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), short)
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, want) || !strings.Contains(text, "retry") {
			t.Fatalf("want a refusal mentioning %q and what to do, got %s", want, text)
		}
	}
	running := func(n int32) { // wait until n runs reached the driver
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); r1.calls.Load() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d runs reached the driver, want %d", r1.calls.Load(), n)
			}
		}
	}
	start(a)
	running(1)
	refused(a, "per-caller limit") // a runs one: its limit is 1
	if res, err := z.CallTool(context.Background(), short); err != nil || res.IsError {
		t.Fatalf("another session while 1 of 2 runs: %v %v", err, res)
	}
	start(b)
	running(3)
	refused(z, "overall limit") // a and b fill the server
	cancelled.Store(true)
	cancel()
	wg.Wait()
	// The server frees the slots once the cancelled runs have stopped.
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		res, err := z.CallTool(context.Background(), short)
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slots not freed 1 s after the cancel: %v %v", err, res)
		}
	}
}

// TestToolFailure checks that a run that cannot produce a result is a tool
// error quoting the device's output.
func TestToolFailure(t *testing.T) {
	lab := newLab(t)
	c := dial(t, labDevice(t, lab, "r1"), server.Options{}, "memory", protoNew)
	_, err := c.call(context.Background(), "ping", map[string]any{"destination": "nosuchhost.invalid", "count": 1}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "tool error: ") || !strings.Contains(err.Error(), "Name or service not known") {
		t.Fatalf("unknown host: %v", err)
	}
}

// recordApprover asks for every tool and records what it was shown.
type recordApprover struct {
	mu     sync.Mutex
	reqs   []server.ApprovalRequest
	refuse bool
}

func (g *recordApprover) Needs(string, bool) bool { return true }

func (g *recordApprover) Approve(_ context.Context, req server.ApprovalRequest) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reqs = append(g.reqs, req)
	if g.refuse {
		return netproto.Errorf(netproto.CodeAccessDenied, "the operator declined")
	}
	return nil
}

// TestDiagApproval: diagnostics pass the same gate as writes, marked
// read-only; by default they run without asking, a policy asking for every
// tool stops them until approved.
func TestDiagApproval(t *testing.T) {
	lab := newLab(t)
	args := map[string]any{"destination": h3, "count": 1}

	// The gate sees a read-only call and can refuse it; nothing runs.
	g := &recordApprover{refuse: true}
	obs := observe(labDevice(t, lab, "r1"))
	c := dial(t, obs, server.Options{Approver: g}, "memory", protoOld)
	if _, err := c.call(context.Background(), "ping", args, nil); rpcCode(err) != netproto.CodeAccessDenied {
		t.Fatalf("refused by the gate: %v, want -32083", err)
	}
	if len(g.reqs) != 1 || g.reqs[0].Tool != "ping" || g.reqs[0].Write || obs.calls.Load() != 0 {
		t.Fatalf("gate saw %+v; driver ran %d times", g.reqs, obs.calls.Load())
	}
	g.refuse = false
	if _, err := c.call(context.Background(), "ping", args, nil); err != nil || obs.calls.Load() != 1 {
		t.Fatalf("approved: %v, ran %d", err, obs.calls.Load())
	}

	// The real gate: default policy (writes only) never asks for ping;
	// "default: always" asks the operator through elicitation.
	for _, tc := range []struct {
		mode   approval.Mode
		answer string // the operator's elicitation action, "" = never asked
		ran    bool
	}{
		{"", "", true},
		{approval.Always, "accept", true},
		{approval.Always, "decline", false},
	} {
		var asked atomic.Int32
		obs := observe(labDevice(t, lab, "r1"))
		gate := server.NewMCPApprover(approval.New(approval.Options{Default: tc.mode}), nil)
		s, err := server.New(obs, server.Options{Approver: gate})
		if err != nil {
			t.Fatal(err)
		}
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.MCP().Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				if !strings.Contains(r.Params.Message, "ping") {
					t.Errorf("elicitation message %q does not name the tool", r.Params.Message)
				}
				return &mcp.ElicitResult{Action: tc.answer, Content: map[string]any{"approve": tc.answer == "accept"}}, nil
			},
		}).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: protoOld})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ping", Arguments: args})
		ran := err == nil && !res.IsError
		if ran != tc.ran || obs.calls.Load() != map[bool]int32{true: 1, false: 0}[tc.ran] || (asked.Load() > 0) != (tc.answer != "") {
			t.Errorf("mode %q answer %q: ran %v (err %v), driver calls %d, asked %d", tc.mode, tc.answer, ran, err, obs.calls.Load(), asked.Load())
		}
		cs.Close()
		s.Close()
	}
}

// TestLinuxNamespaceOverMCP runs the real ping and traceroute in a network
// namespace through linux://NETNS and MCP, streamed.
func TestLinuxNamespaceOverMCP(t *testing.T) {
	ns := newNetns(t)
	drv, err := device.Open(context.Background(), "linux://"+ns, device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, drv, server.Options{}, "http", protoOld)
	got, err := c.call(context.Background(), "ping", map[string]any{"destination": "198.51.100.2", "count": 2, "intervalMs": 200}, "p")
	if err != nil {
		t.Fatal(err)
	}
	res := got["result"].(map[string]any)
	if got["loss"] != float64(0) || res["packets_received"] != float64(2) || got["rtt"].(map[string]any)["avg"] == nil {
		t.Fatalf("real ping in %s: %v", ns, got)
	}
	checkWire(t, c, 7, 2) // header, 2 replies, blank, 3 statistics lines; 2 probes
	got, err = c.call(context.Background(), "ping", map[string]any{"destination": "192.0.2.1", "count": 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "Network is unreachable") {
		t.Fatalf("no route in %s: %v %v", ns, got, err)
	}
	if _, err := exec.LookPath("traceroute"); err == nil {
		got, err := c.call(context.Background(), "traceroute", map[string]any{"destination": "198.51.100.2", "maxHops": 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		hops := got["hops"].([]any)
		if len(hops) != 1 || hops[0].(map[string]any)["probes"].([]any)[0].(map[string]any)["ip"] != "198.51.100.2" {
			t.Fatalf("real traceroute: %v", got)
		}
	}
	// Exec maps fixed names; Get is -32084.
	ex, err := c.call(context.Background(), netproto.ToolCLIExec, map[string]any{"cmd": "ip -j addr"}, nil)
	if err != nil || !strings.Contains(ex["stdout"].(string), "198.51.100.1") {
		t.Fatalf("network.cli.exec ip -j addr: %v %v", err, ex)
	}
}

// newNetns creates a namespace with a veth to a peer namespace,
// 198.51.100.1/30 — 198.51.100.2/30, and returns the first one's name.
func newNetns(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces (run the tests as root, as CI does)")
	}
	if _, err := exec.LookPath("ping"); err != nil {
		t.Skip("needs ping (apt-get install iputils-ping)")
	}
	a, b := fmt.Sprintf("sda%d", os.Getpid()), fmt.Sprintf("sdb%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", a).CombinedOutput(); err != nil {
		t.Skipf("ip netns add failed (no namespace support?): %v: %s", err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "del", a).Run()
		_ = exec.Command("ip", "netns", "del", b).Run()
	})
	for _, args := range [][]string{
		{"netns", "add", b},
		{"link", "add", "va", "netns", a, "type", "veth", "peer", "name", "vb", "netns", b},
		{"-n", a, "addr", "add", "198.51.100.1/30", "dev", "va"},
		{"-n", b, "addr", "add", "198.51.100.2/30", "dev", "vb"},
		{"-n", a, "link", "set", "va", "up"}, {"-n", b, "link", "set", "vb", "up"},
		{"-n", a, "link", "set", "lo", "up"}, {"-n", b, "link", "set", "lo", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return a
}

// The troubleshooting draft's ping: destination required, count default 5.
func ExampleDiagInputSchema() {
	sch := server.DiagInputSchema("ping")
	props := sch["properties"].(map[string]any)
	fmt.Println(sch["required"], props["count"].(map[string]any)["default"], props["source"].(map[string]any)["type"])
	// Output: [destination] 5 string
}
