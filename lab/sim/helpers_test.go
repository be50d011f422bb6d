package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 10, 19, 3, 27, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newTestLab starts the default lab with a fixed clock and seed.
func newTestLab(t *testing.T) (*Lab, *clock) {
	t.Helper()
	clk := newClock()
	lab, err := NewLab(DefaultTopology(), LabOptions{Seed: 7, Now: clk.Now, TelemetryInterval: 20 * time.Millisecond, StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("NewLab: %v", err)
	}
	t.Cleanup(func() { lab.Close() })
	return lab, clk
}

func mustDevice(t *testing.T, lab *Lab, name string) *Driver {
	t.Helper()
	d, err := lab.Device(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var alice = device.Owner{Session: "s1", User: "alice"}

// ping runs a quick ping through Diagnose and returns the output and exit code.
func ping(t *testing.T, d *Driver, dst, vrf string, count int) (string, int) {
	t.Helper()
	r, err := d.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: dst, VRF: vrf, Count: count, IntervalMs: 1}, nil)
	if err != nil {
		t.Fatalf("ping %s from %s: %v", dst, d.Name(), err)
	}
	return r.Output, r.ExitCode
}

// codeOf returns the MCP-NET code of err, or 0.
func codeOf(err error) int {
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return ne.Code
	}
	return 0
}

// commitLines configures lines on d and commits them.
func commitLines(t *testing.T, d *Driver, lines ...string) {
	t.Helper()
	ctx := context.Background()
	if err := d.Configure(ctx, alice, lines); err != nil {
		t.Fatalf("Configure %q: %v", lines, err)
	}
	if _, err := d.Commit(ctx, alice, device.CommitOptions{Comment: "test"}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func fmtValue(v any) string { return fmt.Sprint(v) }
