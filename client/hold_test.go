package client_test

import (
	"context"
	"errors"
	"strings"
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
		},
		RemoteRequest: func(ctx context.Context, d *client.Device, method string, params, result any) error {
			remote.Add(1)
			if method != client.MethodReadResource {
				return errors.New("unexpected " + method)
			}
			uri := params.(*mcp.ReadResourceParams).URI
			*result.(**mcp.ReadResourceResult) = &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: "remote " + d.Name()}}}
			return nil
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
	// Starting the fleet (a web console does) leaves the released devices
	// alone, and Connect does not wait for them.
	if err := f.Connect(ctx); err != nil {
		t.Fatalf("connect with released devices: %v", err)
	}
	if st, _ := f.Device("r2").State(); st != client.StateReleased || f.Device("r2").Sessions() != 0 {
		t.Fatalf("after Start, released r2 is %s with %d sessions", st, f.Device("r2").Sessions())
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
	rr, err := f.Device("r2").ReadResource(ctx, "mcp://x")
	if err != nil || remote.Load() != 2 || rr.Contents[0].Text != "remote r2" {
		t.Fatalf("released r2, resources/read: %v, %d remote calls", err, remote.Load())
	}
	if _, err := f.Device("r2").ReadResource(client.LocalOnly(ctx), "mcp://x"); !errors.Is(err, client.ErrReleased) {
		t.Fatalf("released r2, local only resources/read: %v, want ErrReleased", err)
	}

	// A released device answers Tools and Network from the description
	// the holder gives; a held one from its own session.
	desc, err := f.Device("r1").Describe(nil)
	if err != nil || len(desc.Tools) == 0 || desc.ToolsHash == "" {
		t.Fatalf("describe held r1: %+v, %v", desc, err)
	}
	if _, err := f.Device("r2").Describe(nil); !errors.Is(err, client.ErrNotDescribed) {
		t.Fatalf("describe released r2: %v, want ErrNotDescribed", err)
	}
	if !f.KnownTools(desc.ToolsHash) {
		t.Fatalf("the fleet does not know r1's tool list %s", desc.ToolsHash)
	}
	byHash := desc
	byHash.Tools = nil
	if err := f.SetDescription("r2", byHash); err != nil {
		t.Fatal(err)
	}
	if !f.Device("r2").HasTool(netproto.ToolYangGet) || f.Device("r2").Described().IsZero() {
		t.Fatalf("r2 described by r1's: tools %d", len(f.Device("r2").Tools()))
	}
	if _, ok := f.Device("r2").Network(); !ok {
		t.Fatal("r2 described: no capabilities.network")
	}
	if err := f.SetDescription("r2", client.Description{Initialize: []byte("{")}); err == nil {
		t.Fatal("a description with a bad initialize result was taken")
	}
	unknown := client.Description{Initialize: desc.Initialize, ToolsHash: strings.Repeat("ab", 32)}
	if err := f.SetDescription("r2", unknown); err == nil {
		t.Fatal("a description naming an unknown tool list was taken")
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
