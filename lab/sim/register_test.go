package sim

import (
	"context"
	"strings"
	"testing"
	"time"

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

// TestOpenURLParams: the URL's query gives the driver's parameters, as
// Options.Params does; an unknown parameter, one given twice, a bad
// realtime or commitDelay value or a URL contradicting the options is
// refused.
func TestOpenURLParams(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		url      string
		params   map[string]string
		realtime bool
		delay    time.Duration
		err      string
	}{
		{url: "sim://r1"},
		{url: "sim://r1?realtime=1", realtime: true},
		{url: "sim://r1?realtime=true", realtime: true},
		{url: "sim://r1?realtime=0"},
		{url: "sim:r1?realtime=1", realtime: true},
		{url: "sim://h1?realtime=1", realtime: true},
		{url: "sim://r1", params: map[string]string{"realtime": "1"}, realtime: true},
		{url: "sim://r1?realtime=1", params: map[string]string{"realtime": "1", "other": "x"}, realtime: true},
		{url: "sim://r1?commitDelay=1500ms", delay: 1500 * time.Millisecond},
		{url: "sim://r1?commitDelay=soon", err: `commitDelay="soon" of r1: want a duration from 0s to 1h`},
		{url: "sim://r1?commitDelay=-1s", err: `commitDelay="-1s" of r1`},
		{url: "sim://r1?anything=1", err: `unknown URL parameter "anything" of r1 (known: commitDelay, realtime, topology)`},
		{url: "sim://r1?realtime=1&realtime=1", err: `"realtime" of r1 given 2 times`},
		{url: "sim://r1?realtime=yes", err: `realtime="yes" of r1: want 1, true, 0 or false`},
		{url: "sim://r1?realtime=1", params: map[string]string{"realtime": "0"}, err: `"realtime" of r1 is "1" in the URL but "0" in the options`},
		{url: "sim://r1?topology=/nonexistent.yaml", err: "nonexistent.yaml"},
		{url: "sim://r1?realtime=%zz", err: "query of the device URL for r1"},
	} {
		t.Run(tt.url, func(t *testing.T) {
			d, err := device.Open(ctx, tt.url, device.Options{Params: tt.params})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var lab *Lab
			switch o := d.(type) {
			case *opened:
				lab = o.lab
			case *openedHost:
				lab = o.HostDriver.lab
			}
			if lab == nil || lab.opts.Realtime != tt.realtime || lab.opts.CommitDelay != tt.delay {
				t.Errorf("%T: lab %+v, want realtime %v, commit delay %v", d, lab.opts, tt.realtime, tt.delay)
			}
		})
	}
}
