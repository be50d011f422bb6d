package gen

import (
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/lab/topology"
)

// Generate makes the network o chooses. It is a pure function of o: the
// same options give the same topology. The network is not verified here
// (Verify does that, in the simulator).
func Generate(o Options) (topology.Topology, error) {
	if err := o.Check(); err != nil {
		return topology.Topology{}, err
	}
	p := newPlan(o)
	p.placeLANs(p.layout())
	return p.build(), nil
}

// External tells whether a device of a generated network lies beyond the
// network's own: an upstream provider's router (isp1, isp2) or the
// provider's server (ext1, ext2). Faults go on the network's own devices
// and links, and on the links to the providers.
func External(name string) bool {
	for _, p := range []string{"isp", "ext"} {
		if rest, ok := strings.CutPrefix(name, p); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// WriteYAML writes topo as the lab's topology file, indented by two
// spaces as the built-in topology is.
func WriteYAML(w io.Writer, topo topology.Topology) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(topo); err != nil {
		return err
	}
	return enc.Close()
}
