package sim

import (
	"context"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
)

// TestOpenURL opens devices by URL: two devices of one process share one lab.
func TestOpenURL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r1, err := device.Open(ctx, "sim://r1", device.Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r3, err := device.Open(ctx, "sim://r3", device.Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := r3.(device.Configurer).Configure(ctx, alice, []string{"interface GigabitEthernet0/0/1", "shutdown"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r3.(device.Configurer).Commit(ctx, alice, device.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := r1.(device.Diagnoser).Diagnose(ctx, diag.Request{Tool: "ping", Destination: "10.3.0.10", Count: 1, IntervalMs: 1}, nil)
	if err != nil || r.ExitCode == 0 {
		t.Errorf("r1 still reaches h3 after r3 shut its LAN port: %v\n%s", err, r.Output)
	}
	r1.Close()
	r3.Close()
	// A host opens as a read-only linux device; an unknown name does not open.
	h1, err := device.Open(ctx, "sim://h1", device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, cfg := h1.(device.Configurer); cfg || h1.Info().CLIDialect != DialectLinux {
		t.Errorf("sim://h1: %+v (configurable %v)", h1.Info(), cfg)
	}
	h1.Close()
	if _, err := device.Open(ctx, "sim://h9", device.Options{}); err == nil {
		t.Error("an unknown device opened")
	}
	// The commit survives in the state directory.
	again, err := device.Open(ctx, "sim://r3", device.Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	v, err := again.Get(ctx, device.Running, "/openconfig-interfaces:interfaces/interface[name='GigabitEthernet0/0/1']/config/enabled")
	if err != nil || v != false {
		t.Errorf("after reopen enabled = %v, %v", v, err)
	}
}
