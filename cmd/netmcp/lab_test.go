package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device/sim"
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
	want := map[string]string{"r1": "huawei-vrp", "r2": "cisco-iosxr", "r3": "huawei-vrp"}
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
