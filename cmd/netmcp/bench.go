package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/internal/benchkit"
	"github.com/netmcp/netmcp/netproto"
)

// benchFlags are the flags of `netmcp bench`.
type benchFlags struct {
	calls, reps, warmup int
	writes              int // edit+commit pairs per write configuration and repetition
	quick, jsonOut      bool
	transports          []string
	protocols           []string
	device, path        string
	serveArgs           []string
	peer                string // the bare server's program (benchPeerBinary)
}

// benchConfig is one server measured by `netmcp bench`.
type benchConfig struct {
	name string
	bare bool     // the bench peer (internal/cmd/bench-peer), not netmcp serve
	args []string // netmcp serve flags (besides --device and --listen)
}

// benchConfigs are the servers `netmcp bench` compares on each transport
// and protocol; the last is the baseline of the ratios.
var benchConfigs = []benchConfig{
	{name: "netmcp"}, // default flags; state dir (audit log) in a temporary directory
	{name: "netmcp --no-state", args: []string{"--no-state"}}, // no state dir: no audit log, no commit history
	{name: "bare go-sdk", bare: true},
}

// newBenchCmd builds "netmcp bench".
func newBenchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure netmcp against a bare go-sdk server, side by side (p50, p99, calls/s, RSS)",
		Long: "Measure sequential network.yang.get round trips through `netmcp serve` and through a bare\n" +
			"go-sdk server (the test program bench-peer, internal/cmd/bench-peer: one equivalent tool on the\n" +
			"same driver, none of netmcp's layers), over stdio and Streamable HTTP, interleaved: each\n" +
			"repetition starts every server once per transport, in rotating order. Prints p50, p99, calls/s,\n" +
			"the server process's RSS (VmRSS, after the calls) and the ratios netmcp/bare.\n\n" +
			"Configurations: netmcp with its defaults (audit log on, state dir in a temporary directory),\n" +
			"netmcp --no-state, and the bare server, for each --protocol: a version with sessions (one\n" +
			"session, initialize first) or 2026-07-28 (no session: each call carries its version in _meta;\n" +
			"HTTP only, the bare server in the SDK handler's stateless mode). Over HTTP netmcp runs with\n" +
			"--rate 0: its default per-identity limit (50/s) would refuse a benchmark.\n\n" +
			"Writes (--writes, over HTTP on 2026-07-28): netmcp with its state directory, every write\n" +
			"approved by a policy (approval: never), changes the description of an interface of its\n" +
			"candidate and commits it (network.yang.edit then network.commit, under the handle of the\n" +
			"first edit), each call without an idempotency key, then each with a new one\n" +
			"(_meta netmcp/idempotencyKey, whose record is kept in the state directory): p50, p99 and\n" +
			"pairs/s of the two. Exits 1 if any call failed.\n\n" +
			"The bare server is --peer, else bench-peer beside this executable, else built with `go build`\n" +
			"from the source of netmcp (in a checkout of it, with Go installed).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.quick {
				fl := cmd.Flags()
				if !fl.Changed("calls") {
					f.calls = 300
				}
				if !fl.Changed("reps") {
					f.reps = 1
				}
				if !fl.Changed("warmup") {
					f.warmup = 50
				}
				if !fl.Changed("writes") {
					f.writes = 30
				}
			}
			return runBench(cmd.Context(), f, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.calls, "calls", 5000, "timed calls per server, transport and repetition")
	fl.IntVar(&f.reps, "reps", 3, "repetitions (each starts every server anew)")
	fl.IntVar(&f.warmup, "warmup", 200, "untimed calls before the timed ones")
	fl.BoolVar(&f.quick, "quick", false, "a short run for CI: 300 calls, 30 writes, 1 repetition, 50 warm-up calls (unless set)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the results as JSON instead of a table")
	fl.StringSliceVar(&f.transports, "transport", []string{"stdio", "http"}, "transports to measure: stdio, http")
	fl.StringSliceVar(&f.protocols, "protocol", []string{"2025-11-25", benchkit.PerRequestVersion},
		"MCP versions to measure: with sessions (2025-11-25 ...), or 2026-07-28 without (HTTP only; skipped on stdio)")
	fl.IntVar(&f.writes, "writes", 300, "edit+commit pairs timed per write configuration and repetition over HTTP (0: no writes)")
	fl.StringVar(&f.device, "device", "sim://r1", "device URL served")
	fl.StringVar(&f.path, "path", "/openconfig-interfaces:interfaces", "YANG path read (datastore running)")
	fl.StringVar(&f.peer, "peer", "", "the bare go-sdk server's program (default: bench-peer beside netmcp, else built from source)")
	fl.StringArrayVar(&f.serveArgs, "serve-arg", nil, "extra flag for every netmcp configuration (repeatable), e.g. --serve-arg=--audit-fsync=always")
	return cmd
}

// benchResult is one line of the results: a server on a transport, all
// repetitions pooled.
type benchResult struct {
	Transport   string   `json:"transport"`
	Protocol    string   `json:"protocol"`
	Server      string   `json:"server"`
	Argv        []string `json:"argv"`
	Calls       int      `json:"calls"`
	Errors      int      `json:"errors"`
	FirstError  string   `json:"firstError,omitempty"`
	P50us       float64  `json:"p50_us"`
	P99us       float64  `json:"p99_us"`
	CallsPerSec float64  `json:"calls_per_s"`
	RSSIdleMB   float64  `json:"rss_idle_mb"` // after initialize, before any call (median of the repetitions)
	RSSMB       float64  `json:"rss_mb"`      // after the calls (median of the repetitions)
	// Ratios to the bare server on the same transport and protocol
	// (absent for it).
	RatioP50         float64 `json:"ratio_p50,omitempty"`
	RatioP99         float64 `json:"ratio_p99,omitempty"`
	RatioCallsPerSec float64 `json:"ratio_calls_per_s,omitempty"`
	RatioRSS         float64 `json:"ratio_rss,omitempty"`

	lat            []time.Duration
	rssIdle, rssAt []int64
}

// benchReport is the output of `netmcp bench --json`.
type benchReport struct {
	Machine  benchMachine  `json:"machine"`
	Tool     string        `json:"tool"`
	Device   string        `json:"device"`
	Path     string        `json:"path"`
	Calls    int           `json:"calls"`
	Reps     int           `json:"reps"`
	Warmup   int           `json:"warmup"`
	Started  time.Time     `json:"started"`
	Duration float64       `json:"duration_s"`
	Results  []benchResult `json:"results"`
	// WriteOps is --writes; Writes the write configurations' results.
	WriteOps int          `json:"write_ops,omitempty"`
	Writes   []benchWrite `json:"writes,omitempty"`
}

// benchWrite is one write configuration's results: netmcp over HTTP on a
// per-request protocol, its calls with or without idempotency keys, all
// repetitions pooled. An operation is an edit and its commit.
type benchWrite struct {
	Server     string   `json:"server"`
	Transport  string   `json:"transport"`
	Protocol   string   `json:"protocol"`
	Key        string   `json:"key"` // benchNoKey or benchNewKey
	Argv       []string `json:"argv"`
	Ops        int      `json:"ops"`
	Errors     int      `json:"errors"`
	FirstError string   `json:"firstError,omitempty"`
	P50us      float64  `json:"p50_us"`
	P99us      float64  `json:"p99_us"`
	OpsPerSec  float64  `json:"ops_per_s"`
	// RatioP50 is p50 over that of the writes without key (absent for
	// them).
	RatioP50 float64 `json:"ratio_p50,omitempty"`

	lat []time.Duration
}

// The write configurations: calls without idempotency key, and with a new
// key each.
const (
	benchNoKey  = "none"
	benchNewKey = "new key per call"
)

// benchMachine describes where the benchmark ran.
type benchMachine struct {
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	CPUs    int    `json:"cpus"`
	CPU     string `json:"cpu,omitempty"`
	MemMB   int64  `json:"mem_mb,omitempty"`
	Go      string `json:"go"`
	Version string `json:"netmcp"`
	// Load is the 1-minute load average at the start and at the end:
	// other work on the machine skews every figure, the ratios least.
	Load [2]float64 `json:"load"`
}

// benchRun is one transport and protocol every server is measured on.
type benchRun struct{ transport, protocol string }

// key names results of server on r.
func (r benchRun) key(server string) string {
	return r.transport + "\x00" + r.protocol + "\x00" + server
}

// perRequest reports whether r's protocol has no sessions.
func (r benchRun) perRequest() bool { return r.protocol >= benchkit.PerRequestVersion }

func runBench(ctx context.Context, f benchFlags, stdout, stderr io.Writer) error {
	if f.calls < 1 || f.reps < 1 || f.warmup < 0 || f.writes < 0 {
		return withExit(2, fmt.Errorf("--calls and --reps must be at least 1, --warmup and --writes at least 0"))
	}
	for _, t := range f.transports {
		if t != "stdio" && t != "http" {
			return withExit(2, fmt.Errorf("--transport %q: want stdio or http", t))
		}
	}
	for _, p := range f.protocols {
		if !slices.Contains(mcp.SupportedProtocolVersions(), p) {
			return withExit(2, fmt.Errorf("--protocol %q: want one of %s", p, strings.Join(mcp.SupportedProtocolVersions(), ", ")))
		}
	}
	var runs []benchRun
	for _, t := range f.transports {
		for _, p := range f.protocols {
			if r := (benchRun{t, p}); t == "http" || !r.perRequest() {
				runs = append(runs, r)
			}
		}
	}
	if len(runs) == 0 {
		return withExit(2, errors.New("nothing to measure: protocol 2026-07-28 is measured over HTTP only (--transport http)"))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "netmcp-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	peer, err := benchPeerBinary(ctx, f.peer, self, tmp)
	if err != nil {
		return err
	}

	rep := benchReport{Machine: machine(), Tool: netproto.ToolYangGet, Device: f.device, Path: f.path,
		Calls: f.calls, Reps: f.reps, Warmup: f.warmup, Started: time.Now().UTC().Truncate(time.Second)}
	results := map[string]*benchResult{}
	var order []*benchResult
	for _, r := range runs {
		for _, c := range benchConfigs {
			res := &benchResult{Transport: r.transport, Protocol: r.protocol, Server: c.name}
			results[r.key(c.name)] = res
			order = append(order, res)
		}
	}
	var writes []*benchWrite
	if f.writes > 0 && slices.Contains(f.transports, "http") {
		rep.WriteOps = f.writes
		for _, k := range []string{benchNoKey, benchNewKey} {
			writes = append(writes, &benchWrite{Server: "netmcp", Transport: "http", Protocol: benchkit.PerRequestVersion, Key: k})
		}
	}
	args := map[string]any{"path": f.path, "datastore": "running"}
	start := time.Now()
	run := 0
	for i := 0; i < f.reps; i++ {
		for _, br := range runs {
			// Rotate the order per repetition: no server always runs first.
			for k := range benchConfigs {
				c := benchConfigs[(k+i)%len(benchConfigs)]
				run++
				argv := benchArgv(self, peer, c, br, filepath.Join(tmp, "state-"+strconv.Itoa(run)), f)
				r := results[br.key(c.name)]
				r.Argv = tmpless(argv[1:], tmp)
				s, err := benchOnce(ctx, r, br, argv, tmp, args, f)
				if err != nil {
					return err
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				fmt.Fprintf(stderr, "netmcp bench: rep %d/%d %-5s %-10s %-18s p50 %s  %6.0f calls/s  %d failed\n",
					i+1, f.reps, br.transport, br.protocol, c.name, fmtDur(s.P50), s.CallsPerSec, s.Errors)
			}
		}
		for k := range writes {
			w := writes[(k+i)%len(writes)]
			run++
			s, err := benchWrites(ctx, w, self, tmp, filepath.Join(tmp, "state-"+strconv.Itoa(run)), run, f)
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(stderr, "netmcp bench: rep %d/%d http  %-10s writes, key: %-16s p50 %s  %6.0f edit+commit/s  %d failed\n",
				i+1, f.reps, w.Protocol, w.Key, fmtDur(s.P50), s.CallsPerSec, s.Errors)
		}
	}
	rep.Duration = time.Since(start).Seconds()
	rep.Machine.Load[1] = loadAvg()
	failed := 0
	var firstErr string
	for _, r := range order {
		s := benchkit.Summarize(r.lat, r.Errors)
		r.Calls, r.P50us, r.P99us, r.CallsPerSec = s.Calls, us(s.P50), us(s.P99), s.CallsPerSec
		r.RSSIdleMB, r.RSSMB = mb(median(r.rssIdle)), mb(median(r.rssAt))
		failed += r.Errors
		if firstErr == "" {
			firstErr = r.FirstError
		}
	}
	for _, r := range order {
		base := results[benchRun{r.Transport, r.Protocol}.key(benchConfigs[len(benchConfigs)-1].name)]
		if r == base {
			continue
		}
		r.RatioP50, r.RatioP99 = ratio(r.P50us, base.P50us), ratio(r.P99us, base.P99us)
		r.RatioCallsPerSec, r.RatioRSS = ratio(r.CallsPerSec, base.CallsPerSec), ratio(r.RSSMB, base.RSSMB)
	}
	for _, r := range order {
		rep.Results = append(rep.Results, *r)
	}
	for _, w := range writes {
		s := benchkit.Summarize(w.lat, w.Errors)
		w.Ops, w.P50us, w.P99us, w.OpsPerSec = s.Calls, us(s.P50), us(s.P99), s.CallsPerSec
		failed += w.Errors
		if firstErr == "" {
			firstErr = w.FirstError
		}
		if w.Key != benchNoKey {
			w.RatioP50 = ratio(w.P50us, writes[0].P50us)
		}
		rep.Writes = append(rep.Writes, *w)
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printBench(stdout, rep)
	}
	if failed > 0 {
		return withExit(1, fmt.Errorf("bench: %d calls failed; first: %s", failed, firstErr))
	}
	return nil
}

// tmpless returns argv with the temporary directory tmp written $TMP.
func tmpless(argv []string, tmp string) []string {
	out := slices.Clone(argv)
	for j, a := range out {
		out[j] = strings.Replace(a, tmp, "$TMP", 1)
	}
	return out
}

// benchPeerName is the bare server's program, and benchPeerPackage its
// source: a test program, not part of netmcp.
const (
	benchPeerName    = "bench-peer"
	benchPeerPackage = "github.com/netmcp/netmcp/internal/cmd/bench-peer"
)

// benchPeerBinary returns the bare server's program: peer when given,
// else bench-peer beside self (scripts/test.sh builds it there), else
// one built into tmp from netmcp's source (`go run ./cmd/netmcp bench` in
// a checkout).
func benchPeerBinary(ctx context.Context, peer, self, tmp string) (string, error) {
	if peer != "" {
		return peer, nil
	}
	if beside := filepath.Join(filepath.Dir(self), benchPeerName); fileExists(beside) {
		return beside, nil
	}
	bin := filepath.Join(tmp, benchPeerName)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, benchPeerPackage)
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as netmcp's releases are built
	if out, err := build.CombinedOutput(); err != nil {
		return "", withExit(2, fmt.Errorf("bench: no bare go-sdk server to compare with: give --peer, put %s beside netmcp, or run in a checkout of netmcp with Go (go build %s: %v)\n%s",
			benchPeerName, benchPeerPackage, err, out))
	}
	return bin, nil
}

// fileExists tells whether name is an existing file.
func fileExists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && !st.IsDir()
}

// benchArgv is the command line of configuration c on run r: self is
// netmcp, peer the bare server (in the SDK handler's stateless mode for a
// per-request protocol).
func benchArgv(self, peer string, c benchConfig, r benchRun, stateDir string, f benchFlags) []string {
	if c.bare {
		argv := []string{peer, "--device", f.device}
		if r.transport == "http" {
			argv = append(argv, "--listen", "127.0.0.1:0")
		}
		if r.perRequest() {
			argv = append(argv, "--stateless")
		}
		return argv
	}
	argv := []string{self, "serve", "--device", f.device}
	if !slices.Contains(c.args, "--no-state") {
		argv = append(argv, "--state-dir", stateDir)
	}
	if r.transport == "http" {
		argv = append(argv, "--listen", "127.0.0.1:0", "--rate", "0")
	}
	argv = append(argv, c.args...)
	return append(argv, f.serveArgs...)
}

// benchOnce starts one server, measures it, adds to r and returns the
// figures of this run.
func benchOnce(ctx context.Context, r *benchResult, br benchRun, argv []string, tmp string, args any, f benchFlags) (benchkit.Stats, error) {
	opts := benchkit.Options{Argv: argv, Env: []string{"XDG_STATE_HOME=" + filepath.Join(tmp, "xdg")}, Stderr: &stderrTail{}, Protocol: br.protocol}
	var c benchkit.Client
	var err error
	if br.transport == "http" {
		c, err = benchkit.StartHTTP(opts)
	} else {
		c, err = benchkit.StartStdio(opts)
	}
	if err != nil {
		return benchkit.Stats{}, fmt.Errorf("bench: %s over %s (%s): %w\n%s", r.Server, br.transport, br.protocol, err, opts.Stderr)
	}
	defer c.Close()
	idle, err := benchkit.RSS(c.Pid())
	if err != nil {
		return benchkit.Stats{}, err
	}
	_, wfail, wfirst := benchkit.Run(ctx, c, f.warmup, netproto.ToolYangGet, args)
	lat, failed, first := benchkit.Run(ctx, c, f.calls, netproto.ToolYangGet, args)
	after, err := benchkit.RSS(c.Pid())
	if err != nil {
		return benchkit.Stats{}, err
	}
	r.lat = append(r.lat, lat...)
	r.Errors += wfail + failed
	if r.FirstError == "" {
		if wfirst == nil {
			wfirst = first
		}
		if wfirst != nil {
			r.FirstError = wfirst.Error()
		}
	}
	r.rssIdle = append(r.rssIdle, idle)
	r.rssAt = append(r.rssAt, after)
	return benchkit.Summarize(slices.Clone(lat), wfail+failed), nil
}

// stderrTail keeps the last lines a server wrote on stderr, to explain a
// failed start.
type stderrTail struct{ b []byte }

func (s *stderrTail) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	if len(s.b) > 4096 {
		s.b = s.b[len(s.b)-4096:]
	}
	return len(p), nil
}

func (s *stderrTail) String() string { return string(s.b) }

// printBench prints rep as a table.
func printBench(w io.Writer, rep benchReport) {
	m := rep.Machine
	fmt.Fprintf(w, "netmcp bench: %s %s (running) on %s; %d calls x %d repetitions per server and transport (after %d warm-up calls), interleaved; %.0f s\n",
		rep.Tool, rep.Path, rep.Device, rep.Calls, rep.Reps, rep.Warmup, rep.Duration)
	fmt.Fprintf(w, "machine: %s/%s, %d CPUs", m.OS, m.Arch, m.CPUs)
	if m.CPU != "" {
		fmt.Fprintf(w, " (%s)", m.CPU)
	}
	if m.MemMB > 0 {
		fmt.Fprintf(w, ", %d MiB", m.MemMB)
	}
	fmt.Fprintf(w, ", %s, netmcp %s; load average %.1f at the start, %.1f at the end\n\n", m.Go, m.Version, m.Load[0], m.Load[1])
	const row = "%-9s  %-10s  %-17s  %8s  %8s  %7s  %8s  %8s  %8s  %12s  %8s  %6s\n"
	fmt.Fprintf(w, row, "transport", "protocol", "server", "p50", "p99", "calls/s", "RSS idle", "RSS", "p50/bare", "calls/s/bare", "RSS/bare", "errors")
	for _, r := range rep.Results {
		fmt.Fprintf(w, row, r.Transport, r.Protocol, r.Server,
			fmtDur(time.Duration(r.P50us*1e3)), fmtDur(time.Duration(r.P99us*1e3)), fmt.Sprintf("%.0f", r.CallsPerSec),
			fmt.Sprintf("%.1f MB", r.RSSIdleMB), fmt.Sprintf("%.1f MB", r.RSSMB),
			fmtRatio(r.RatioP50), fmtRatio(r.RatioCallsPerSec), fmtRatio(r.RatioRSS), strconv.Itoa(r.Errors))
	}
	fmt.Fprintln(w, "\np50, p99, calls/s: one client, sequential calls that succeeded, all repetitions pooled; RSS: the server\n"+
		"process's VmRSS after initialize (idle; on 2026-07-28, after server/discover) and after the calls, median of\n"+
		"the repetitions; x/bare: netmcp over the bare go-sdk server on the same transport and protocol (on 2026-07-28\n"+
		"in its stateless mode); errors: failed calls, warm-up included.")
	if len(rep.Writes) == 0 {
		return
	}
	fmt.Fprintf(w, "\nwrites: %d edit+commit pairs x %d repetitions per configuration, netmcp with its state directory\n\n", rep.WriteOps, rep.Reps)
	const wrow = "%-9s  %-10s  %-16s  %8s  %8s  %8s  %10s  %6s\n"
	fmt.Fprintf(w, wrow, "transport", "protocol", "idempotency key", "p50", "p99", "pairs/s", "p50/no key", "errors")
	for _, r := range rep.Writes {
		fmt.Fprintf(w, wrow, r.Transport, r.Protocol, r.Key, fmtDur(time.Duration(r.P50us*1e3)), fmtDur(time.Duration(r.P99us*1e3)),
			fmt.Sprintf("%.0f", r.OpsPerSec), fmtRatio(r.RatioP50), strconv.Itoa(r.Errors))
	}
	fmt.Fprintln(w, "\na pair is network.yang.edit (an interface's description) then network.commit of the handle's candidate,\n"+
		"approved by policy; with keys, each call carries a new _meta netmcp/idempotencyKey, whose record the server\n"+
		"writes to its state directory.")
}

// machine describes this machine from the Go runtime and /proc.
func machine() benchMachine {
	m := benchMachine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(), Version: version,
		Load: [2]float64{loadAvg(), 0}}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				m.MemMB = kb >> 10
			}
		}
	}
	return m
}

// loadAvg returns the 1-minute load average (0 if unknown).
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return v
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func mb(b int64) float64         { return float64(b) / (1 << 20) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func fmtRatio(r float64) string {
	if r == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", r)
}

// fmtDur prints a latency in µs below 10 ms, else in ms.
func fmtDur(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3)
}
