package netsim

import (
	"os"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/lab/topology"
)

// labClock is a settable clock for the traffic tests.
type labClock struct{ t time.Time }

func (c *labClock) now() time.Time          { return c.t }
func (c *labClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *labClock                   { return &labClock{t: time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)} }

// defaultLab reads the simulator's built-in topology.
func defaultLab(t testing.TB) topology.Topology {
	t.Helper()
	b, err := os.ReadFile("../default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var topo topology.Topology
	if err := yaml.Unmarshal(b, &topo); err != nil {
		t.Fatal(err)
	}
	return topo
}

// clockedLab builds a network on a settable clock.
func clockedLab(t testing.TB, topo topology.Topology) (*Network, *labClock) {
	t.Helper()
	c := newClock()
	n, err := New(topo, Options{Seed: 1, Now: c.now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n, c
}

// withBGPBlock adds the bgp_acl_block ACL (TCP port 179 either way) inbound on an interface.
func withBGPBlock(topo topology.Topology, dev, ifname string) topology.Topology {
	for i := range topo.Devices {
		d := &topo.Devices[i]
		if d.Name != dev {
			continue
		}
		d.ACLs = append(d.ACLs, topology.ACL{Name: "NO-BGP", Rules: []topology.ACLEntry{
			{Seq: 10, Action: "deny", Protocol: "tcp", DstPort: 179},
			{Seq: 20, Action: "deny", Protocol: "tcp", SrcPort: 179},
			{Seq: 30, Action: "permit", Protocol: "ip"}}})
		for j := range d.Interfaces {
			if d.Interfaces[j].Name == ifname {
				d.Interfaces[j].IngressACL = "NO-BGP"
			}
		}
	}
	return topo
}
