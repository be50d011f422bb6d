package console_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/console"
	_ "github.com/netmcp/netmcp/device/gnmi" // gnmi:// URLs of the lab's inventory
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestConsoleFollowsGNMI: with the routers reached over gNMI and polling
// too slow to matter, a link taken down shows on the map from the
// routers' ON_CHANGE streams alone.
func TestConsoleFollowsGNMI(t *testing.T) {
	l := labtest.New(t, labtest.Options{GNMI: true})
	inv := l.Inventory()
	topo := l.Topology()
	c, err := console.New(console.Options{Inventory: inv, Topology: &topo, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.FollowChanges(nil)
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	hc := loginWith(t, strings.Replace(c.LoginURL(), "/login", srv.URL+"/login", 1))
	state := func() stateMsg { return mapState(t, hc, srv.URL) }
	eventually(t, 10*time.Second, "r1 read once", func() bool { return state().Nodes["r1"]["s"] == "up" })
	f, err := topology.ParseFault("link_down r1:GigabitEthernet0/0/0")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Sim().InjectFault(f); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, 5*time.Second, "link r1-r2 down from the change stream", func() bool {
		return linkShows(state(), "r1:GigabitEthernet0/0/0", "down", "admin-down")
	})
	t.Logf("fault to red link over ON_CHANGE: %v", time.Since(start))
}
