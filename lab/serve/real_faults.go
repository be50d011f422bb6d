//go:build linux

package serve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// realFaultTimeout bounds one fault's injection or clearing on the real
// lab (clearing waits for the adjacencies to form again).
const realFaultTimeout = 90 * time.Second

// realFaultLab gives the real lab the fault list of the control endpoint
// (faultLab): ids f1, f2, ... over reallab.Lab's InjectFault/ClearFault.
type realFaultLab struct {
	lab  *reallab.Lab
	mu   sync.Mutex
	next int
	list []ActiveFault
}

var _ faultLab = (*realFaultLab)(nil)

// Inject applies f to the real lab and records it.
func (r *realFaultLab) Inject(f topology.Fault) (ActiveFault, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	words := f.String()
	for _, a := range r.list {
		if a.Words == words {
			return ActiveFault{}, fmt.Errorf("fault %q is already injected as %s", words, a.ID)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), realFaultTimeout)
	defer cancel()
	if err := r.lab.InjectFault(ctx, f); err != nil {
		return ActiveFault{}, fmt.Errorf("real lab: %w", err)
	}
	r.next++
	kind := sim.FaultRuntime
	if reallab.ConfigFault(f.Name) {
		kind = sim.FaultConfig
	}
	dev := f.Target
	if d, _, ok := topology.SplitEnd(f.Target); ok {
		dev = d
	}
	a := ActiveFault{ID: fmt.Sprintf("f%d", r.next), Words: words, Kind: kind, Devices: []string{dev}, Fault: f}
	r.list = append(r.list, a)
	return a, nil
}

// ClearFault undoes the fault with that id or those words.
func (r *realFaultLab) ClearFault(idOrWords string) (ActiveFault, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := strings.TrimSpace(idOrWords)
	i := slices.IndexFunc(r.list, func(a ActiveFault) bool { return a.ID == s || a.Words == s })
	if i < 0 && s != "" {
		if f, err := topology.ParseFault(s); err == nil {
			i = slices.IndexFunc(r.list, func(a ActiveFault) bool { return a.Words == f.String() })
		}
	}
	if i < 0 {
		if len(r.list) == 0 {
			return ActiveFault{}, fmt.Errorf("real lab: no fault %q: no fault is injected", idOrWords)
		}
		var ids []string
		for _, a := range r.list {
			ids = append(ids, a.ID+" ("+a.Words+")")
		}
		return ActiveFault{}, fmt.Errorf("real lab: no fault %q (injected: %s)", idOrWords, strings.Join(ids, ", "))
	}
	a := r.list[i]
	ctx, cancel := context.WithTimeout(context.Background(), realFaultTimeout)
	defer cancel()
	if err := r.lab.ClearFault(ctx, a.Fault); err != nil {
		return ActiveFault{}, fmt.Errorf("real lab: clearing %s: %w", a.ID, err)
	}
	r.list = slices.Delete(r.list, i, i+1)
	a.Note = "cleared"
	return a, nil
}

// ClearFaults undoes every fault, newest first; one that fails to clear
// stays listed.
func (r *realFaultLab) ClearFaults() {
	r.mu.Lock()
	ids := make([]string, len(r.list))
	for i, a := range r.list {
		ids[i] = a.ID
	}
	r.mu.Unlock()
	for i := len(ids) - 1; i >= 0; i-- {
		_, _ = r.ClearFault(ids[i])
	}
}

// Faults lists the injected faults, oldest first.
func (r *realFaultLab) Faults() []ActiveFault {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]ActiveFault, len(r.list))
	for i, a := range r.list {
		out[i] = a
		out[i].Devices = slices.Clone(a.Devices)
	}
	return out
}
