package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	srvpkg "github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// The scale benchmark runs its parts in child processes: the test binary
// started again with scaleRoleEnv set serves simulated devices, runs the
// NATS server, or runs a controller replica, instead of the tests.
const (
	scaleRoleEnv = "NETMCP_CLUSTER_SCALE_ROLE" // "devices FIRST COUNT", "nats SERVERS", "replica NAME NATSURL INVENTORY TTL STREAMREPLICAS"
	// scaleDevicesEnv sizes BenchmarkScale (default 10,000).
	scaleDevicesEnv = "NETMCP_SCALE_DEVICES"
	// scaleTTLEnv sets BenchmarkScale's lease TTL (default
	// DefaultLeaseTTL): the renewal rate is 4 × devices / TTL writes/s.
	scaleTTLEnv = "NETMCP_SCALE_TTL"
	// scaleReplicasEnv runs BenchmarkScale with this many replicas only
	// (default: 1, then 3).
	scaleReplicasEnv = "NETMCP_SCALE_REPLICAS"
	// scaleServersEnv is the number of NATS servers (default 3: a
	// cluster, the buckets replicated on all three; 1: one server).
	scaleServersEnv = "NETMCP_SCALE_SERVERS"
	// scalePerChild is the number of simulated devices one child process
	// serves.
	scalePerChild = 1000
)

func TestMain(m *testing.M) {
	if role := os.Getenv(scaleRoleEnv); role != "" {
		if err := runScaleRole(strings.Fields(role)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runScaleRole(args []string) error {
	switch {
	case len(args) == 3 && args[0] == "devices":
		first, err1 := strconv.Atoi(args[1])
		count, err2 := strconv.Atoi(args[2])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("devices: bad range %v", args[1:])
		}
		return serveScaleDevices(first, count)
	case len(args) == 2 && args[0] == "nats":
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return fmt.Errorf("nats: bad number of servers %q", args[1])
		}
		return serveScaleNATS(n)
	case len(args) == 6 && args[0] == "replica":
		ttl, err := time.ParseDuration(args[4])
		if err != nil {
			return err
		}
		streamReplicas, err := strconv.Atoi(args[5])
		if err != nil {
			return err
		}
		return serveScaleReplica(args[1], args[2], args[3], ttl, streamReplicas)
	}
	return fmt.Errorf("unknown role %q", args)
}

// scaleName names device i of the benchmark.
func scaleName(i int) string { return fmt.Sprintf("d%05d", i) }

// serveScaleDevices serves simulated routers first..first+count-1, each
// its own MCP server, over Streamable HTTP on one loopback port (path
// /NAME/mcp), prints "ADDR host:port" and serves until its standard input
// closes. The servers offer no standalone GET stream (405): a device
// session is then one HTTP connection, not two, so that 10,000 sessions
// fit in one process's 20,000 file descriptors here.
func serveScaleDevices(first, count int) error {
	topo := topology.Topology{Name: "scale"}
	for i := first; i < first+count; i++ {
		topo.Devices = append(topo.Devices, topology.Device{
			Name: scaleName(i), Kind: topology.KindRouter, Dialect: "huawei-vrp",
			Interfaces: []topology.Interface{{Name: "LoopBack0", Type: "softwareLoopback",
				Addresses: []string{fmt.Sprintf("10.%d.%d.1/32", i/256, i%256)}}},
		})
	}
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		return err
	}
	defer lab.Close()
	mux := http.NewServeMux()
	for _, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err != nil {
			return err
		}
		srv, err := srvpkg.New(drv, srvpkg.Options{})
		if err != nil {
			return err
		}
		h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{})
		mux.Handle("/"+name+"/", http.StripPrefix("/"+name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
				return
			}
			h.ServeHTTP(w, r)
		})))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = http.Serve(ln, mux) }()
	fmt.Printf("ADDR %s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// serveScaleNATS runs n NATS servers with JetStream and monitoring, as
// one cluster when n > 1, prints "URL nats://...,... MON http://...,..."
// (one of each per server) once JetStream answers, and serves until its
// standard input closes.
func serveScaleNATS(n int) error {
	dir, err := os.MkdirTemp("", "netmcp-scale-nats-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var routePorts []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		routePorts = append(routePorts, l.Addr().(*net.TCPAddr).Port)
		_ = l.Close()
	}
	var opts []*server.Options
	for i := range n {
		o := &server.Options{ServerName: fmt.Sprintf("n%d", i), Host: "127.0.0.1", Port: -1,
			HTTPHost: "127.0.0.1", HTTPPort: -1, JetStream: true, StoreDir: filepath.Join(dir, strconv.Itoa(i)),
			NoLog: true, NoSigs: true, MaxPayload: 8 << 20}
		if n > 1 {
			var routes []string
			for j, p := range routePorts {
				if j != i {
					routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
				}
			}
			o.Cluster = server.ClusterOpts{Name: "netmcp-scale", Host: "127.0.0.1", Port: routePorts[i]}
			o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		opts = append(opts, o)
	}
	var urls, mons []string
	for i, o := range opts {
		s, err := server.NewServer(o)
		if err != nil {
			return err
		}
		go s.Start()
		defer s.Shutdown()
		if !s.ReadyForConnections(30 * time.Second) {
			return fmt.Errorf("nats server %d not ready", i)
		}
		urls, mons = append(urls, s.ClientURL()), append(mons, "http://"+s.MonitorAddr().String())
	}
	nc, err := nats.Connect(urls[0])
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := js.AccountInfo(ctx)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("jetstream not ready: %w", err)
		}
	}
	fmt.Printf("URL %s MON %s\n", strings.Join(urls, ","), strings.Join(mons, ","))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// scaleReplica is a replica over a real client.Fleet, in this process
// or a child's.
type scaleReplica struct {
	*Replica
	fleet *client.Fleet
	nc    *nats.Conn
}

// scaleFleet is a replica's fleet over the inventory file's devices, all
// released, before it joins.
type scaleFleet struct {
	fleet    *client.Fleet
	sessions *FleetSessions
	names    []string
}

func newScaleFleet(invFile string) (*scaleFleet, error) {
	inv, err := inventory.Load(invFile)
	if err != nil {
		return nil, err
	}
	s := &FleetSessions{}
	f, err := client.New(inv, client.Options{Remote: s.Remote, ConnectTimeout: time.Minute, CallTimeout: time.Minute})
	if err != nil {
		return nil, err
	}
	s.Fleet = f
	names := make([]string, 0, len(inv.Devices))
	for _, d := range inv.Devices {
		_ = f.Release(d.Name)
		names = append(names, d.Name)
	}
	return &scaleFleet{fleet: f, sessions: s, names: names}, nil
}

// joinScale joins a replica over the inventory file's devices.
func joinScale(name, natsURL, invFile string, ttl time.Duration, streamReplicas int) (*scaleReplica, error) {
	sf, err := newScaleFleet(invFile)
	if err != nil {
		return nil, err
	}
	return sf.join(name, natsURL, ttl, streamReplicas)
}

// join joins the replica of the fleet.
func (sf *scaleFleet) join(name, natsURL string, ttl time.Duration, streamReplicas int) (*scaleReplica, error) {
	f, s, names := sf.fleet, sf.sessions, sf.names
	nc, err := nats.Connect(natsURL, nats.MaxReconnects(-1), nats.DontRandomize())
	if err != nil {
		f.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Join(ctx, Config{Name: name, Conn: nc, LeaseTTL: ttl, StreamReplicas: streamReplicas,
		PolicyDigest: "sha256:scale", Sessions: s}, names)
	if err != nil {
		nc.Close()
		f.Close()
		return nil, err
	}
	s.Bind(r)
	return &scaleReplica{Replica: r, fleet: f, nc: nc}, nil
}

// scaleCount is what a replica serves: devices whose lease it holds, and
// of those the ones with a connected session.
type scaleCount struct {
	Held      int `json:"held"`
	Connected int `json:"connected"`
	// Lapses is how many leases the replica dropped while holding them.
	Lapses int64 `json:"lapses"`
}

// count counts the devices this replica serves.
func (r *scaleReplica) count() scaleCount {
	c := scaleCount{Lapses: r.lapses.Load()}
	for _, d := range r.Owned() {
		c.Held++
		if st, _ := r.fleet.Device(d).State(); st == client.StateConnected {
			c.Connected++
		}
	}
	return c
}

func scaleStatusSubject(name string) string { return "netmcp-scale.status." + name }

// serveScaleReplica runs a replica that answers its counts on its status
// subject, until its standard input closes (then it leaves) or it is
// killed.
func serveScaleReplica(name, natsURL, invFile string, ttl time.Duration, streamReplicas int) error {
	r, err := joinScale(name, natsURL, invFile, ttl, streamReplicas)
	if err != nil {
		return err
	}
	defer r.fleet.Close()
	defer r.nc.Close()
	sub, err := r.nc.Subscribe(scaleStatusSubject(name), func(m *nats.Msg) {
		b, _ := json.Marshal(r.count())
		_ = m.Respond(b)
	})
	if err != nil {
		return err
	}
	defer func() { _ = sub.Unsubscribe() }()
	fmt.Println("JOINED", r.Instance())
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return r.Leave(ctx)
}

// scaleChild is a child process of the benchmark.
type scaleChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	line  string // its first line of output
}

// startScaleChild runs the test binary in role and waits for its first
// line of output, which must start with want.
func startScaleChild(b *testing.B, role, want string) *scaleChild {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), scaleRoleEnv+"="+role)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &scaleChild{cmd: cmd, stdin: stdin}
	b.Cleanup(c.stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, want) {
		b.Fatalf("child %q: %q %v", role, line, err)
	}
	c.line = strings.TrimSpace(line)
	return c
}

// stop closes the child's standard input (it ends cleanly) and waits.
func (c *scaleChild) stop() {
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// natsVarz is the part of the NATS server's /varz the benchmark reads.
type natsVarz struct {
	InMsgs   int64 `json:"in_msgs"`
	OutMsgs  int64 `json:"out_msgs"`
	InBytes  int64 `json:"in_bytes"`
	OutBytes int64 `json:"out_bytes"`
	// SlowConsumers counts the clients the servers cut off for not
	// reading fast enough.
	SlowConsumers int64 `json:"slow_consumers"`
}

// readVarz sums the /varz of the servers whose monitoring addresses are
// mons (between servers of a cluster, a message is counted on each).
func readVarz(b *testing.B, mons []string) natsVarz {
	b.Helper()
	var sum natsVarz
	for _, mon := range mons {
		resp, err := http.Get(mon + "/varz")
		if err != nil {
			b.Fatal(err)
		}
		var v natsVarz
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		sum = natsVarz{sum.InMsgs + v.InMsgs, sum.OutMsgs + v.OutMsgs, sum.InBytes + v.InBytes, sum.OutBytes + v.OutBytes,
			sum.SlowConsumers + v.SlowConsumers}
	}
	return sum
}

func (v natsVarz) minus(o natsVarz) natsVarz {
	return natsVarz{v.InMsgs - o.InMsgs, v.OutMsgs - o.OutMsgs, v.InBytes - o.InBytes, v.OutBytes - o.OutBytes,
		v.SlowConsumers - o.SlowConsumers}
}

// callCounter counts the routed calls' NATS messages: the requests on
// the replicas' call subjects and their replies, with their sizes
// (subject, reply subject, headers and payload). It listens on one
// connection and one channel, which keeps the server's order, so a reply
// is told from the other inbox traffic (JetStream acknowledgements) by
// the reply subject of a request seen before it.
type callCounter struct {
	mu        sync.Mutex
	msgs      int64
	bytes     int64
	replyTo   map[string]bool
	sub, sub2 *nats.Subscription
}

func countCalls(b *testing.B, nc *nats.Conn) *callCounter {
	b.Helper()
	ch := make(chan *nats.Msg, 1<<16)
	c := &callCounter{replyTo: map[string]bool{}}
	var err error
	if c.sub, err = nc.ChanSubscribe(DefaultPrefix+".call.>", ch); err != nil {
		b.Fatal(err)
	}
	if c.sub2, err = nc.ChanSubscribe("_INBOX.>", ch); err != nil {
		b.Fatal(err)
	}
	_ = c.sub.SetPendingLimits(-1, -1)
	_ = c.sub2.SetPendingLimits(-1, -1)
	go func() {
		for m := range ch {
			size := int64(len(m.Subject) + len(m.Reply) + len(m.Data))
			for k, vs := range m.Header {
				for _, v := range vs {
					size += int64(len(k) + len(v) + 4)
				}
			}
			c.mu.Lock()
			switch {
			case strings.HasPrefix(m.Subject, DefaultPrefix+".call."):
				c.replyTo[m.Reply] = true
			case c.replyTo[m.Subject]:
				delete(c.replyTo, m.Subject)
			default:
				c.mu.Unlock()
				continue
			}
			c.msgs++
			c.bytes += size
			c.mu.Unlock()
		}
	}()
	b.Cleanup(func() { _ = c.sub.Unsubscribe(); _ = c.sub2.Unsubscribe() })
	return c
}

// read returns the messages and bytes counted so far.
func (c *callCounter) read() (msgs, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msgs, c.bytes
}

// heapInUse is the heap in use after two collections.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p)]
}

// BenchmarkScale runs a controller cluster over 10,000 simulated devices
// (NETMCP_SCALE_DEVICES to change it), 1,000 per child process, with a
// NATS server in its own child process, and 1 or 3 replicas: this process
// is replica 0, the others are child processes. Reported:
//   - connect-all-s: from the start of the replicas until every device is
//     held by one replica over a connected session (a first claim opens
//     its session half a TTL after the claim);
//   - fanout-p50/p99-ms and device-p50/p99-ms: one network.yang.get on
//     every device through replica 0's fleet (devices another replica
//     holds are forwarded over NATS), whole and per device;
//   - heap-KiB/session: replica 0's heap in use per session it holds;
//   - nats-msgs/read, nats-KiB/read: the NATS server's messages and bytes
//     (in + out) per fanned-out read, net of the same time's lease
//     renewals measured idle before;
//   - failover-s (3 replicas): from a replica's SIGKILL until every device
//     is held and connected again, and answers a fanned-out read.
//
// NETMCP_SCALE_TTL sets the lease TTL (default 10s): on a loaded two-core
// machine one replica could not renew 10,000 leases at 10 s (4,000
// writes/s) within half a TTL, and never served a device.
//
// It takes minutes; run it alone, niced:
//
//	nice -n 10 go test -run '^$' -bench Scale -benchtime 1x -timeout 30m ./controller/cluster/
func BenchmarkScale(b *testing.B) {
	n := 10000
	if s := os.Getenv(scaleDevicesEnv); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("%s=%q: want a number of devices", scaleDevicesEnv, s)
		}
	}
	inv := &inventory.Inventory{Name: "scale"}
	for first := 0; first < n; first += scalePerChild {
		count := min(scalePerChild, n-first)
		c := startScaleChild(b, fmt.Sprintf("devices %d %d", first, count), "ADDR ")
		addr := strings.TrimPrefix(c.line, "ADDR ")
		for i := first; i < first+count; i++ {
			inv.Devices = append(inv.Devices, inventory.Device{Name: scaleName(i), URL: "http://" + addr + "/" + scaleName(i) + transport.Path})
		}
	}
	invFile := filepath.Join(b.TempDir(), "inventory.yaml")
	if err := inventory.Save(invFile, inv); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d devices in %d child processes", n, (n+scalePerChild-1)/scalePerChild)
	counts := []int{1, 3}
	if s := os.Getenv(scaleReplicasEnv); s != "" {
		r, err := strconv.Atoi(s)
		if err != nil || r < 1 {
			b.Fatalf("%s=%q: want a number of replicas", scaleReplicasEnv, s)
		}
		counts = []int{r}
	}
	for _, replicas := range counts {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			for b.Loop() {
				scaleRun(b, invFile, n, replicas)
			}
		})
	}
}

// scaleRun measures one cluster of replicas over the devices of invFile.
func scaleRun(b *testing.B, invFile string, n, replicas int) {
	ttl := DefaultLeaseTTL
	if s := os.Getenv(scaleTTLEnv); s != "" {
		var err error
		if ttl, err = time.ParseDuration(s); err != nil {
			b.Fatalf("%s=%q: %v", scaleTTLEnv, s, err)
		}
	}
	servers := 3
	if s := os.Getenv(scaleServersEnv); s != "" {
		var err error
		if servers, err = strconv.Atoi(s); err != nil || servers < 1 {
			b.Fatalf("%s=%q: want a number of NATS servers", scaleServersEnv, s)
		}
	}
	nc := startScaleChild(b, fmt.Sprintf("nats %d", servers), "URL ")
	f := strings.Fields(nc.line)
	urls, mons := strings.Split(f[1], ","), strings.Split(f[3], ",")
	status := connect(b, urls[0])

	sf, err := newScaleFleet(invFile)
	if err != nil {
		b.Fatal(err)
	}
	before := heapInUse() // the fleet's devices, released: no session yet
	start := time.Now()
	kids := map[string]*scaleChild{}
	for i := 1; i < replicas; i++ {
		name := fmt.Sprintf("r%d", i)
		// Replica i connects to server i, the others in reserve.
		url := strings.Join(append(urls[i%servers:], urls[:i%servers]...), ",")
		kids[name] = startScaleChild(b, fmt.Sprintf("replica %s %s %s %s %d", name, url, invFile, ttl, servers), "JOINED ")
	}
	r0, err := sf.join("r0", strings.Join(urls, ","), ttl, servers)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = r0.Leave(ctx)
		r0.nc.Close()
		r0.fleet.Close()
	}()
	counts := func(names []string) (held, connected int, per map[string]scaleCount) {
		per = map[string]scaleCount{"r0": r0.count()}
		for _, name := range names {
			m, err := status.Request(scaleStatusSubject(name), nil, 10*time.Second)
			if err != nil {
				continue
			}
			var c scaleCount
			_ = json.Unmarshal(m.Data, &c)
			per[name] = c
		}
		for _, c := range per {
			held += c.Held
			connected += c.Connected
		}
		return held, connected, per
	}
	live := slices.Sorted(func(yield func(string) bool) {
		for k := range kids {
			if !yield(k) {
				return
			}
		}
	})
	waitAll := func(names []string, within time.Duration, what string) time.Duration {
		t0, logged := time.Now(), time.Now()
		for {
			held, connected, per := counts(names)
			if held == n && connected == n {
				return time.Since(t0)
			}
			if time.Since(logged) > 15*time.Second {
				// On stderr: a benchmark's log shows only at its end.
				fmt.Fprintf(os.Stderr, "%s: after %v %d held, %d connected (held, connected, lapses): %v; replica 0's reconnects %d, slow consumers %d\n",
					what, time.Since(t0).Round(time.Second), held, connected, per, r0.nc.Stats().Reconnects, readVarz(b, mons).SlowConsumers)
				logged = time.Now()
			}
			if time.Since(t0) > within {
				b.Fatalf("%s: after %v %d held, %d connected of %d: %v", what, within, held, connected, n, per)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitAll(live, 10*time.Minute, "connect-all")
	connectAll := time.Since(start)
	_, _, per := counts(live)
	b.Logf("replicas=%d: every device held and connected after %v: %v", replicas, connectAll.Round(time.Millisecond), per)
	held0 := per["r0"].Held
	perSession := float64(heapInUse()-before) / float64(held0)

	// One read fanned out to every device through replica 0, a few times.
	args := map[string]any{"path": "/openconfig-system:system/config/hostname"}
	ctx := context.Background()
	fanout := func() (whole time.Duration, each []time.Duration, failed int) {
		t0 := time.Now()
		results := r0.fleet.CallAll(ctx, nil, netproto.ToolYangGet, args)
		whole = time.Since(t0)
		for _, r := range results {
			if r.Err != nil {
				failed++
				continue
			}
			each = append(each, r.Elapsed)
		}
		return whole, each, failed
	}
	fanout() // warm-up
	const reads = 5
	var whole, each []time.Duration
	calls := countCalls(b, status)
	v0 := readVarz(b, mons)
	t0 := time.Now()
	for range reads {
		w, e, failed := fanout()
		if failed > 0 {
			b.Fatalf("a fanned-out read failed on %d devices", failed)
		}
		whole, each = append(whole, w), append(each, e...)
	}
	busy := time.Since(t0)
	v1 := readVarz(b, mons)
	_ = status.Flush()
	msgs, bytes := calls.read()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(connectAll.Seconds(), "connect-all-s")
	b.ReportMetric(ms(pct(whole, 0.5)), "fanout-p50-ms")
	b.ReportMetric(ms(pct(whole, 0.99)), "fanout-p99-ms")
	b.ReportMetric(ms(pct(each, 0.5)), "device-p50-ms")
	b.ReportMetric(ms(pct(each, 0.99)), "device-p99-ms")
	b.ReportMetric(perSession/1024, "heap-KiB/session")
	b.ReportMetric(float64(msgs)/reads, "nats-msgs/read")
	var lapses int64
	_, _, after := counts(live)
	for _, c := range after {
		lapses += c.Lapses
	}
	b.ReportMetric(float64(lapses), "lapses")
	b.Logf("replicas=%d: lapses %v; replica 0's reconnects %d; slow consumers since the start %d",
		replicas, after, r0.nc.Stats().Reconnects, readVarz(b, mons).SlowConsumers)
	b.ReportMetric(float64(bytes)/1024/reads, "nats-KiB/read")
	b.Logf("replicas=%d: %d reads (%v): routed calls %d messages, %d bytes (requests and replies, as published); "+
		"the NATS server's whole traffic meanwhile, lease renewals included: %+v; replica 0 holds %d sessions",
		replicas, reads, busy.Round(time.Millisecond), msgs, bytes, v1.minus(v0), held0)

	if replicas < 2 {
		return
	}
	// SIGKILL one child replica: no hand-back, its leases expire.
	victim := live[0]
	lost := per[victim].Held
	kill := time.Now()
	if err := kids[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		b.Fatal(err)
	}
	_ = kids[victim].cmd.Wait()
	rest := live[1:]
	held := waitAll(rest, 5*time.Minute, "after the kill")
	_, _, failed := fanout()
	for failed > 0 && time.Since(kill) < 5*time.Minute {
		_, _, failed = fanout()
	}
	failover := time.Since(kill)
	b.ReportMetric(failover.Seconds(), "failover-s")
	b.Logf("replicas=3: %s killed holding %d devices; held and connected again after %v, a fanned-out read answered by all after %v (TTL %v)",
		victim, lost, held.Round(time.Millisecond), failover.Round(time.Millisecond), ttl)
}
