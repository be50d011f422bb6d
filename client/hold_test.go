package client_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
)

// TestHoldRelease: a fleet that holds only some devices has sessions to
// those alone; a released device's calls go to Options.Remote (never with
// a LocalOnly context), and holding it again gives it a new session.
func TestHoldRelease(t *testing.T) {
	l := labtest.New(t, labtest.Options{})
	var remote atomic.Int32
	f, err := client.New(l.Inventory(), client.Options{
		Remote: func(ctx context.Context, d *client.Device, tool string, args any) (*mcp.CallToolResult, error) {
			remote.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "remote " + d.Name()}}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, d := range f.Devices() {
		if err := f.Release(d.Name()); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Hold("r1"); err != nil {
		t.Fatal(err)
	}
	if err := f.Hold("nosuch"); err == nil {
		t.Fatal("Hold of a device outside the fleet succeeded")
	}
	args := map[string]any{"path": hostnamePath}
	if _, err := f.Device("r1").CallTool(ctx, netproto.ToolYangGet, args); err != nil {
		t.Fatalf("held r1: %v", err)
	}
	if n := remote.Load(); n != 0 {
		t.Fatalf("a held device's call went remote (%d)", n)
	}
	res, err := f.Device("r2").CallTool(ctx, netproto.ToolYangGet, args)
	if err != nil || remote.Load() != 1 || res.Content[0].(*mcp.TextContent).Text != "remote r2" {
		t.Fatalf("released r2: %v, %d remote calls", err, remote.Load())
	}
	if st, _ := f.Device("r2").State(); st != client.StateReleased {
		t.Fatalf("r2 is %s, want released", st)
	}
	if _, err := f.Device("r2").CallTool(client.LocalOnly(ctx), netproto.ToolYangGet, args); !errors.Is(err, client.ErrReleased) {
		t.Fatalf("released r2, local only: %v, want ErrReleased", err)
	}
	if err := f.Release("r1"); err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Device("r1").State(); st != client.StateReleased {
		t.Fatalf("r1 after Release is %s", st)
	}
	if err := f.Hold("r1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Device("r1").CallTool(ctx, netproto.ToolYangGet, args); err != nil {
		t.Fatalf("r1 held again: %v", err)
	}
	if n := f.Device("r1").Sessions(); n != 2 {
		t.Fatalf("r1 had %d sessions, want 2", n)
	}
}
