package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/netmcp/netmcp/client"
)

// freePorts reserves n distinct TCP ports on 127.0.0.1.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ports
}

// startNATS runs an in-process NATS cluster of n servers with JetStream on
// temporary directories and returns the client URLs once JetStream answers.
func startNATS(t testing.TB, n int) []string {
	t.Helper()
	routePorts := freePorts(t, n)
	var urls []string
	for i := range n {
		var routes []string
		for j, p := range routePorts {
			if j != i {
				routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
			}
		}
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i),
			Host:       "127.0.0.1",
			Port:       -1,
			JetStream:  true,
			StoreDir:   t.TempDir(),
			NoLog:      true,
			NoSigs:     true,
		}
		if n > 1 {
			opts.Cluster = server.ClusterOpts{Name: "netmcp", Host: "127.0.0.1", Port: routePorts[i]}
			opts.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		s, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatalf("nats server %d not ready", i)
		}
		urls = append(urls, s.ClientURL())
	}
	// Wait for the JetStream meta leader.
	nc := connect(t, urls[0])
	js, _ := jetstream.New(nc)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jetstream not ready: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return urls
}

func connect(t testing.TB, url string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// event is a session opened or closed on a replica.
type event struct {
	replica string
	device  string
	open    bool
	at      time.Time
}

// recorder collects the session events of every replica of a test.
type recorder struct {
	mu     sync.Mutex
	events []event
}

func (rc *recorder) add(e event) {
	rc.mu.Lock()
	rc.events = append(rc.events, e)
	rc.mu.Unlock()
}

// overlaps returns, for each device, any moment two replicas had its
// session open at once, by wall clock.
func (rc *recorder) overlaps() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	open := map[string]map[string]bool{}
	var bad []string
	for _, e := range rc.events {
		m := open[e.device]
		if m == nil {
			m = map[string]bool{}
			open[e.device] = m
		}
		if e.open {
			for other := range m {
				if other != e.replica {
					bad = append(bad, fmt.Sprintf("%s opened on %s while open on %s", e.device, e.replica, other))
				}
			}
			m[e.replica] = true
		} else {
			delete(m, e.replica)
		}
	}
	return bad
}

// stubSessions stands in for the supervised MCP sessions: a call answers
// with the device, tool and replica that ran it.
type stubSessions struct {
	name  string
	rec   *recorder
	mu    sync.Mutex
	open  map[string]bool
	calls atomic.Int64
	// released is how many calls answer client.ErrReleased next, as a
	// session closed while its lease changes hands does.
	released atomic.Int32
}

func newStub(name string, rec *recorder) *stubSessions {
	return &stubSessions{name: name, rec: rec, open: map[string]bool{}}
}

func (s *stubSessions) Open(device string) {
	s.mu.Lock()
	s.open[device] = true
	s.mu.Unlock()
	if s.rec != nil {
		s.rec.add(event{replica: s.name, device: device, open: true, at: time.Now()})
	}
}

func (s *stubSessions) Close(device string) {
	s.mu.Lock()
	delete(s.open, device)
	s.mu.Unlock()
	if s.rec != nil {
		s.rec.add(event{replica: s.name, device: device, at: time.Now()})
	}
}

func (s *stubSessions) Call(_ context.Context, device, tool string, args json.RawMessage) (json.RawMessage, error) {
	s.calls.Add(1)
	s.mu.Lock()
	ok := s.open[device]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no session for %s", device)
	}
	if tool == "fail" {
		return nil, fmt.Errorf("tool failed on %s", device)
	}
	if s.released.Add(-1) >= 0 {
		return nil, &client.DeviceError{Device: device, Op: "tools/call " + tool, Err: client.ErrReleased}
	}
	s.released.Store(0)
	return json.Marshal(map[string]any{"device": device, "tool": tool, "replica": s.name, "args": args})
}

func (s *stubSessions) Request(_ context.Context, device, method string, params json.RawMessage) (json.RawMessage, error) {
	s.mu.Lock()
	ok := s.open[device]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no session for %s", device)
	}
	return json.Marshal(map[string]any{"device": device, "method": method, "replica": s.name, "params": params})
}

// proxy forwards TCP to a NATS server and can cut the link without
// closing it, as a network partition does: bytes are read and dropped.
type proxy struct {
	l   net.Listener
	cut atomic.Bool
}

func newProxy(t testing.TB, upstream string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l}
	t.Cleanup(func() { _ = l.Close() })
	addr := strings.TrimPrefix(upstream, "nats://")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", addr)
			if err != nil {
				_ = c.Close()
				continue
			}
			go p.pipe(c, u)
			go p.pipe(u, c)
		}
	}()
	return p
}

func (p *proxy) url() string { return "nats://" + p.l.Addr().String() }

func (p *proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.cut.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
	}
}

// devices names n devices.
func devices(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("dev%05d", i)
	}
	return out
}

// node is one replica of a test with its stub sessions.
type node struct {
	*Replica
	stub *stubSessions
	nc   *nats.Conn
}

// join starts a replica on url.
func join(t testing.TB, url, name string, ttl time.Duration, streamReplicas int, inv []string, rec *recorder) *node {
	t.Helper()
	nc := connect(t, url)
	stub := newStub(name, rec)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Join(ctx, Config{
		Name: name, Conn: nc, LeaseTTL: ttl, StreamReplicas: streamReplicas,
		PolicyDigest: "sha256:test", Sessions: stub,
	}, inv)
	if err != nil {
		t.Fatalf("join %s: %v", name, err)
	}
	t.Cleanup(r.Halt)
	return &node{Replica: r, stub: stub, nc: nc}
}

// waitOwned waits until the nodes serve every device of inv exactly once
// between them and returns how long it took.
func waitOwned(t testing.TB, nodes []*node, inv []string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		dup, missing := ownership(nodes, inv)
		if dup == 0 && missing == 0 {
			return time.Since(start)
		}
		if time.Since(start) > stretch(within) {
			t.Fatalf("after %v: %d devices owned twice, %d not owned", stretch(within), dup, missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ownership counts the devices served by more than one node and by none.
func ownership(nodes []*node, inv []string) (dup, missing int) {
	count := map[string]int{}
	for _, n := range nodes {
		for _, d := range n.Owned() {
			count[d]++
		}
	}
	for _, d := range inv {
		switch c := count[d]; {
		case c == 0:
			missing++
		case c > 1:
			dup++
		}
	}
	return dup, missing
}
