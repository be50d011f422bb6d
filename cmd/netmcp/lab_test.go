package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/lab/sim"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	ch  chan struct{}
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	b.mu.Unlock()
	select {
	case b.ch <- struct{}{}:
	default:
	}
	return n, err
}

// TestLabUp runs `netmcp lab up`, checks it prints device, dialect and URL
// for every router, calls network.cli.exec on one of them, and stops it.
func TestLabUp(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{ch: make(chan struct{}, 1)}
	cmd := newLabCmd()
	cmd.SetOut(out)
	done := make(chan error, 1)
	go func() {
		done <- runLab(ctx, sim.DefaultTopology(), sim.LabOptions{}, labRunOptions{}, cmd)
	}()

	deadline := time.After(10 * time.Second)
	var lines []string
	for len(lines) < 3 {
		select {
		case <-out.ch:
			lines = strings.Split(strings.TrimSpace(out.String()), "\n")
		case err := <-done:
			t.Fatalf("lab up ended early: %v", err)
		case <-deadline:
			t.Fatalf("lab up printed %q", out.String())
		}
	}
	want := map[string]string{"r1": "huawei-vrp", "r2": "cisco-iosxr", "r3": "huawei-vrp", "h1": "linux", "h3": "linux"}
	urls := map[string]string{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 || want[f[0]] != f[1] || !strings.HasPrefix(f[2], "http://127.0.0.1:") || !strings.HasSuffix(f[2], "/mcp") {
			t.Fatalf("line %q: want device<TAB>dialect<TAB>http://127.0.0.1:PORT/mcp", l)
		}
		urls[f[0]] = f[2]
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "lab-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls["r2"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show version"}})
	if err != nil || res.IsError {
		t.Fatalf("cli.exec on r2: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(strings.ToLower(text), "ios xr") && !strings.Contains(text, "r2") {
		t.Fatalf("show version on r2 says %q", text)
	}
	cs.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("lab up stopped with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lab up did not stop after cancel")
	}
}

// TestLabUpGrid1024 serves a 32x32 grid of routers as `lab up --grid 32x32`
// does, each its own MCP server over HTTP, and pings across the grid's
// diameter (r1 to r1024, 62 hops) through r1's MCP server: with ping's
// default TTL of 64 it arrives; with ttl 30 it expires on the way. Only the
// routers asked are built an MCP server.
func TestLabUpGrid1024(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	topo, err := labTopology("", 0, "32x32", false)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := startLab(ctx, topo, sim.LabOptions{}, 0, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := rl.stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	if n := len(rl.urls); n != 1024 {
		t.Fatalf("%d routers served, want 1024", n)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "lab-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rl.urls["r1"]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tc := range []struct {
		args     map[string]any
		received float64
	}{
		{map[string]any{"destination": sim.GeneratedLoopback(1024), "count": 1, "intervalMs": 200}, 1},
		{map[string]any{"destination": sim.GeneratedLoopback(1024), "count": 1, "intervalMs": 200, "ttl": 30}, 0},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ping", Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("ping %v: %v %+v", tc.args, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var got struct {
			Result struct {
				Received float64 `json:"packets_received"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &got); err != nil || got.Result.Received != tc.received {
			t.Fatalf("ping %v: received %v, want %v: %s", tc.args, got.Result.Received, tc.received, b)
		}
	}
	built := 0
	for _, d := range rl.devs {
		if d.built() {
			built++
		}
	}
	if built != 1 {
		t.Errorf("%d MCP servers built, want 1 (r1's)", built)
	}
}

// TestLabTopologyFlags checks --topology, --chain and --grid.
func TestLabTopologyFlags(t *testing.T) {
	for _, tc := range []struct {
		file     string
		chain    int
		grid     string
		chainSet bool
		routers  int
		links    int
		err      string
	}{
		{routers: 5, links: 4}, // the built-in lab: r1-r3, h1, h3
		{chain: 50, chainSet: true, routers: 50, links: 49},
		{grid: "32x32", routers: 1024, links: 2 * 32 * 31},
		{grid: "3X4", routers: 12, links: 17},
		{chain: 0, chainSet: true, err: "chain of 0 routers"},
		{grid: "32", err: "want ROWSxCOLS"},
		{grid: "0x5", err: "want ROWSxCOLS"},
		{grid: "200x200", err: "at most 10000 routers"},
		{chain: 3, chainSet: true, grid: "2x2", err: "exclusive"},
		{file: "x.yaml", grid: "2x2", err: "exclusive"},
	} {
		topo, err := labTopology(tc.file, tc.chain, tc.grid, tc.chainSet)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: err %v, want %q", tc, err, tc.err)
			}
			continue
		}
		if err != nil || len(topo.Devices) != tc.routers || len(topo.Links) != tc.links {
			t.Errorf("%+v: %d devices, %d links, %v", tc, len(topo.Devices), len(topo.Links), err)
		}
	}
}
