//go:build linux

package twin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// Options tune Run.
type Options struct {
	// Prefix is the real lab's namespace prefix (reallab.Options.Prefix).
	Prefix string
	// Logger receives progress (default: discarded).
	Logger *slog.Logger
	// SettleTimeout bounds the wait for the real lab to reach what the
	// simulator shows after a fault or its clearing (default 60 s: an
	// OSPF neighbour that falls silent goes after its dead interval, 40 s).
	SettleTimeout time.Duration
	// Known are the documented differences (default KnownDifferences).
	Known []Known
}

// FastBGP returns topo with BGP timers keepalive 3 s, hold 9 s on every
// router that sets none, in both labs, so that a fault silencing a session
// shows within seconds instead of the default three minutes.
func FastBGP(topo topology.Topology) topology.Topology {
	topo.Devices = append([]topology.Device(nil), topo.Devices...)
	for i := range topo.Devices {
		if b := topo.Devices[i].BGP; b != nil && b.Keepalive == 0 && b.Hold == 0 {
			nb := *b
			nb.Keepalive, nb.Hold = 3, 9
			topo.Devices[i].BGP = &nb
		}
	}
	return topo
}

// Run builds topo simulated and real (BGP timers as FastBGP sets them),
// compares the converged labs, then each fault alone: applied to both,
// the real lab given time to settle, compared, and cleared. It returns
// one report per scenario: the baseline first, then one per fault.
func Run(ctx context.Context, topo topology.Topology, faults []topology.Fault, opts Options) ([]*Report, error) {
	for _, f := range faults {
		if !slices.Contains(Faults, f.Name) {
			return nil, fmt.Errorf("fault %s: the twin check applies %s", f.Name, strings.Join(Faults, ", "))
		}
	}
	topo = FastBGP(topo)
	for _, f := range faults {
		// The simulator checks the fault's target before a real lab is built.
		if _, err := SimWithFault(topo, f); err != nil {
			return nil, fmt.Errorf("fault %s: %w", f, err)
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger.Info("twin: building the real lab", "routers", len(NewEnv(topo).Routers))
	rl, err := reallab.Up(ctx, topo, reallab.Options{Prefix: opts.Prefix, Logger: logger})
	if err != nil {
		return nil, err
	}
	logger.Info("twin: real lab converged", "seconds", fmt.Sprintf("%.1f", rl.Converged.Seconds()))
	reports, err := RunOn(ctx, rl, faults, opts)
	return reports, errors.Join(err, rl.Close())
}

// RunOn is Run on a real lab already built and converged from topo (with
// the timers of FastBGP): it is left as it was found, every fault cleared.
func RunOn(ctx context.Context, rl *reallab.Lab, faults []topology.Fault, opts Options) ([]*Report, error) {
	if opts.SettleTimeout <= 0 {
		opts.SettleTimeout = 60 * time.Second
	}
	if opts.Known == nil {
		opts.Known = KnownDifferences
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	topo := rl.Topology()
	env := NewEnv(topo)
	base, err := newSim(topo)
	if err != nil {
		return nil, err
	}
	baseControl, err := SimControl(base, env)
	if err != nil {
		return nil, err
	}
	rep, err := compareNow(ctx, "baseline", base, baseControl, rl, env, opts, logger)
	if err != nil {
		return nil, err
	}
	reports := []*Report{rep}
	for _, f := range faults {
		n, err := SimWithFault(topo, f)
		if err != nil {
			return reports, fmt.Errorf("simulated lab: %w", err)
		}
		control, err := SimControl(n, env)
		if err != nil {
			return reports, err
		}
		if err := rl.InjectFault(ctx, f); err != nil {
			return reports, fmt.Errorf("real lab: %w", err)
		}
		rep, err := compareNow(ctx, f.String(), n, control, rl, env.WithFaults(f), opts, logger)
		clearErr := rl.ClearFault(ctx, f)
		if err != nil || clearErr != nil {
			return reports, errors.Join(err, clearErr)
		}
		reports = append(reports, rep)
		// Back to the baseline before the next fault.
		took, diffs, err := settle(ctx, rl, env, baseControl, opts)
		if err != nil {
			return reports, err
		}
		if diffs != "" {
			return reports, fmt.Errorf("after clearing %s the real lab did not return to the baseline within %s: %s", f, opts.SettleTimeout, diffs)
		}
		logger.Info("twin: fault cleared", "fault", f.String(), "seconds", fmt.Sprintf("%.1f", took.Seconds()))
	}
	return reports, nil
}

// newSim builds the simulated network of topo as the simulated lab does.
func newSim(topo topology.Topology) (*netsim.Network, error) {
	l, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		return nil, fmt.Errorf("simulated lab: %w", err)
	}
	n := l.Network()
	if err := l.Close(); err != nil {
		return nil, err
	}
	return n, nil
}

// compareNow waits for the real control plane to settle on the
// simulator's, then runs the probes on both and compares everything.
func compareNow(ctx context.Context, scenario string, n *netsim.Network, control Facts, rl *reallab.Lab, env *Env, opts Options, logger *slog.Logger) (*Report, error) {
	took, diffs, err := settle(ctx, rl, env, control, opts)
	if err != nil {
		return nil, err
	}
	if diffs == "" {
		logger.Info("twin: control planes agree", "scenario", scenario, "seconds", fmt.Sprintf("%.1f", took.Seconds()))
	} else {
		logger.Warn("twin: control planes still differ; comparing anyway", "scenario", scenario, "waited", opts.SettleTimeout)
	}
	env = env.withSimRoutes(control)
	realControl, err := RealControl(ctx, rl, env)
	if err != nil {
		return nil, err
	}
	simProbes, err := SimProbes(n, env)
	if err != nil {
		return nil, err
	}
	realProbes, err := RealProbes(ctx, rl, env)
	if err != nil {
		return nil, err
	}
	simAll := Facts{}
	for _, fs := range []Facts{control, simProbes} {
		for k, f := range fs {
			simAll[k] = f
		}
	}
	for k, f := range realProbes {
		realControl[k] = f
	}
	return Compare(scenario, simAll, realControl, env, opts.Known), nil
}

// settleMin is the least time a fault is given before the labs are
// compared: what the simulator shows at once, FRR shows after its own
// timers, and an early agreement can be the state before the fault.
const settleMin = 2 * time.Second

// settle polls the real lab's control plane until it agrees with want
// (but for known differences) or SettleTimeout passes; diffs is then
// what still differs ("" when it agreed).
func settle(ctx context.Context, rl *reallab.Lab, env *Env, want Facts, opts Options) (took time.Duration, diffs string, err error) {
	start := time.Now()
	for {
		got, err := RealControl(ctx, rl, env)
		if err != nil {
			return 0, "", err
		}
		rep := Compare("", want, got, env, opts.Known)
		if time.Since(start) >= settleMin && rep.OK() {
			return time.Since(start), "", nil
		}
		if time.Since(start) > opts.SettleTimeout {
			var diffs []string
			for _, row := range rep.Rows {
				if !row.Agree && row.Known == nil {
					diffs = append(diffs, fmt.Sprintf("%s %s %s: simulated %s, real %s", row.Kind, row.Device, row.Subject, row.Sim, row.Real))
				}
			}
			return time.Since(start), strings.Join(diffs, "; "), nil
		}
		select {
		case <-ctx.Done():
			return 0, "", ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
