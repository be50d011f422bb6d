package fault_test

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/fault"
	// The lab's backends bind their faults when initialised.
	_ "github.com/netmcp/netmcp/lab/real"
	_ "github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestEveryNameBound is the registry's check: every name of the catalog
// is bound with an Apply and a Clear on the simulator and on the real lab,
// or declared unsupported there with a reason. A name added to the
// catalog without a binding on each backend fails it.
func TestEveryNameBound(t *testing.T) {
	for _, backend := range boundBackends() {
		for _, spec := range topology.Catalog {
			t.Run(backend+"/"+spec.Name, func(t *testing.T) {
				built, reason, err := fault.Status(backend, spec.Name)
				if err != nil {
					t.Fatal(err)
				}
				if !built && reason == "" {
					t.Errorf("%s has no Apply and Clear on %s, nor a reason it is unsupported there", spec.Name, backend)
				}
				if built && reason != "" {
					t.Errorf("%s is both built and unsupported on %s (%s)", spec.Name, backend, reason)
				}
			})
		}
		if missing, err := fault.Missing(backend); err != nil || len(missing) > 0 {
			t.Errorf("Missing(%s) = %v, %v; want none", backend, missing, err)
		}
	}
	for _, b := range boundBackends() {
		if got := fault.Backends(); !slices.Contains(got, b) {
			t.Errorf("Backends() = %v, want %s among them", got, b)
		}
	}
}

// boundBackends are the backends built here: the real lab only on Linux.
func boundBackends() []string {
	if runtime.GOOS == "linux" {
		return []string{fault.Sim, fault.Real}
	}
	return []string{fault.Sim}
}

// TestUnknownNameRefused: a name outside the catalog is refused on every
// backend, and the refusal lists the catalog's names, sorted.
func TestUnknownNameRefused(t *testing.T) {
	known := strings.Join(topology.FaultNames(), ", ")
	if !slices.IsSorted(topology.FaultNames()) {
		t.Fatalf("the catalog's names are not sorted: %s", known)
	}
	for _, backend := range boundBackends() {
		_, _, err := fault.Status(backend, "no_such_fault")
		var ue *fault.UnknownError
		if !errors.As(err, &ue) || ue.Name != "no_such_fault" {
			t.Fatalf("Status(%s, no_such_fault) = %v, want an *UnknownError", backend, err)
		}
		if want := `fault "no_such_fault": unknown name (known: ` + known + ")"; err.Error() != want {
			t.Errorf("%s: %q, want %q", backend, err, want)
		}
	}
	if _, _, err := fault.Status("no_such_backend", "link_down"); err == nil || !strings.Contains(err.Error(), "known: ") {
		t.Errorf("an unknown backend = %v, want a refusal listing the known ones", err)
	}
	if _, err := fault.Spec("no_such_fault"); err == nil || !strings.Contains(err.Error(), "known: "+known) {
		t.Errorf("Spec(no_such_fault) = %v", err)
	}
}
