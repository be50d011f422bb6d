package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller/cluster"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
)

// startController starts `netmcp controller serve --inventory inv` (no
// cluster) as a child process and connects an MCP host to it.
func startController(t *testing.T, inv string) *replicaProc {
	t.Helper()
	return startControllerProc(t, "single", []string{"controller", "serve", "--inventory", inv, "--listen", "127.0.0.1:0", "--reports", t.TempDir()})
}

// listed is the sorted names list_devices gives through r.
func listed(ctx context.Context, r *replicaProc) ([]string, error) {
	res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_devices"})
	if err != nil {
		return nil, err
	}
	var out struct{ Devices []struct{ Name string } }
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	var names []string
	for _, d := range out.Devices {
		names = append(names, d.Name)
	}
	sort.Strings(names)
	return names, nil
}

// hangup sends SIGHUP to r and waits until it reports the outcome
// (containing want) on stderr.
func hangup(t *testing.T, r *replicaProc, want string) {
	t.Helper()
	before := strings.Count(r.stderr.String(), want)
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 20*time.Second, r.name+" reports "+want, func() (bool, string) {
		s := r.stderr.String()
		return strings.Count(s, want) > before, s
	})
}

// notFound checks that a call on device through r is refused as outside
// the fleet.
func notFound(ctx context.Context, r *replicaProc, device string) error {
	res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{
		"device": device, "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": "/openconfig-system:system/config/hostname"}}})
	text := ""
	if err != nil {
		text = err.Error()
	} else if res.IsError && len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if want := fmt.Sprintf("no device %q in the fleet", device); !strings.Contains(text, want) {
		return fmt.Errorf("call on %s through %s: %v %+v, want %q", device, r.name, err, res, want)
	}
	return nil
}

// TestControllerInventoryReload: `controller serve` takes an inventory
// change on SIGHUP, alone and as replicas of a cluster: an added device
// is listed and answers, a removed one is refused as outside the fleet,
// an inventory that does not validate is refused and changes nothing,
// and the replicas converge on the new device set, each device held once.
func TestControllerInventoryReload(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(3*time.Minute))
	defer cancel()
	dir := t.TempDir()
	lab, err := serve.Up(ctx, serve.Options{Topology: sim.DefaultTopology(), StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	full, err := inventory.Load(filepath.Join(dir, serve.InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(full.Devices, func(i, j int) bool { return full.Devices[i].Name < full.Devices[j].Name })
	n := len(full.Devices)
	first, last := full.Devices[0].Name, full.Devices[n-1].Name
	without := func(skip string) (*inventory.Inventory, []string) {
		inv := *full
		inv.Devices = nil
		var names []string
		for _, d := range full.Devices {
			if d.Name != skip {
				inv.Devices = append(inv.Devices, d)
				names = append(names, d.Name)
			}
		}
		return &inv, names
	}
	before, beforeNames := without(last)
	after, afterNames := without(first)
	write := func(file string, inv *inventory.Inventory) {
		t.Helper()
		if err := inventory.Save(file, inv); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("single", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "inventory.yaml")
		write(file, before)
		c := startController(t, file)
		if got, err := listed(ctx, c); err != nil || !slices.Equal(got, beforeNames) {
			t.Fatalf("list_devices %v (%v), want %v", got, err, beforeNames)
		}
		write(file, after)
		hangup(t, c, "reloaded")
		if !strings.Contains(c.stderr.String(), "added "+last+"; removed "+first) {
			t.Errorf("the reload does not say what changed:\n%s", c.stderr.String())
		}
		if got, err := listed(ctx, c); err != nil || !slices.Equal(got, afterNames) {
			t.Fatalf("list_devices after the reload %v (%v), want %v", got, err, afterNames)
		}
		testwait.Until(t, 30*time.Second, "the added device answers", func() (bool, string) {
			err := readHostname(ctx, c, last)
			return err == nil, fmt.Sprint(err)
		})
		if err := notFound(ctx, c, first); err != nil {
			t.Error(err)
		}

		// A duplicate device: refused, nothing changes.
		url := after.Devices[0].URL
		data := fmt.Sprintf("devices:\n  - name: %s\n    url: %s\n  - name: %s\n    url: %s\n", last, url, last, url)
		if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		hangup(t, c, "refused, nothing changed")
		if !strings.Contains(c.stderr.String(), "duplicate device") {
			t.Errorf("the refusal does not say why:\n%s", c.stderr.String())
		}
		if got, err := listed(ctx, c); err != nil || !slices.Equal(got, afterNames) {
			t.Fatalf("list_devices after a refused inventory %v (%v), want %v", got, err, afterNames)
		}
		if err := readHostname(ctx, c, last); err != nil {
			t.Errorf("after a refused inventory: %v", err)
		}
	})

	t.Run("cluster", func(t *testing.T) {
		natsURL := startTestNATS(t)
		file := filepath.Join(t.TempDir(), "inventory.yaml")
		write(file, before)
		reps := []*replicaProc{startReplica(t, natsURL, file, "ia"), startReplica(t, natsURL, file, "ib")}
		ownedOnce(t, ctx, reps, beforeNames, "every device held once")
		write(file, after)
		hangup(t, reps[0], "reloaded")
		// One replica has the new inventory, the other not yet: status
		// says so.
		testwait.Until(t, 20*time.Second, "status warns of two inventories", func() (bool, string) {
			out, err := exec.CommandContext(ctx, netmcpBinary(t), "controller", "status", "--cluster", natsURL).Output()
			return err == nil && strings.Contains(string(out), "2 different inventories"), string(out)
		})
		hangup(t, reps[1], "reloaded")
		ownedOnce(t, ctx, reps, afterNames, "every device of the new inventory held once")
		for _, r := range reps {
			if got, err := listed(ctx, r); err != nil || !slices.Equal(got, afterNames) {
				t.Fatalf("%s lists %v (%v), want %v", r.name, got, err, afterNames)
			}
			if err := readHostname(ctx, r, last); err != nil {
				t.Errorf("added device: %v", err)
			}
			if err := notFound(ctx, r, first); err != nil {
				t.Error(err)
			}
		}
		out, err := exec.CommandContext(ctx, netmcpBinary(t), "controller", "status", "--cluster", natsURL, "--json").Output()
		if err != nil {
			t.Fatal(err)
		}
		var st cluster.Status
		if err := json.Unmarshal(out, &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Inventories) != 1 || st.Inventories[0] != inventoryDigest(after) {
			t.Errorf("status inventories %v, want the new one %s", st.Inventories, inventoryDigest(after))
		}
		testwait.Until(t, 30*time.Second, "the removed device's lease handed back", func() (bool, string) {
			out, err := exec.CommandContext(ctx, netmcpBinary(t), "controller", "status", "--cluster", natsURL, "--json").Output()
			if err != nil {
				return false, err.Error()
			}
			var st cluster.Status
			if err := json.Unmarshal(out, &st); err != nil {
				return false, err.Error()
			}
			return st.Devices == len(afterNames), string(out)
		})
	})
}
