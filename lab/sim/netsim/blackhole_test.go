package netsim

import (
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
)

// TestHostBlackholeConnect checks what Linux's tools print on a host whose
// route to the destination is a blackhole route: connect() fails with
// EINVAL, so ping and traceroute send nothing ("ping: connect: Invalid
// argument", exit 2; traceroute's "connect: Invalid argument"), while a
// router's ping into a discard route just times out.
func TestHostBlackholeConnect(t *testing.T) {
	topo := hostLab()
	editDevice(&topo, "h3", func(d *topology.Device) {
		d.Routes = append(d.Routes, topology.StaticRoute{Prefix: "10.0.12.0/30", Discard: true})
	})
	editDevice(&topo, "r3", func(d *topology.Device) {
		d.Routes = append(d.Routes, topology.StaticRoute{Prefix: "192.0.2.0/24", Discard: true})
	})
	n, err := New(topo, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := n.Ping(ProbeRequest{From: "h3", Destination: addr("10.0.12.1")})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Render(); got != "ping: connect: Invalid argument\n" || p.ExitCode() != 2 || len(p.Replies) != 0 {
		t.Errorf("ping from h3: exit %d, %d replies, output %q", p.ExitCode(), len(p.Replies), got)
	}
	tr, err := n.Traceroute(ProbeRequest{From: "h3", Destination: addr("10.0.12.1"), Protocol: "udp"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Render(); !strings.HasSuffix(got, "\nconnect: Invalid argument\n") {
		t.Errorf("traceroute from h3:\n%s", got)
	}
	p, err = n.Ping(ProbeRequest{From: "r3", Destination: addr("192.0.2.1")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "" || p.ExitCode() != 1 {
		t.Errorf("ping from r3 into its discard route: error %q, exit %d; want a time-out", p.Error, p.ExitCode())
	}
}
