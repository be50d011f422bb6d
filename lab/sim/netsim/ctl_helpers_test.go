package netsim

import (
	"os"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
	"gopkg.in/yaml.v3"
)

// defaultTopo reads the built-in lab, lab/sim/default.yaml, strictly.
func defaultTopo(t testing.TB) topology.Topology {
	t.Helper()
	b, err := os.ReadFile("../default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var topo topology.Topology
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&topo); err != nil {
		t.Fatalf("default.yaml: %v", err)
	}
	return topo
}

// devIndex returns the index of a device of topo.
func devIndex(t testing.TB, topo *topology.Topology, name string) *topology.Device {
	t.Helper()
	for i := range topo.Devices {
		if topo.Devices[i].Name == name {
			return &topo.Devices[i]
		}
	}
	t.Fatalf("no device %q", name)
	return nil
}

// ifaceOf returns an interface of a device of topo.
func ifaceOf(t testing.TB, topo *topology.Topology, dev, ifn string) *topology.Interface {
	t.Helper()
	d := devIndex(t, topo, dev)
	for i := range d.Interfaces {
		if d.Interfaces[i].Name == ifn {
			return &d.Interfaces[i]
		}
	}
	t.Fatalf("%s has no interface %q", dev, ifn)
	return nil
}
