package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
)

// TestServeDeviceURLParams: `netmcp serve` gives the device URL's query to
// the driver: sim://r1?realtime=1 paces a ping (two requests take a
// second), sim://r1 answers at once, and a parameter the driver does not
// know stops serve with exit status 2 naming it.
func TestServeDeviceURLParams(t *testing.T) {
	bin := netmcpBinary(t)
	t.Run("unknown parameter", func(t *testing.T) {
		cmd := exec.Command(bin, "serve", "--device", "sim://r1?anything=1")
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `unknown URL parameter "anything"`) {
			t.Fatalf("err %v, output %q; want exit status 2 naming the parameter", err, out)
		}
	})
	for _, tt := range []struct {
		url      string
		min, max time.Duration
	}{
		{"sim://r1?realtime=1", 900 * time.Millisecond, time.Minute},
		{"sim://r1", 0, 900 * time.Millisecond},
	} {
		t.Run(tt.url, func(t *testing.T) {
			cmd := exec.Command(bin, "serve", "--device", tt.url)
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
			cmd.Stderr = os.Stderr
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "url-test", Version: "1"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
			if err != nil {
				t.Fatalf("start netmcp serve: %v", err)
			}
			defer cs.Close()
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: netproto.ToolPing,
				Arguments: map[string]any{"destination": "10.255.0.3", "count": 2}})
			took := time.Since(start)
			if err != nil || res.IsError {
				t.Fatalf("ping: %v %+v", err, res)
			}
			if took < tt.min || took > tt.max {
				t.Errorf("ping of two requests took %v, want %v..%v", took, tt.min, tt.max)
			}
		})
	}
}
