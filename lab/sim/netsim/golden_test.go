package netsim

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenCase is one rendered output checked against testdata/NAME.
type goldenCase struct {
	name   string
	faults []topology.Fault
	render func(t *testing.T, n *Network) string
}

func pingText(req ProbeRequest) func(*testing.T, *Network) string {
	return func(t *testing.T, n *Network) string {
		o, err := n.Ping(req)
		if err != nil {
			t.Fatal(err)
		}
		return o.Render()
	}
}

func traceText(req ProbeRequest, tracepath bool) func(*testing.T, *Network) string {
	return func(t *testing.T, n *Network) string {
		o, err := n.Traceroute(req)
		if err != nil {
			t.Fatal(err)
		}
		if tracepath {
			return o.RenderTracepath()
		}
		return o.Render()
	}
}

var mtuFault = topology.Fault{Kind: topology.FaultMTU, Interface: "r2:" + g1, MTU: 1400}

// goldenCases are the rendered outputs kept in testdata/.
var goldenCases = []goldenCase{
	{name: "ping-ok.out", render: pingText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 5})},
	{name: "ping-source.out", render: pingText(ProbeRequest{From: "r1", Source: "Loopback0", Destination: addr("3.3.3.3"), Count: 2})},
	{name: "ping6-ok.out", render: pingText(ProbeRequest{From: "h1", Destination: addr("2001:db8::3"), Count: 3})},
	{name: "ping-host-unreachable.out", render: pingText(ProbeRequest{From: "h1", Destination: addr("10.0.3.99"), Count: 3})},
	{name: "ping-local-unreachable.out", render: pingText(ProbeRequest{From: "r1", Destination: addr("10.0.1.99"), Count: 3})},
	{name: "ping-net-unreachable.out", render: pingText(ProbeRequest{From: "h1", Destination: addr("172.16.0.1"), Count: 2})},
	{name: "ping-no-route.out", render: pingText(ProbeRequest{From: "r1", Destination: addr("172.16.0.1")})},
	{name: "ping-frag-needed.out", faults: []topology.Fault{mtuFault},
		render: pingText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 2, Size: 1472, DontFragment: true})},
	{name: "ping-ttl-exceeded.out", render: pingText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 2, TTL: 2})},
	{name: "ping-loss.out", faults: []topology.Fault{{Kind: topology.FaultLoss, Link: "r1:" + g0, Percent: 30}},
		render: pingText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Count: 10})},
	{name: "traceroute-ok.out", render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, false)},
	{name: "traceroute6-ok.out", render: traceText(ProbeRequest{From: "h1", Destination: addr("2001:db8::3")}, false)},
	{name: "traceroute-host-unreachable.out", render: traceText(ProbeRequest{From: "h1", Destination: addr("10.0.3.99")}, false)},
	{name: "traceroute-net-unreachable.out", render: traceText(ProbeRequest{From: "h1", Destination: addr("172.16.0.1")}, false)},
	{name: "traceroute-acl-drop.out", faults: []topology.Fault{{Kind: topology.FaultACLDrop, Interface: "r2:" + g0}},
		render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), MaxHops: 6}, false)},
	{name: "traceroute-loss.out", faults: []topology.Fault{{Kind: topology.FaultLoss, Link: "r2:" + g0, Percent: 40}},
		render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, false)},
	{name: "traceroute-frag.out", faults: []topology.Fault{mtuFault},
		render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), Size: 1500, DontFragment: true}, false)},
	{name: "traceroute-no-route.out", render: traceText(ProbeRequest{From: "r1", Destination: addr("172.16.0.1")}, false)},
	{name: "tracepath-ok.out", render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, true)},
	{name: "tracepath-mtu.out", faults: []topology.Fault{mtuFault},
		render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3")}, true)},
	{name: "tracepath-acl-drop.out", faults: []topology.Fault{{Kind: topology.FaultACLDrop, Interface: "r2:" + g0}},
		render: traceText(ProbeRequest{From: "h1", Destination: addr("3.3.3.3"), MaxHops: 4}, true)},
	{name: "tracepath6-ok.out", render: traceText(ProbeRequest{From: "h1", Destination: addr("2001:db8::3")}, true)},
}

func TestGolden(t *testing.T) {
	for _, gc := range goldenCases {
		t.Run(gc.name, func(t *testing.T) {
			got := gc.render(t, newLab(t, lineLab(), gc.faults...))
			path := filepath.Join("testdata", gc.name)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("rendered text differs from %s\n--- got ---\n%s--- want ---\n%s", path, got, want)
			}
			// Deterministic: a second fresh network renders the same bytes.
			if again := gc.render(t, newLab(t, lineLab(), gc.faults...)); again != got {
				t.Errorf("second run differs:\n%s", again)
			}
		})
	}
}
