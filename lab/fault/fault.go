package fault

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/lab/topology"
)

// The backends of the lab, by name.
const (
	// Sim is the simulator (lab/sim): faults in the network model or in
	// the devices' configurations.
	Sim = "sim"
	// Real is the real lab (lab/real): faults in Linux namespaces with FRR.
	Real = "real"
)

// Func applies one fault to a lab of type L, or clears it. The lab comes
// first so that a method expression of the lab's type, such as
// (*Lab).linkDown, is a Func.
type Func[L any] func(lab L, ctx context.Context, f topology.Fault) error

// Impl is how one backend makes one fault name.
type Impl[L any] struct {
	// Apply injects the fault into the lab.
	Apply Func[L]
	// Clear takes it out again.
	Clear Func[L]
	// Config is true when the backend makes the fault as a change of a
	// device's configuration (a routing statement, a host's address or
	// routes, a DNS zone), false when it makes it as a runtime condition
	// (link state, packet filters, daemons, the model's fault list).
	Config bool
}

// Backend is one backend's bindings of the catalog's names, for labs of
// type L. A backend binds each name once, with Register, or says it does
// not build it, with Unsupported.
type Backend[L any] struct {
	name, what string
	mu         sync.RWMutex
	impls      map[string]Impl[L]
	reasons    map[string]string // name -> why the backend does not build it
}

// backend is what the package's own registry knows of a Backend, whatever
// its lab type.
type backend interface {
	status(name string) (built bool, reason string)
	describe() string
}

var (
	mu       sync.RWMutex
	backends = map[string]backend{}
)

// NewBackend creates the backend called name ("sim", "real") and records
// it in the registry; what names it in error messages ("the real lab").
// It panics when a backend of that name exists already: backends are
// created once, when their package is initialised.
func NewBackend[L any](name, what string) *Backend[L] {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := backends[name]; dup {
		panic("fault: backend " + name + " created twice")
	}
	b := &Backend[L]{name: name, what: what, impls: map[string]Impl[L]{}, reasons: map[string]string{}}
	backends[name] = b
	return b
}

// Name is the backend's name.
func (b *Backend[L]) Name() string { return b.name }

// Register binds fault name to impl on the backend. It panics when name is
// not in the catalog, is bound (or declared unsupported) already, or impl
// lacks Apply or Clear: bindings are made when the backend's package is
// initialised, where such a mistake is the program's.
func (b *Backend[L]) Register(name string, impl Impl[L]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.checkNew(name)
	if impl.Apply == nil || impl.Clear == nil {
		panic(fmt.Sprintf("fault: %s: %s registered without Apply or Clear", b.name, name))
	}
	b.impls[name] = impl
}

// Unsupported records that the backend does not build fault name, and
// why. It panics as Register does.
func (b *Backend[L]) Unsupported(name, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.checkNew(name)
	if reason == "" {
		panic(fmt.Sprintf("fault: %s: %s declared unsupported without a reason", b.name, name))
	}
	b.reasons[name] = reason
}

// checkNew panics unless name is a catalog name the backend has not
// bound yet; b.mu is held.
func (b *Backend[L]) checkNew(name string) {
	if _, ok := topology.LookupFault(name); !ok {
		panic(fmt.Sprintf("fault: %s: %v", b.name, &UnknownError{Name: name}))
	}
	_, bound := b.impls[name]
	_, unsupported := b.reasons[name]
	if bound || unsupported {
		panic(fmt.Sprintf("fault: %s: %s bound twice", b.name, name))
	}
}

// Lookup returns the binding of fault name. A name outside the catalog is
// refused with an *UnknownError (listing the catalog's names), a catalog
// name the backend does not build with an *UnsupportedError (saying why,
// and listing the names it builds).
func (b *Backend[L]) Lookup(name string) (Impl[L], error) {
	if _, ok := topology.LookupFault(name); !ok {
		return Impl[L]{}, &UnknownError{Name: name}
	}
	b.mu.RLock()
	impl, ok := b.impls[name]
	reason := b.reasons[name]
	b.mu.RUnlock()
	if ok {
		return impl, nil
	}
	if reason == "" {
		reason = "no binding registered"
	}
	return Impl[L]{}, &UnsupportedError{Name: name, Backend: b.name, What: b.what, Reason: reason, Built: b.Names()}
}

// Apply checks f against the catalog (topology.Fault.CheckSpec) and
// injects it into lab with its binding.
func (b *Backend[L]) Apply(ctx context.Context, lab L, f topology.Fault) error {
	impl, err := b.check(f)
	if err != nil {
		return err
	}
	return impl.Apply(lab, ctx, f)
}

// Clear checks f against the catalog and clears it from lab with its
// binding.
func (b *Backend[L]) Clear(ctx context.Context, lab L, f topology.Fault) error {
	impl, err := b.check(f)
	if err != nil {
		return err
	}
	return impl.Clear(lab, ctx, f)
}

func (b *Backend[L]) check(f topology.Fault) (Impl[L], error) {
	if err := f.CheckSpec(); err != nil {
		return Impl[L]{}, err
	}
	return b.Lookup(f.Name)
}

// Names lists the names the backend builds, sorted.
func (b *Backend[L]) Names() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]string, 0, len(b.impls))
	for n := range b.impls {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (b *Backend[L]) status(name string) (bool, string) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	_, ok := b.impls[name]
	return ok, b.reasons[name]
}

func (b *Backend[L]) describe() string { return b.what }

// Spec returns the catalog's description of fault name: its targets and
// parameters. A name outside the catalog is refused with an
// *UnknownError.
func Spec(name string) (topology.FaultSpec, error) {
	s, ok := topology.LookupFault(name)
	if !ok {
		return topology.FaultSpec{}, &UnknownError{Name: name}
	}
	return s, nil
}

// Names lists the catalog's fault names, sorted.
func Names() []string { return topology.FaultNames() }

// Backends lists the names of the backends created, sorted.
func Backends() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(backends))
	for n := range backends {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Status tells how backend builds fault name: built, or not with the
// reason the backend gave (reason "" when it gave none: the name is
// missing from the backend). An unknown backend or name is an error.
func Status(backendName, name string) (built bool, reason string, err error) {
	mu.RLock()
	b, ok := backends[backendName]
	mu.RUnlock()
	if !ok {
		return false, "", fmt.Errorf("fault: no backend %q (known: %s)", backendName, strings.Join(Backends(), ", "))
	}
	if _, err := Spec(name); err != nil {
		return false, "", err
	}
	built, reason = b.status(name)
	return built, reason, nil
}

// Missing lists the catalog names backend neither builds nor declares
// unsupported, sorted: a backend is complete when it is empty.
func Missing(backendName string) ([]string, error) {
	var out []string
	for _, n := range Names() {
		built, reason, err := Status(backendName, n)
		if err != nil {
			return nil, err
		}
		if !built && reason == "" {
			out = append(out, n)
		}
	}
	return out, nil
}

// UnknownError is the refusal of a name outside the catalog.
type UnknownError struct {
	Name string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("fault %q: unknown name (known: %s)", e.Name, strings.Join(Names(), ", "))
}

// UnsupportedError is the refusal of a catalog name a backend does not
// build.
type UnsupportedError struct {
	// Name is the fault name; Backend the backend's name and What its
	// description ("the real lab").
	Name, Backend, What string
	// Reason says why the backend does not build it.
	Reason string
	// Built are the names the backend builds, sorted.
	Built []string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("fault %s is not built on %s: %s (it builds %s)", e.Name, e.What, e.Reason, strings.Join(e.Built, ", "))
}
