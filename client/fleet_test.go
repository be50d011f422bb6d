package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
)

// TestConnectAndFanOut connects to every router of the lab in parallel,
// reads each one's capabilities.network and tools, and fans a
// network.yang.get out to all of them.
func TestConnectAndFanOut(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	f, ctx := connectedFleet(t, l)
	topo := map[string]string{}
	for _, d := range l.Topology().Devices {
		topo[d.Name] = d.Dialect
	}
	for _, d := range f.Devices() {
		if st, err := d.State(); st != client.StateConnected {
			t.Fatalf("%s: %s (%v)", d.Name(), st, err)
		}
		nc, ok := d.Network()
		if !ok {
			t.Fatalf("%s: no capabilities.network", d.Name())
		}
		if nc.CLIDialect != topo[d.Name()] || len(nc.YangModules) == 0 || !nc.SupportsRollback {
			t.Errorf("%s: capabilities.network = %+v, want dialect %q, modules and rollback", d.Name(), nc, topo[d.Name()])
		}
		for _, tool := range netproto.NetworkTools {
			if !d.HasTool(tool) {
				t.Errorf("%s: tool %s not listed (tools: %d)", d.Name(), tool, len(d.Tools()))
			}
		}
	}
	results := f.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath})
	if len(results) != len(f.Devices()) {
		t.Fatalf("%d results for %d devices", len(results), len(f.Devices()))
	}
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Device.Name(), r.Err)
		}
		b, _ := json.Marshal(r.Value.StructuredContent)
		if !strings.Contains(string(b), r.Device.Name()) {
			t.Errorf("%s: hostname read %s", r.Device.Name(), b)
		}
	}
}

// TestDeadDeviceReported: a device nobody listens for and one that
// accepts TCP but never answers are each reported with a clear error,
// while the live devices answer, and the fan-out ends within its timeout.
func TestDeadDeviceReported(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	mute, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	var conns []net.Conn
	var cmu sync.Mutex
	go func() {
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			cmu.Lock()
			conns = append(conns, c)
			cmu.Unlock()
		}
	}()
	defer func() {
		cmu.Lock()
		for _, c := range conns {
			c.Close()
		}
		cmu.Unlock()
	}()
	inv := l.Inventory(
		inventory.Device{Name: "dead", URL: "http://" + deadPort(t) + "/mcp"},
		inventory.Device{Name: "mute", URL: "http://" + mute.Addr().String() + "/mcp"},
	)
	const timeout = 3 * time.Second
	f, err := client.New(inv, client.Options{CallTimeout: timeout, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	err = f.Connect(ctx)
	if err == nil || !strings.Contains(err.Error(), "dead: connect:") || !strings.Contains(err.Error(), "mute: connect:") {
		t.Fatalf("Connect error = %v, want the dead and the mute device named", err)
	}
	start := time.Now()
	results := f.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath})
	elapsed := time.Since(start)
	// Not a speed check: the bound is the per-device timeout plus slack,
	// what "never hangs the run" means.
	if elapsed > 3*timeout {
		t.Errorf("fan-out took %v, timeout %v", elapsed, timeout)
	}
	for _, r := range results {
		name := r.Device.Name()
		switch name {
		case "dead":
			if !errors.Is(r.Err, client.ErrNotConnected) || !errors.Is(r.Err, syscall.ECONNREFUSED) || !strings.HasPrefix(r.Err.Error(), "dead: ") {
				t.Errorf("dead: error %v, want not connected: connection refused", r.Err)
			}
		case "mute":
			if !errors.Is(r.Err, client.ErrNotConnected) || !strings.HasPrefix(r.Err.Error(), "mute: tools/call") {
				t.Errorf("mute: error %v, want not connected", r.Err)
			}
		default:
			if r.Err != nil {
				t.Errorf("%s: %v", name, r.Err)
			}
		}
		t.Logf("%s: %v in %v", name, r.Err, r.Elapsed)
	}
}

// TestEachAbandonsHungFunction: a fan-out function that ignores its
// context does not hold the run past the per-device timeout.
func TestEachAbandonsHungFunction(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	f, err := client.New(l.Inventory(), client.Options{CallTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	block := make(chan struct{})
	defer close(block)
	results := f.Each(context.Background(), nil, func(ctx context.Context, d *client.Device) error {
		if d.Name() == "r2" {
			<-block // ignores ctx
			return nil
		}
		if d.Name() == "r3" {
			panic("boom")
		}
		return d.Ping(ctx)
	})
	for _, r := range results {
		switch r.Device.Name() {
		case "r2":
			if !errors.Is(r.Err, context.DeadlineExceeded) || !strings.Contains(r.Err.Error(), "timed out") {
				t.Errorf("r2: %v, want timed out", r.Err)
			}
		case "r3":
			if r.Err == nil || !strings.Contains(r.Err.Error(), "panic: boom") {
				t.Errorf("r3: %v, want the panic", r.Err)
			}
		default:
			if r.Err != nil {
				t.Errorf("%s: %v", r.Device.Name(), r.Err)
			}
		}
	}
}

// TestReconnectAndResubscribe kills a device's server during a run and
// restarts it on the same port: the supervisor notices, reconnects with a
// new session, replays the subscription, and updates flow again; a
// fan-out while it is down reports it and finishes.
func TestReconnectAndResubscribe(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	var ups updates
	var smu sync.Mutex
	var r2States []string
	f, err := client.New(l.Inventory(), client.Options{
		OnState: func(d *client.Device, s client.State, err error) {
			if d.Name() == "r2" {
				smu.Lock()
				r2States = append(r2States, s.String())
				smu.Unlock()
			}
		},
		KeepAlive:      200 * time.Millisecond,
		BackoffInitial: 50 * time.Millisecond,
		BackoffMax:     300 * time.Millisecond,
		CallTimeout:    5 * time.Second,
		OnResourceUpdated: func(d *client.Device, p *mcp.ResourceUpdatedNotificationParams) {
			ups.add(d.Name(), p.URI)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	r2 := f.Device("r2")
	if err := r2.Subscribe(ctx, netproto.URICPU); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "a CPU update before the restart", func() bool { return ups.get("r2", netproto.URICPU) > 0 })

	l.Kill("r2")
	eventually(t, 20*time.Second, "r2 seen down", func() bool { st, _ := r2.State(); return st != client.StateConnected })
	results := f.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath})
	for _, r := range results {
		if r.Device.Name() == "r2" {
			if r.Err == nil || !strings.HasPrefix(r.Err.Error(), "r2: ") {
				t.Errorf("r2 down: error %v", r.Err)
			}
		} else if r.Err != nil {
			t.Errorf("%s: %v", r.Device.Name(), r.Err)
		}
	}

	l.Start("r2")
	eventually(t, 30*time.Second, "r2 reconnected", func() bool {
		st, _ := r2.State()
		return st == client.StateConnected && r2.Sessions() == 2
	})
	if err := r2.SubscriptionError(netproto.URICPU); err != nil {
		t.Fatalf("re-subscription: %v", err)
	}
	before := ups.get("r2", netproto.URICPU)
	eventually(t, 20*time.Second, "a CPU update after the restart", func() bool { return ups.get("r2", netproto.URICPU) > before })
	res, err := r2.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": hostnamePath})
	if err != nil {
		t.Fatalf("call after reconnect: %v", err)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), "r2") {
		t.Errorf("after reconnect: %s", b)
	}
	if got := r2.Subscriptions(); len(got) != 1 || got[0] != netproto.URICPU {
		t.Errorf("subscriptions %v", got)
	}
	smu.Lock()
	defer smu.Unlock()
	if seq := strings.Join(r2States, ","); !strings.HasPrefix(seq, "connecting,connected,down,connecting,") || !strings.HasSuffix(seq, ",connected") {
		t.Errorf("r2 states %s", seq)
	}
}

// TestCorrelationID: every request made under WithCorrelationID carries
// the id in _meta["netmcp/correlationId"], on every device; requests
// without one carry none.
func TestCorrelationID(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	var mu sync.Mutex
	seen := map[string][]string{} // device -> ids of tools/call and resources/read
	for _, name := range l.Routers() {
		l.Server(name).MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" || method == "resources/read" {
					id, _ := req.GetParams().GetMeta()[client.MetaCorrelationID].(string)
					mu.Lock()
					seen[name] = append(seen[name], method+"="+id)
					mu.Unlock()
				}
				return next(ctx, method, req)
			}
		})
	}
	f, err := client.New(l.Inventory(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	id := client.NewCorrelationID()
	cctx := client.WithCorrelationID(ctx, id)
	if err := client.Errors(f.CallAll(cctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Device("r1").ReadResource(cctx, netproto.URIInterfaces); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Device("r1").CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": hostnamePath}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range l.Routers() {
		want := []string{"tools/call=" + id}
		if name == "r1" {
			want = append(want, "resources/read="+id, "tools/call=")
		}
		if fmt.Sprint(seen[name]) != fmt.Sprint(want) {
			t.Errorf("%s: requests %v, want %v", name, seen[name], want)
		}
	}
}

// TestElicitationRelayed: a device's approval request (elicitation) goes
// to the caller's handler with the device; its answer decides the call.
func TestElicitationRelayed(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	var asked atomic.Int32
	var answer atomic.Value
	answer.Store("decline")
	f, err := client.New(l.Inventory(), client.Options{
		Elicit: func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			asked.Add(1)
			if d.Name() != "r1" || !strings.Contains(p.Message, netproto.ToolCLIConfigure) {
				return nil, fmt.Errorf("unexpected elicitation from %s: %q", d.Name(), p.Message)
			}
			if a := answer.Load().(string); a != "accept" {
				return &mcp.ElicitResult{Action: a}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	r1 := f.Device("r1")
	args := map[string]any{"commands": []string{"interface LoopBack9", "description relayed"}}
	_, err = r1.CallTool(ctx, netproto.ToolCLIConfigure, args)
	if err == nil || asked.Load() != 1 {
		t.Fatalf("declined: err %v, asked %d times", err, asked.Load())
	}
	answer.Store("accept")
	if _, err := r1.CallTool(ctx, netproto.ToolCLIConfigure, args); err != nil || asked.Load() != 2 {
		t.Fatalf("accepted: err %v, asked %d times", err, asked.Load())
	}
}

// networkOnlyServer is an MCP server whose initialize result carries
// capabilities.network at the top level only (no netmcp extension), as a
// third-party MCP-NET server would.
func networkOnlyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "other", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.InitializeResult); ok && err == nil {
				return &withNet{r}, nil
			}
			return res, err
		}
	})
	return s
}

type withNet struct{ *mcp.InitializeResult }

func (w *withNet) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(w.InitializeResult)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	caps, _ := m["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
	}
	caps["network"] = map[string]any{"yangModules": []string{"ietf-interfaces"}, "cliDialect": "junos",
		"configDatastore": []string{"running"}, "notificationStream": []string{}, "maxBulkEdit": 7,
		"supportsRollback": false, "rollbackTimeout": 0}
	m["capabilities"] = caps
	return json.Marshal(m)
}

// TestTopLevelNetworkCapability: the top-level capabilities.network,
// which the SDK's typed result drops, is read from the wire over HTTP
// (JSON and SSE responses) and over a message stream.
func TestTopLevelNetworkCapability(t *testing.T) {
	srv := networkOnlyServer()
	for _, tc := range []struct {
		name string
		dev  func(t *testing.T) (inventory.Device, func(context.Context, inventory.Device) (mcp.Transport, error))
	}{
		{"http-sse", func(t *testing.T) (inventory.Device, func(context.Context, inventory.Device) (mcp.Transport, error)) {
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
			t.Cleanup(hs.Close)
			return inventory.Device{Name: "x", URL: hs.URL}, nil
		}},
		{"http-json", func(t *testing.T) (inventory.Device, func(context.Context, inventory.Device) (mcp.Transport, error)) {
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
				&mcp.StreamableHTTPOptions{JSONResponse: true}))
			t.Cleanup(hs.Close)
			return inventory.Device{Name: "x", URL: hs.URL}, nil
		}},
		{"stream", func(t *testing.T) (inventory.Device, func(context.Context, inventory.Device) (mcp.Transport, error)) {
			return inventory.Device{Name: "x", URL: "http://in-memory"}, func(ctx context.Context, _ inventory.Device) (mcp.Transport, error) {
				ct, st := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					return nil, err
				}
				t.Cleanup(func() { ss.Close() })
				return ct, nil
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, dial := tc.dev(t)
			f, err := client.New(&inventory.Inventory{Devices: []inventory.Device{dev}}, client.Options{Dial: dial})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			nc, ok := f.Device("x").Network()
			if !ok || nc.CLIDialect != "junos" || nc.MaxBulkEdit != 7 {
				t.Fatalf("network capability %+v %v, want junos, maxBulkEdit 7", nc, ok)
			}
		})
	}
}

// connectedFleet connects a fleet to every device of l, closed when t
// ends, and returns it with a context bounding the test's calls.
func connectedFleet(t *testing.T, l *labtest.Lab) (*client.Fleet, context.Context) {
	t.Helper()
	f, err := client.New(l.Inventory(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	return f, ctx
}

// TestView: a view holds the devices its filter keeps, calls them over
// the parent's sessions, and closing it ends none of them.
func TestView(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	f, ctx := connectedFleet(t, l)
	v := f.View(func(d *client.Device) bool { return d.Name() != "r3" })
	if v.Device("r3") != nil || v.Device("r1") != f.Device("r1") || len(v.Devices()) != len(f.Devices())-1 {
		t.Fatalf("view holds %d devices (r3: %v), want every device but r3", len(v.Devices()), v.Device("r3"))
	}
	if err := v.Connect(ctx); err != nil {
		t.Fatalf("Connect on a view of a connected fleet: %v", err)
	}
	for _, r := range v.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath}) {
		if r.Err != nil || r.Device.Name() == "r3" {
			t.Fatalf("%s: %v", r.Device.Name(), r.Err)
		}
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := f.Device("r1").State(); st != client.StateConnected {
		t.Fatalf("r1 after the view closed: %s (%v)", st, err)
	}
	if r := f.CallAll(ctx, []*client.Device{f.Device("r1")}, netproto.ToolYangGet, map[string]any{"path": hostnamePath}); r[0].Err != nil {
		t.Fatalf("r1 after the view closed: %v", r[0].Err)
	}
}
