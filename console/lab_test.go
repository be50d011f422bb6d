package console_test

import (
	"testing"
	"time"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// testLab is the built-in simulated lab, each router served over
// Streamable HTTP by its own MCP server on a loopback port, as
// `netmcp lab up` does (lab/labtest: the devices answer only the lab's
// token, which the inventory names by file).
type testLab struct {
	lab  *sim.Lab
	topo topology.Topology
	inv  *inventory.Inventory
}

func newTestLab(t testing.TB) *testLab {
	t.Helper()
	l := labtest.New(t, labtest.Options{TelemetryInterval: sim.DefaultTelemetryInterval})
	return &testLab{lab: l.Sim(), topo: l.Topology(), inv: l.Inventory()}
}

// eventually polls cond every 20 ms until it holds or the time is up.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
