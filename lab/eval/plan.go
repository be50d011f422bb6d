package eval

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/gen/suite"
)

// Plan chooses a seeded suite by its size: Cases cases over Networks
// generated networks of MinRouters to MaxRouters routers.
type Plan struct {
	Cases int
	Seed  int64
	// Networks defaults to one per 15 cases (at least one).
	Networks int
	// MinRouters and MaxRouters default to gen.MinRouters and
	// gen.MaxRouters.
	MinRouters, MaxRouters int
}

// bandSize draws the router count of the k-th network: from the size
// bands (Bands) in turn, each clipped to minR..maxR (a band outside them
// gives way to the whole range), so that every size is measured.
func bandSize(rng *rand.Rand, k, minR, maxR int) int {
	b := Bands[k%len(Bands)]
	lo, hi := max(b.Min, minR), min(b.Max, maxR)
	if lo > hi {
		lo, hi = minR, maxR
	}
	return lo + rng.IntN(hi-lo+1)
}

// spareNames are the fault names tried on a network beyond its share, in
// case some of them show no symptom there.
const spareNames = 3

// Suite generates the plan's suite. The networks take the shapes and
// dialects in turn and their sizes from the size bands in turn. Each
// network gets an equal share of
// the cases: about one in eight healthy (at least one), one in eight a
// pair of faults, the rest single faults whose names are taken in turn
// from a seeded shuffle of every name the simulator builds, so that the
// names spread evenly over the suite. A name no target made visible on a
// network is replaced by the next; a network short of names gives fewer
// cases.
func (p Plan) Suite() (*suite.Suite, error) {
	if p.Cases <= 0 {
		return nil, errors.New("eval: the plan needs at least one case")
	}
	if p.Networks <= 0 {
		p.Networks = max(1, (p.Cases+14)/15)
	}
	p.Networks = min(p.Networks, p.Cases)
	if p.MinRouters <= 0 {
		p.MinRouters = gen.MinRouters
	}
	if p.MaxRouters <= 0 {
		p.MaxRouters = gen.MaxRouters
	}
	nets := suite.Networks(p.Seed, p.Networks, p.MinRouters, p.MaxRouters)
	sizes := rand.New(rand.NewPCG(uint64(p.Seed), 0x73697a65))
	for k := range nets {
		nets[k].Routers = bandSize(sizes, k, p.MinRouters, p.MaxRouters)
	}
	names := suite.SimNames()
	rng := rand.New(rand.NewPCG(uint64(p.Seed), 0x6576616c))
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	type share struct {
		opts                    suite.Options
		singles, pairs, healthy int
	}
	shares := make([]share, len(nets))
	next := 0
	for i, n := range nets {
		q := p.Cases / len(nets)
		if i < p.Cases%len(nets) {
			q++
		}
		h := max(1, q/8)
		pr := q / 8
		if q < 3 {
			h, pr = 0, 0
			if i%2 == 1 {
				h = min(q, 1)
			}
		}
		singles := q - h - pr
		var pick []string
		for k := range singles + spareNames {
			pick = append(pick, names[(next+k)%len(names)])
		}
		next += singles
		slices.Sort(pick)
		pick = slices.Compact(pick)
		shares[i] = share{opts: suite.Options{Networks: []gen.Options{n}, Seed: p.Seed + int64(i), Names: pick, Pairs: pr, Healthy: h, Parallel: 1},
			singles: singles, pairs: pr, healthy: h}
	}
	parts := make([]*suite.Suite, len(shares))
	errs := make([]error, len(shares))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, sh := range shares {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			parts[i], errs[i] = suite.Generate(sh.opts)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := &suite.Suite{Seed: p.Seed}
	for i, part := range parts {
		singles := 0
		for _, c := range part.Cases {
			if len(c.Faults) == 1 {
				if singles == shares[i].singles {
					continue
				}
				singles++
			}
			out.Cases = append(out.Cases, c)
		}
		out.Unseen = append(out.Unseen, part.Unseen...)
	}
	return out, nil
}
