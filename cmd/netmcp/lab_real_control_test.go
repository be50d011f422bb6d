//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/serve"
)

// TestLabUpRealFaultErrors checks that `lab up --real` refuses a bad
// --fault, and one the real lab does not build (naming those it builds),
// before anything starts; root or not.
func TestLabUpRealFaultErrors(t *testing.T) {
	for _, tc := range []struct{ fault, want string }{
		{"nope r1", "unknown name"},
		{"link_down r9:Gi0", `no device "r9"`},
		{"ospf_neighbor_missing r1:GigabitEthernet0/0/0", "not built on the real lab yet (it builds bgp_acl_block, "},
		{"arp_acl_block r1:GigabitEthernet0/0/0", "not built on the real lab"},
	} {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := runLabCmd(ctx, "up", "--real", "--state-dir", dir, "--inventory", filepath.Join(dir, "inv.yaml"), "--fault", tc.fault)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--real --fault %q: %v, want an error with %q", tc.fault, err, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, serve.ControlFile)); err == nil {
			t.Errorf("--real --fault %q: the lab started", tc.fault)
		}
	}
}
