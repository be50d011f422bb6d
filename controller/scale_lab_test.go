package controller_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
)

// TestRoutesReadWhereThePathGoes checks that the controller reads a
// router's routing table only where a check follows a path: none on a
// healthy chain of six routers, and only the routers between the two ends
// for a reachability check across half of it.
func TestRoutesReadWhereThePathGoes(t *testing.T) {
	topo, err := sim.ChainTopology(6)
	if err != nil {
		t.Fatal(err)
	}
	l, err := serve.Up(context.Background(), serve.Options{Topology: topo, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fleet, err := client.New(l.Inventory(), client.Options{CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := fleet.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	ctl := &controller.Controller{Fleet: fleet, Hosts: controller.HostsOf(topo)}
	ribReads := func(rep *controller.Report) []string {
		var out []string
		for _, c := range rep.Calls {
			if c.Tool == "network.yang.get" && c.Args["path"] == "/ietf-routing:routing" {
				out = append(out, c.Device)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, tc := range []struct {
		intent string
		want   []string
	}{
		{"what is wrong with the network?", nil},
		{"verify reachability between r1 and " + sim.GeneratedLoopback(3), []string{"r1", "r2", "r3"}},
	} {
		in, err := controller.ParseIntent(tc.intent)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ctl.Ask(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.RootCauses) > 0 {
			t.Errorf("%q: causes %v on a healthy chain", tc.intent, rep.RootCauses)
		}
		if got := ribReads(rep); !slices.Equal(got, tc.want) {
			t.Errorf("%q: routing tables read on %v, want %v", tc.intent, got, tc.want)
		}
	}
}
