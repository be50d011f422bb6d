package sim

import (
	"testing"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestSimFaultBindings: the simulator binds every catalog name, as a
// configuration fault exactly when the network model does not hold it in
// its fault list (netsim.IsRuntimeFault), so a record's kind and the
// model's validation agree with the binding.
func TestSimFaultBindings(t *testing.T) {
	for _, spec := range topology.Catalog {
		t.Run(spec.Name, func(t *testing.T) {
			impl, err := simFaults.Lookup(spec.Name)
			if err != nil {
				t.Fatal(err)
			}
			if impl.Config == netsim.IsRuntimeFault(spec.Name) {
				t.Errorf("bound with Config %v, but netsim.IsRuntimeFault = %v", impl.Config, netsim.IsRuntimeFault(spec.Name))
			}
		})
	}
	if got, want := len(simFaults.Names()), len(topology.Catalog); got != want {
		t.Errorf("%d names bound, want the catalog's %d", got, want)
	}
}
