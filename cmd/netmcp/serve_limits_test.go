package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// TestRateLimitByTransport checks which transports get the per-identity
// rate limit: stdio (one local user) none unless --rate/--burst or the
// policy sets one; HTTP and the TLS stream the default 50/s, burst 100.
func TestRateLimitByTransport(t *testing.T) {
	limited, err := policy.Parse([]byte("rateLimit: {perSecond: 5, burst: 10}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		listen   string // serveArgs.listen
		stream   string // --tls-stream-listen
		explicit bool   // --rate or --burst given
		pol      *policy.Policy
		want     bool // a rate limiter is installed
	}{
		{name: "stdio default", want: false},
		{name: "stdio with --rate", explicit: true, want: true},
		{name: "stdio with policy rateLimit", pol: limited, want: true},
		{name: "http default", listen: "127.0.0.1:0", want: true},
		{name: "tls stream default", stream: "127.0.0.1:0", want: true},
		{name: "http and tls stream default", listen: "127.0.0.1:0", stream: "127.0.0.1:0", want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sf := &securityFlags{maxRequestBytes: transport.DefaultMaxBodyBytes, tlsStreamListen: tc.stream,
				rate: server.DefaultRatePerSecond, burst: server.DefaultRateBurst, rateExplicit: tc.explicit}
			pol := tc.pol
			if pol == nil {
				pol = policy.Default()
			}
			opts, closeAudit, err := sf.securityOptions(serveArgs{listen: tc.listen, policy: pol, stderr: io.Discard,
				logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			closeAudit()
			if got := opts.RateLimiter != nil; got != tc.want {
				t.Errorf("rate limiter installed: %v, want %v", got, tc.want)
			}
		})
	}
}

// stdioClient connects an SDK client to the built `netmcp serve --device
// sim://r1` with args, its default state directory under a temporary
// XDG_STATE_HOME.
func stdioClient(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(netmcpBinary(t), append([]string{"serve", "--device", "sim://r1"}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "limits-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("start netmcp serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var yangGetArgs = map[string]any{"path": "/openconfig-interfaces:interfaces", "datastore": "running"}

// TestStdioDefaultsAnswerEveryRead: 10,000 sequential
// network.yang.get calls from one script over stdio, with serve's default
// flags (audit on), are all answered without error. With the old
// defaults (50 calls/s, burst 100 on every transport) all but about the
// first hundred were refused.
func TestStdioDefaultsAnswerEveryRead(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 calls through a child process")
	}
	cs := stdioClient(t)
	ctx := context.Background()
	for i := range 10000 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: yangGetArgs})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if res.IsError || res.StructuredContent == nil {
			t.Fatalf("call %d: tool error or no structured content: %+v", i+1, res.Content)
		}
	}
}

// TestStdioExplicitRateLimit: --rate and --burst given on the command line
// still limit the stdio user: with a burst of 3, initialize (rate-limited
// like any call) and two calls pass, the third call is refused with a
// retryable -32083 naming the limit.
func TestStdioExplicitRateLimit(t *testing.T) {
	cs := stdioClient(t, "--no-state", "--rate", "0.001", "--burst", "3")
	ctx := context.Background()
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: yangGetArgs})
		if i < 2 && err != nil {
			t.Fatalf("call %d within the burst: %v", i+1, err)
		}
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != netproto.CodeAccessDenied || !strings.Contains(string(rpc.Data), "rate limit exceeded") {
		t.Fatalf("third call: %v, want a -32083 rate limit refusal", err)
	}
}
