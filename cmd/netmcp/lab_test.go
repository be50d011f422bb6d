package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// runningLabCmd is `netmcp lab up ...` running in this process.
type runningLabCmd struct {
	out, errw *syncBuffer
	done      chan error // receives lab up's result
	cancel    context.CancelFunc
	stopped   bool
}

// startLabUp runs `netmcp lab up ARGS...` until stop (or ctx ends) and
// waits for its first n device lines, which it returns (split in fields).
func startLabUp(ctx context.Context, t *testing.T, n int, within time.Duration, args ...string) (*runningLabCmd, [][]string) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	r := &runningLabCmd{out: &syncBuffer{ch: make(chan struct{}, 1)}, errw: &syncBuffer{ch: make(chan struct{}, 1)}, done: make(chan error, 1), cancel: cancel}
	cmd := newLabCmd()
	cmd.SetOut(r.out)
	cmd.SetErr(r.errw)
	cmd.SetArgs(append([]string{"up"}, args...))
	go func() { r.done <- cmd.ExecuteContext(ctx) }()
	deadline := time.After(within)
	var lines []string
	for len(lines) < n {
		select {
		case <-r.out.ch:
			lines = strings.Split(strings.TrimSpace(r.out.String()), "\n")
		case err := <-r.done:
			r.stopped = true
			t.Fatalf("lab up %v ended early: %v\n%s", args, err, r.errw.String())
		case <-deadline:
			r.stop(t)
			t.Fatalf("lab up %v printed %q\n%s", args, r.out.String(), r.errw.String())
		}
	}
	var fields [][]string
	for _, l := range lines {
		fields = append(fields, strings.Split(l, "\t"))
	}
	return r, fields
}

// stop interrupts lab up and checks it stops cleanly; a second call does
// nothing.
func (r *runningLabCmd) stop(t *testing.T) {
	t.Helper()
	if r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("lab up stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("lab up did not stop after cancel")
	}
}

// TestLabUp runs `netmcp lab up`, checks it prints device, dialect and URL
// for every device, calls network.cli.exec on one of them, and stops it.
func TestLabUp(t *testing.T) {
	ctx := context.Background()
	r, lines := startLabUp(ctx, t, 5, 10*time.Second, "--state-dir", t.TempDir())
	defer r.stop(t)
	want := map[string]string{"r1": "huawei-vrp", "r2": "cisco-iosxr", "r3": "huawei-vrp", "h1": "linux", "h3": "linux"}
	urls := map[string]string{}
	for _, f := range lines {
		if len(f) != 3 || want[f[0]] != f[1] || !strings.HasPrefix(f[2], "http://127.0.0.1:") || !strings.HasSuffix(f[2], "/mcp") {
			t.Fatalf("line %q: want device<TAB>dialect<TAB>http://127.0.0.1:PORT/mcp", f)
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
	r.stop(t)
}
