package fault_test

import (
	"context"
	"fmt"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// toyLab is a stand-in lab: the set of links that are down.
type toyLab struct{ down map[string]bool }

func (l *toyLab) linkDown(_ context.Context, f topology.Fault) error {
	l.down[f.Target] = true
	return nil
}

func (l *toyLab) linkUp(_ context.Context, f topology.Fault) error {
	delete(l.down, f.Target)
	return nil
}

// toyFaults is the toy lab's backend, created once and bound when its
// package is initialised, as lab/sim and lab/real do.
var toyFaults = registerToyFaults()

func registerToyFaults() *fault.Backend[*toyLab] {
	b := fault.NewBackend[*toyLab]("toy", "the toy lab")
	b.Register("link_down", fault.Impl[*toyLab]{Apply: (*toyLab).linkDown, Clear: (*toyLab).linkUp})
	b.Unsupported("link_detach", "its links have no carrier switch")
	return b
}

// A backend applies and clears faults through its bindings, and refuses
// what it does not build.
func Example() {
	lab := &toyLab{down: map[string]bool{}}
	ctx := context.Background()
	f, _ := topology.ParseFault("link_down r1:eth0")
	fmt.Println(toyFaults.Apply(ctx, lab, f), lab.down)
	fmt.Println(toyFaults.Clear(ctx, lab, f), lab.down)

	_, err := toyFaults.Lookup("link_detach")
	fmt.Println(err)
	// Output:
	// <nil> map[r1:eth0:true]
	// <nil> map[]
	// fault link_detach is not built on the toy lab: its links have no carrier switch (it builds link_down)
}
