package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/benchkit"
)

// buildNetmcp builds cmd/netmcp once per benchmark binary.
func buildNetmcp(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "netmcp")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "../cmd/netmcp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as a release is built (README)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building netmcp: %v\n%s", err, out)
	}
	return bin
}

// benchPath is the YANG path every benchmark reads.
const benchPath = "/openconfig-interfaces:interfaces"

// benchArgs are the arguments of every call the round-trip benchmarks measure.
var benchArgs = map[string]any{"path": benchPath, "datastore": "running"}

// benchConfigs are the server configurations the round-trip benchmarks
// measure: the audit trail's fsync policy is the dominant cost, so each is
// reported on its own. The per-identity rate limit is off (--rate 0): it
// would measure the limiter, not the server (it is on by default over HTTP).
// `netmcp bench` compares the same round trips with a bare go-sdk server.
var benchConfigs = []struct {
	name string
	args []string
}{
	{"audit-fsync-writes", []string{"--audit-fsync", "writes"}}, // the default: reads are batched
	{"audit-fsync-always", []string{"--audit-fsync", "always"}},
	{"no-state", []string{"--no-state"}}, // no state dir: no audit log, no commit history
	// An admin may read secrets, so nothing is masked: the bare server stack.
	{"no-state-admin", []string{"--no-state", "--stdio-role", "admin", "--local-role", "admin"}},
}

func serveArgv(b *testing.B, bin string, extra ...string) []string {
	args := []string{bin, "serve", "--device", "sim://r1", "--rate", "0"}
	if !slices.Contains(extra, "--no-state") {
		args = append(args, "--state-dir", b.TempDir())
	}
	return append(args, extra...)
}

// measure makes at least min calls on c (b.N if more), reports their
// p50, p99 and calls/s, and the server's RSS idle (before the calls) and
// after them.
func measure(b *testing.B, c benchkit.Client, atLeast int) {
	idle, err := benchkit.RSS(c.Pid())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	lat, failed, first := benchkit.Run(context.Background(), c, max(b.N, atLeast), "network.yang.get", benchArgs)
	b.StopTimer()
	if failed > 0 {
		b.Fatalf("%d calls failed; first: %v", failed, first)
	}
	after, err := benchkit.RSS(c.Pid())
	if err != nil {
		b.Fatal(err)
	}
	s := benchkit.Summarize(lat, failed)
	b.ReportMetric(float64(s.P50)/float64(time.Millisecond), "p50_ms")
	b.ReportMetric(float64(s.P99)/float64(time.Millisecond), "p99_ms")
	b.ReportMetric(s.CallsPerSec, "calls/s")
	b.ReportMetric(float64(idle)/(1<<20), "rss_idle_MB")
	b.ReportMetric(float64(after)/(1<<20), "rss_after_MB")
}

// BenchmarkYangGetStdio measures the tools/call round trip of
// network.yang.get on the simulated device through a child `netmcp serve`
// on stdio, and the child's RSS idle and after the calls (at least 10,000).
func BenchmarkYangGetStdio(b *testing.B) {
	bin := buildNetmcp(b)
	for _, cfg := range benchConfigs {
		b.Run(cfg.name, func(b *testing.B) {
			c, err := benchkit.StartStdio(benchkit.Options{Argv: serveArgv(b, bin, cfg.args...), Stderr: os.Stderr})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			time.Sleep(200 * time.Millisecond) // let start-up garbage be collected before the idle RSS
			measure(b, c, 10000)
		})
	}
}

// BenchmarkYangGetHTTP measures the same round trip over Streamable HTTP
// (one session, one keep-alive connection).
func BenchmarkYangGetHTTP(b *testing.B) {
	bin := buildNetmcp(b)
	for _, cfg := range benchConfigs {
		b.Run(cfg.name, func(b *testing.B) {
			argv := serveArgv(b, bin, append([]string{"--listen", "127.0.0.1:0"}, cfg.args...)...)
			c, err := benchkit.StartHTTP(benchkit.Options{Argv: argv})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			measure(b, c, 0)
		})
	}
}
