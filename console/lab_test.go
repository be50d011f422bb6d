package console_test

import (
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
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

// eventually waits until cond holds, within a deadline scaled to the
// machine's load (testwait).
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, within, what, func() (bool, string) { return cond(), "" })
}
