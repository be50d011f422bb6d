package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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

const benchPath = "/openconfig-interfaces:interfaces"

// stdioChild is a child `netmcp serve` spoken to as raw JSON-RPC.
type stdioChild struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// benchConfigs are the server configurations the round-trip benchmarks
// measure: the audit trail's fsync policy is the dominant cost, so each is
// reported on its own. The per-identity rate limit is off (--rate 0): it
// would measure the limiter, not the server.
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

func serveArgs(b *testing.B, extra ...string) []string {
	args := []string{"serve", "--device", "sim://r1", "--rate", "0"}
	if !slices.Contains(extra, "--no-state") {
		args = append(args, "--state-dir", b.TempDir())
	}
	return append(args, extra...)
}

func startStdio(b *testing.B, bin string, extra ...string) *stdioChild {
	cmd := exec.Command(bin, serveArgs(b, extra...)...)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &stdioChild{cmd: cmd, in: in, out: bufio.NewReaderSize(outp, 1<<20)}
	c.roundTrip(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	b.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return c
}

func (c *stdioChild) roundTrip(b *testing.B, msg string) string {
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		b.Fatal(err)
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return line
}

// vmRSS returns a process's resident set size in MiB.
func vmRSS(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(data)
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024
}

func report(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	var total time.Duration
	for _, l := range lat {
		total += l
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
	b.ReportMetric(float64(len(lat))/total.Seconds(), "calls/s")
}

// BenchmarkYangGetStdio measures the tools/call round trip of
// network.yang.get on the simulated device through a child `netmcp serve`
// on stdio, and the child's RSS idle and after the calls (at least 10,000).
func BenchmarkYangGetStdio(b *testing.B) {
	bin := buildNetmcp(b)
	for _, cfg := range benchConfigs {
		b.Run(cfg.name, func(b *testing.B) { benchStdio(b, bin, cfg.args) })
	}
}

func benchStdio(b *testing.B, bin string, extra []string) {
	c := startStdio(b, bin, extra...)
	time.Sleep(200 * time.Millisecond)
	idle := vmRSS(b, c.cmd.Process.Pid)
	n := max(b.N, 10000)
	lat := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"network.yang.get","arguments":{"path":%q,"datastore":"running"}}}`, i+1, benchPath)
		t0 := time.Now()
		resp := c.roundTrip(b, msg)
		lat = append(lat, time.Since(t0))
		if i == 0 && !strings.Contains(resp, `"structuredContent"`) {
			b.Fatalf("unexpected response %.300s", resp)
		}
	}
	b.StopTimer()
	report(b, lat)
	b.ReportMetric(idle, "rss_idle_MB")
	b.ReportMetric(vmRSS(b, c.cmd.Process.Pid), "rss_after_MB")
}

// BenchmarkYangGetHTTP measures the same round trip over Streamable HTTP
// with the SDK client.
func BenchmarkYangGetHTTP(b *testing.B) {
	bin := buildNetmcp(b)
	for _, cfg := range benchConfigs {
		b.Run(cfg.name, func(b *testing.B) { benchHTTP(b, bin, cfg.args) })
	}
}

func benchHTTP(b *testing.B, bin string, extra []string) {
	cmd := exec.Command(bin, serveArgs(b, append([]string{"--listen", "127.0.0.1:0"}, extra...)...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// The first stderr line naming http://... is the listen address; any
	// warning before it (e.g. --no-state) is skipped.
	errs := bufio.NewReader(stderr)
	url := ""
	for url == "" {
		line, err := errs.ReadString('\n')
		if err != nil {
			b.Fatalf("no listen address on stderr: %v", err)
		}
		url = regexp.MustCompile(`http://\S+`).FindString(line)
	}
	go io.Copy(io.Discard, errs)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{"path": benchPath, "datastore": "running"}})
		lat = append(lat, time.Since(t0))
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
	b.StopTimer()
	report(b, lat)
}
