package suite

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Options choose a suite.
type Options struct {
	// Networks are the generated networks the cases run on.
	Networks []gen.Options
	// Seed chooses the targets, parameters and pairs.
	Seed int64
	// Names are the fault names of the single-fault cases, one case per
	// name and network (default: every catalog name the simulator builds).
	Names []string
	// Pairs and Healthy are the numbers of cases with two simultaneous
	// faults and with none, per network.
	Pairs, Healthy int
	// Attempts bounds the targets tried per name and network before the
	// name is reported unseen (default 6).
	Attempts int
	// Parallel is how many networks are checked at once (default
	// GOMAXPROCS); the suite is the same whatever it is.
	Parallel int
	// KeepUnseen keeps a case for a name no target made visible, with the
	// first fault that injected (it shows only in the configuration);
	// the name is reported in Suite.Unseen all the same.
	KeepUnseen bool
}

// SimNames lists the catalog's fault names the simulator builds, sorted.
func SimNames() []string {
	var out []string
	for _, n := range fault.Names() {
		if built, _, err := fault.Status(fault.Sim, n); err == nil && built {
			out = append(out, n)
		}
	}
	return out
}

// Networks chooses count networks for a suite: the shapes in turn, the
// dialects in turn (mixed, huawei-vrp, cisco-iosxr), each with a router
// count drawn from minRouters to maxRouters and a seed of its own.
func Networks(seed int64, count, minRouters, maxRouters int) []gen.Options {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	minRouters, maxRouters = max(minRouters, gen.MinRouters), min(maxRouters, gen.MaxRouters)
	maxRouters = max(minRouters, maxRouters)
	out := make([]gen.Options, count)
	for k := range out {
		d := gen.Dialects[(k+2)%len(gen.Dialects)]
		if d == gen.DialectMixed {
			d = ""
		}
		out[k] = gen.Options{Shape: gen.Shapes[k%len(gen.Shapes)], Routers: minRouters + rng.IntN(maxRouters-minRouters+1),
			Seed: rng.Int64N(1 << 31), Dialect: d}
	}
	return out
}

// maxSymptoms bounds the symptoms a case keeps.
const maxSymptoms = 5

// Generate makes the suite: for each network, the single-fault cases, the
// pairs and the healthy cases, each checked in the simulator (see the
// package comment). A network that is not healthy before any fault is an
// error (a *gen.UnhealthyError).
func Generate(o Options) (*Suite, error) {
	if len(o.Names) == 0 {
		o.Names = SimNames()
	}
	if o.Attempts <= 0 {
		o.Attempts = 6
	}
	for _, n := range o.Names {
		if _, err := fault.Spec(n); err != nil {
			return nil, fmt.Errorf("suite: %w", err)
		}
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	parts := make([]Suite, len(o.Networks))
	errs := make([]error, len(o.Networks))
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	for i, net := range o.Networks {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			rng := rand.New(rand.NewPCG(uint64(o.Seed), uint64(i)+1))
			errs[i] = parts[i].onNetwork(net, rng, o)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	s := &Suite{Seed: o.Seed}
	for _, p := range parts {
		s.Cases = append(s.Cases, p.Cases...)
		s.Unseen = append(s.Unseen, p.Unseen...)
	}
	return s, nil
}

// found is a fault set kept as a case, with what it showed.
type found struct {
	faults   []topology.Fault
	symptoms []string
}

// onNetwork adds the cases of one network.
func (s *Suite) onNetwork(net gen.Options, rng *rand.Rand, o Options) error {
	topo, err := gen.Generate(net)
	if err != nil {
		return err
	}
	r, err := newRunner(topo)
	if err != nil {
		return err
	}
	defer r.close()
	v := newView(topo)
	var singles, unseen []found
	for _, name := range o.Names {
		cands := v.candidates(name, rng)
		var tried []string
		var errs []error
		var seen, injected []topology.Fault
		for _, f := range cands[:min(len(cands), o.Attempts)] {
			tried = append(tried, f.String())
			sym, err := r.try([]topology.Fault{f})
			switch {
			case err != nil:
				errs = append(errs, err)
			case len(sym) > 0:
				singles = append(singles, found{faults: []topology.Fault{f}, symptoms: sym})
				seen = append(seen, f)
			case injected == nil:
				injected = []topology.Fault{f}
			}
			if seen != nil {
				break
			}
		}
		if seen != nil {
			continue
		}
		if o.KeepUnseen && injected != nil {
			unseen = append(unseen, found{faults: injected})
		}
		u := Unseen{Name: name, Network: net.Name(), Tried: tried}
		switch {
		case len(cands) == 0:
			u.Reason = "no target of this kind in the network"
		case len(errs) == len(tried):
			u.Reason = "injection failed: " + errors.Join(errs...).Error()
		default:
			u.Reason = fmt.Sprintf("no visible symptom on the %d target(s) tried", len(tried))
		}
		s.Unseen = append(s.Unseen, u)
	}
	cases := append(slices.Clone(singles), unseen...)
	cases = append(cases, r.pairs(singles, o.Pairs, rng)...)
	for range o.Healthy {
		cases = append(cases, found{})
	}
	for k, c := range cases {
		kc := Case{ID: fmt.Sprintf("%s/%02d", net.Name(), k+1), Network: net, Truth: TruthOf(topo, c.faults),
			SymptomCount: len(c.symptoms), Symptoms: c.symptoms[:min(len(c.symptoms), maxSymptoms)]}
		for _, f := range c.faults {
			kc.Faults = append(kc.Faults, f.String())
		}
		s.Cases = append(s.Cases, kc)
	}
	return nil
}

// pairs picks up to n pairs of the single faults whose union shows more
// than either alone (neither fault hides the other), injects each pair
// and keeps those that inject.
func (r *runner) pairs(singles []found, n int, rng *rand.Rand) []found {
	var out []found
	if len(singles) < 2 {
		return nil
	}
	seen := map[[2]int]bool{}
	for tries := 0; len(out) < n && tries < 10*n; tries++ {
		i, j := rng.IntN(len(singles)), rng.IntN(len(singles))
		if i == j || seen[[2]int{i, j}] {
			continue
		}
		seen[[2]int{i, j}], seen[[2]int{j, i}] = true, true
		a, b := singles[i], singles[j]
		fs := []topology.Fault{a.faults[0], b.faults[0]}
		sym, err := r.try(fs)
		if err != nil || sameSet(sym, a.symptoms) || sameSet(sym, b.symptoms) {
			continue
		}
		out = append(out, found{faults: fs, symptoms: sym})
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// runner is a generated network running in the simulator, with its
// healthy observation to compare against.
type runner struct {
	topo    topology.Topology
	lab     *sim.Lab
	checker *gen.Checker
	base    gen.Observation
	// running is the network's configuration once booted: what clearing
	// the faults must give back.
	running topology.Topology
}

func newRunner(topo topology.Topology) (*runner, error) {
	r := &runner{topo: topo, checker: gen.NewChecker(topo)}
	if err := r.start(); err != nil {
		return nil, err
	}
	r.base = r.checker.Observe(r.lab.Network())
	if p := r.base.Problems(); len(p) > 0 {
		r.close()
		return nil, &gen.UnhealthyError{Topology: topo.Name, Problems: p}
	}
	r.running = r.lab.Network().Topology()
	return r, nil
}

// start (re)starts the lab.
func (r *runner) start() error {
	lab, err := sim.NewLab(r.topo, gen.LabOptions())
	if err != nil {
		return fmt.Errorf("suite: %s: %w", r.topo.Name, err)
	}
	r.lab = lab
	return nil
}

func (r *runner) close() {
	if r.lab != nil {
		r.lab.Close()
	}
}

// try injects faults together, returns the symptoms they show, and clears
// them; the lab is restarted when clearing leaves the network changed.
func (r *runner) try(faults []topology.Fault) ([]string, error) {
	var err error
	for _, f := range faults {
		if _, err = r.lab.Inject(f); err != nil {
			err = fmt.Errorf("%s: %w", describe(faults), err)
			break
		}
	}
	var sym []string
	if err == nil {
		sym = r.checker.Observe(r.lab.Network()).Symptoms(r.base)
	}
	r.lab.ClearFaults()
	if !reflect.DeepEqual(r.lab.Network().Topology(), r.running) {
		r.close()
		if serr := r.start(); serr != nil {
			return nil, serr
		}
	}
	return sym, err
}
