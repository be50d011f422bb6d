package suite

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/topology"
)

// Truth is a case's ground truth in the NIKA benchmark's three fields.
type Truth struct {
	IsAnomaly bool `yaml:"is_anomaly" json:"is_anomaly"`
	// FaultyDevices are the devices the faults concern, sorted.
	FaultyDevices []string `yaml:"faulty_devices" json:"faulty_devices"`
	// RootCauseName are the fault names, sorted.
	RootCauseName []string `yaml:"root_cause_name" json:"root_cause_name"`
}

// Case is one incident on one generated network: no fault (a healthy
// case), one, or two at once.
type Case struct {
	// ID names the case: the network's name and a number.
	ID string `yaml:"id" json:"id"`
	// Network is the generated network the case runs on.
	Network gen.Options `yaml:"network" json:"network"`
	// Faults are the injected faults, as written after --fault.
	Faults []string `yaml:"faults,omitempty" json:"faults,omitempty"`
	Truth  Truth    `yaml:"truth" json:"truth"`
	// Symptoms are the first few failed checks the faults caused in the
	// simulator, and SymptomCount how many there were.
	Symptoms     []string `yaml:"symptoms,omitempty" json:"symptoms,omitempty"`
	SymptomCount int      `yaml:"symptom_count,omitempty" json:"symptom_count,omitempty"`
}

// ParsedFaults returns the case's faults parsed.
func (c Case) ParsedFaults() ([]topology.Fault, error) {
	var out []topology.Fault
	for _, w := range c.Faults {
		f, err := topology.ParseFault(w)
		if err != nil {
			return nil, fmt.Errorf("suite: case %s: %w", c.ID, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// Topology returns the case's network with its faults in the topology's
// fault list, as `netmcp lab up --topology` starts it.
func (c Case) Topology() (topology.Topology, error) {
	topo, err := gen.Generate(c.Network)
	if err != nil {
		return topology.Topology{}, err
	}
	topo.Faults, err = c.ParsedFaults()
	return topo, err
}

// Unseen is a fault name that could not be made visible on a network.
type Unseen struct {
	Name    string `yaml:"name" json:"name"`
	Network string `yaml:"network" json:"network"`
	// Tried are the faults tried, and Reason why none was kept.
	Tried  []string `yaml:"tried" json:"tried"`
	Reason string   `yaml:"reason" json:"reason"`
}

// Suite is a generated fault suite.
type Suite struct {
	// Seed is the seed the suite was generated with.
	Seed  int64  `yaml:"seed" json:"seed"`
	Cases []Case `yaml:"cases" json:"cases"`
	// Unseen are the fault names left out, per network.
	Unseen []Unseen `yaml:"unseen,omitempty" json:"unseen,omitempty"`
}

// Names lists the fault names the suite's cases inject, sorted.
func (s *Suite) Names() []string {
	var out []string
	for _, c := range s.Cases {
		out = append(out, c.Truth.RootCauseName...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// WriteYAML writes the suite as YAML.
func (s *Suite) WriteYAML(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return err
	}
	return enc.Close()
}

// WriteJSON writes the suite as indented JSON.
func (s *Suite) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Read reads a suite written as YAML or JSON and checks its cases'
// networks and faults.
func Read(r io.Reader) (*Suite, error) {
	var s Suite
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	for _, c := range s.Cases {
		if err := c.Network.Check(); err != nil {
			return nil, fmt.Errorf("suite: case %s: %w", c.ID, err)
		}
		if _, err := c.ParsedFaults(); err != nil {
			return nil, err
		}
	}
	return &s, nil
}
