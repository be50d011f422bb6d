// Package sim is the simulated device driver, the embedded default on which
// every netmcp feature runs without any gear. A Lab is a whole simulated
// network (package netsim) built from a topology; each router or switch of
// the lab is a Driver implementing device.Driver, device.Configurer,
// device.FileStore, device.Telemetry and device.Diagnoser. Configuration
// lives in RFC 7951 trees (docs/datamodel.md) kept by package configstore;
// every commit is turned back into the device's topology and fed to the
// network model, so an edit that shuts an interface changes what ping says.
//
// Devices are opened by URL as "sim://r1" (device.Open), with the URL's
// query or Options.Params giving "topology", a topology YAML file
// (default: the embedded default.yaml), and "realtime=1" (diagnostics
// paced like the real tools), and Options.StateDir/<device> as the
// device's state directory.
package sim

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/lab/topology"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultTopology returns the embedded default topology: routers r1 — r2 —
// r3 in a line with host LANs behind r1 (h1) and r3 (h3). It carries every
// fact the MCP-NET draft's section 8 walk-through reads on r1.
func DefaultTopology() topology.Topology {
	t, err := ParseTopology(defaultYAML)
	if err != nil {
		panic("sim: embedded default.yaml is invalid: " + err.Error())
	}
	return t
}

// LoadTopology reads a topology YAML file; "" returns DefaultTopology.
// Unknown fields are errors naming their line.
func LoadTopology(path string) (topology.Topology, error) {
	if path == "" {
		return DefaultTopology(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return topology.Topology{}, fmt.Errorf("sim: read topology: %w", err)
	}
	t, err := ParseTopology(data)
	if err != nil {
		return topology.Topology{}, fmt.Errorf("sim: topology %s: %w", path, err)
	}
	return t, nil
}

// ParseTopology decodes topology YAML strictly: an unknown field, a
// duplicate key or a second document is an error with its line.
func ParseTopology(data []byte) (topology.Topology, error) {
	var t topology.Topology
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		if errors.Is(err, io.EOF) {
			return t, errors.New("empty topology document")
		}
		return t, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return t, errors.New("topology YAML holds more than one document")
	}
	if len(t.Devices) == 0 {
		return t, errors.New("topology has no devices")
	}
	for i := range t.Devices {
		if t.Devices[i].Kind == "" {
			t.Devices[i].Kind = topology.KindRouter
		}
	}
	return t, nil
}
