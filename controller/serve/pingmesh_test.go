package serve_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
)

// meshOf runs the controller's pingmesh on the lab and logs its table.
func meshOf(t *testing.T, l *testLab, o controller.PingmeshOptions) *controller.Pingmesh {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, err := l.ctl.Pingmesh(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	m.WriteText(&b)
	t.Log("\n" + b.String())
	return m
}

// TestPingmesh: on the served lab, the healthy matrix is all ok; with a
// link down the pairs across it are unreachable and the rest ok; a
// source that refuses every diagnostic gives unknown pairs, never loss.
// h1 sits in r1's VRF mgmt: only r1 pings it, in that VRF, and it pings
// no one (no other target is in its VRF).
func TestPingmesh(t *testing.T) {
	all := []string{"r1", "r2", "r3", "h1", "h3"}
	var pairs [][2]string
	for _, s := range []string{"r1", "r2", "r3", "h3"} {
		for _, d := range []string{"r1", "r2", "r3", "h3"} {
			if s != d {
				pairs = append(pairs, [2]string{s, d})
			}
		}
	}
	pairs = append(pairs, [2]string{"r1", "h1"})
	// side is the part of the line r1 — r2 — r3 each device is in once
	// the r2 — r3 link is down.
	side := map[string]int{"r1": 0, "r2": 0, "h1": 0, "r3": 1, "h3": 1}
	tests := []struct {
		name   string
		faults []string
		refuse string // a device whose server refuses every diagnostic
		want   func(src, dst string) controller.PingStatus
	}{
		{name: "healthy", want: func(string, string) controller.PingStatus { return controller.PingOK }},
		{name: "link_down", faults: []string{"link_down r2:GigabitEthernet0/0/0/1"},
			want: func(src, dst string) controller.PingStatus {
				if side[src] != side[dst] {
					return controller.PingUnreachable
				}
				return controller.PingOK
			}},
		{name: "refused", refuse: "r2",
			want: func(src, _ string) controller.PingStatus {
				if src == "r2" {
					return controller.PingUnknown
				}
				return controller.PingOK
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLabRefusing(t, tc.refuse, tc.faults...)
			m := meshOf(t, l, controller.PingmeshOptions{Count: 3, Backoff: 5 * time.Millisecond})
			if !slices.Equal(m.Sources, all) || len(m.Destinations) != len(all) || len(m.Pairs) != len(pairs) {
				t.Fatalf("sources %v, destinations %v, %d pairs", m.Sources, m.Destinations, len(m.Pairs))
			}
			for _, p := range m.Pairs {
				if !slices.Contains(pairs, [2]string{p.Source, p.Destination}) {
					t.Errorf("pair %s -> %s", p.Source, p.Destination)
				}
				if (p.Destination == "h1") != (p.VRF == "mgmt") {
					t.Errorf("%s -> %s in VRF %q", p.Source, p.Destination, p.VRF)
				}
				want := tc.want(p.Source, p.Destination)
				if p.Status != want {
					t.Errorf("%s -> %s (%s): %s (%s), want %s", p.Source, p.Destination, p.Address, p.Status, p.Detail, want)
				}
				switch p.Status {
				case controller.PingOK:
					if p.Sent != 3 || p.Received != 3 || p.LossPercent != 0 || p.RTTAvgMS == nil || p.Attempts != 1 {
						t.Errorf("%s -> %s: %+v", p.Source, p.Destination, p)
					}
				case controller.PingUnknown:
					if p.Sent != 0 || p.LossPercent != 0 || p.Attempts != controller.DefaultMeshRetries+1 ||
						!strings.Contains(p.Detail, "too many diagnostics running") {
						t.Errorf("%s -> %s: %+v", p.Source, p.Destination, p)
					}
				case controller.PingUnreachable:
					if p.LossPercent != 100 || p.Received != 0 {
						t.Errorf("%s -> %s: %+v", p.Source, p.Destination, p)
					}
				}
			}
		})
	}
}

// TestPingmeshFilters: sources and destinations (by name or address)
// narrow the matrix; a source not in the fleet is an error.
func TestPingmeshFilters(t *testing.T) {
	l := newTestLab(t)
	m := meshOf(t, l, controller.PingmeshOptions{Sources: []string{"r2"}, Destinations: []string{"h3", "r1"}, Count: 1})
	if len(m.Pairs) != 2 || m.Pairs[0].Destination != "r1" || m.Pairs[1].Destination != "h3" || m.Counts.OK != 2 {
		t.Fatalf("pairs %+v", m.Pairs)
	}
	addr := m.Pairs[1].Address
	m = meshOf(t, l, controller.PingmeshOptions{Sources: []string{"r1"}, Destinations: []string{addr}, Count: 1})
	if len(m.Pairs) != 1 || m.Pairs[0].Destination != "h3" {
		t.Fatalf("pairs %+v", m.Pairs)
	}
	if _, err := l.ctl.Pingmesh(context.Background(), controller.PingmeshOptions{Sources: []string{"nope"}}); err == nil {
		t.Fatal("an unknown source is accepted")
	}
}

// TestPingmeshTool: the pingmesh tool over an MCP session returns the
// matrix as structuredContent, with its input schema, and the table as
// text.
func TestPingmeshTool(t *testing.T) {
	l := newTestLab(t, "link_down r2:GigabitEthernet0/0/0/1")
	srv := serve.New(l.ctl, controller.Store{}, "test")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := inMemoryHost(t, ctx, srv, "host", nil, nil)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == serve.ToolPingmesh })
	if i < 0 {
		t.Fatal("no pingmesh tool")
	}
	props, _ := remarshalMap(t, tools.Tools[i].InputSchema)["properties"].(map[string]any)
	for _, k := range []string{"sources", "destinations", "count", "timeout"} {
		if props[k] == nil {
			t.Errorf("input schema has no %s: %v", k, props)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolPingmesh, Arguments: map[string]any{
		"sources": []string{"h3", "r1"}, "destinations": []string{"h1", "h3", "r1"}, "count": 2, "timeout": 5}})
	if err != nil || res.IsError {
		t.Fatalf("pingmesh: %v %+v", err, res)
	}
	var m controller.Pingmesh
	remarshal(t, res.StructuredContent, &m)
	want := map[[2]string]controller.PingStatus{{"h3", "r1"}: controller.PingUnreachable, {"r1", "h1"}: controller.PingOK, {"r1", "h3"}: controller.PingUnreachable}
	if len(m.Pairs) != len(want) || m.Count != 2 {
		t.Fatalf("matrix %+v", m)
	}
	for _, p := range m.Pairs {
		if want[[2]string{p.Source, p.Destination}] != p.Status {
			t.Errorf("%s -> %s: %s", p.Source, p.Destination, p.Status)
		}
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "SOURCE") || !strings.Contains(text, "unreachable") {
		t.Errorf("text %q", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: serve.ToolPingmesh, Arguments: map[string]any{"sources": []string{"nope"}}})
	if err == nil && !res.IsError {
		t.Fatalf("an unknown source is accepted: %+v", res)
	}
}

// remarshalMap decodes v's JSON as an object.
func remarshalMap(t *testing.T, v any) map[string]any {
	t.Helper()
	var m map[string]any
	remarshal(t, v, &m)
	return m
}

// TestSweepFirstLook: with SweepMesh the sweep's first step measures the
// pingmesh into the report's facts and the diagnosis is unchanged.
func TestSweepFirstLook(t *testing.T) {
	l := newTestLab(t)
	l.ctl.SweepMesh = true
	rep := l.ask(t, "what is wrong with the network?")
	m, ok := rep.Facts["pingmesh"].(*controller.Pingmesh)
	if !ok || m.Counts.Pairs == 0 || m.Counts.OK != m.Counts.Pairs || rep.IsAnomaly {
		t.Fatalf("facts %v, anomaly %v: %s", rep.Facts, rep.IsAnomaly, rep.Diagnosis)
	}
	if !strings.Contains(rep.Steps[2].Title, "pingmesh") { // after reading the routers and the hosts
		t.Errorf("steps %+v", rep.Steps)
	}
}
