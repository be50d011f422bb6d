package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/lab/gen/suite"
	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/topology"
)

// DefaultIntent is what the diagnoser is asked on every case.
const DefaultIntent = "what is wrong with the network?"

// DefaultTimeout bounds one case's diagnosis.
const DefaultTimeout = 3 * time.Minute

// Options choose the diagnoser and how a run is told.
type Options struct {
	// Agent is the argv of another agent to score (see SplitCommand): it
	// is run once per case with the lab's inventory (InventoryEnv,
	// InventoryArg) and prints NIKA's JSON answer on stdout. Empty: the
	// controller's engine, in this process.
	Agent []string
	// Intent is the controller's intent (default DefaultIntent).
	Intent string
	// Timeout bounds each case's diagnosis (default DefaultTimeout).
	Timeout time.Duration
	// Progress, when set, gets a line per case as it runs and ends.
	Progress io.Writer
	// Live rewrites the running case's line in place (a terminal).
	Live bool
	// GNMI serves every router over gNMI as `netmcp lab up --gnmi` does,
	// and its MCP server reaches it through the gnmi:// driver, so that
	// the diagnoser reads the routers over gNMI only (the hosts stay
	// simulated devices of their own).
	GNMI bool
}

// Run scores the diagnoser on every case of s, one after the other. It
// returns an error only when ctx ends or a case's network cannot be
// built; a diagnoser's failure is the case's (CaseResult.Error).
func Run(ctx context.Context, s *suite.Suite, o Options) (*Report, error) {
	if o.Intent == "" {
		o.Intent = DefaultIntent
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	in, err := controller.ParseIntent(o.Intent)
	if err != nil {
		return nil, err
	}
	rep := &Report{Agent: "controller", Seed: s.Seed}
	if len(o.Agent) > 0 {
		if _, err := exec.LookPath(o.Agent[0]); err != nil {
			return nil, fmt.Errorf("eval: agent: %w", err)
		}
		rep.Agent = o.Agent[0]
	}
	for k, c := range s.Cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.Progress != nil && o.Live {
			fmt.Fprintf(o.Progress, "\r\033[K[%d/%d] %s: %s ...", k+1, len(s.Cases), c.ID, faultsText(c.Faults))
		}
		r, err := runCase(ctx, c, in, o)
		if err != nil {
			if o.Progress != nil && o.Live {
				fmt.Fprintln(o.Progress)
			}
			return nil, err
		}
		rep.Cases = append(rep.Cases, r)
		if o.Progress != nil {
			if o.Live {
				fmt.Fprint(o.Progress, "\r\033[K")
			}
			fmt.Fprintf(o.Progress, "[%d/%d] %s\n", k+1, len(s.Cases), r.line())
		}
	}
	rep.summarize()
	return rep, nil
}

// runCase brings the case's network up, asks the diagnoser and scores it.
func runCase(ctx context.Context, c suite.Case, in controller.Intent, o Options) (CaseResult, error) {
	r := CaseResult{ID: c.ID, Network: c.Network.Name(), Routers: c.Network.Routers, Faults: slices.Clone(c.Faults), Truth: c.Truth}
	if r.Faults == nil {
		r.Faults = []string{}
	}
	topo, err := c.Topology()
	if err != nil {
		return r, err
	}
	faults := topo.Faults
	topo.Faults = nil
	l, err := startLab(topo, faults, o.GNMI)
	if err != nil {
		return r, fmt.Errorf("eval: case %s: %w", c.ID, err)
	}
	defer l.close()
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	start := time.Now()
	type outcome struct {
		a   Answer
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
			}
		}()
		var a Answer
		var err error
		if len(o.Agent) > 0 {
			a, err = agentCase(cctx, o.Agent, l)
		} else {
			a, err = controllerCase(cctx, in, l, topo)
		}
		done <- outcome{a, err}
	}()
	var out outcome
	select {
	case out = <-done:
	case <-cctx.Done():
		// The diagnoser had until the deadline; give it a moment to
		// notice, then leave it behind.
		select {
		case out = <-done:
		case <-time.After(5 * time.Second):
			out.err = fmt.Errorf("no answer within %s (hung)", o.Timeout)
		}
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.ElapsedMS = float64(time.Since(start).Microseconds()) / 1000
	r.Calls = int(l.calls.Load())
	if out.err != nil {
		if errors.Is(out.err, context.DeadlineExceeded) {
			out.err = fmt.Errorf("no answer within %s: %w", o.Timeout, out.err)
		}
		r.Error = out.err.Error()
		out.a = Answer{}
	}
	r.Answer = withRootCauses(out.a)
	if out.err != nil {
		return r, nil // no answer: every measure 0, even on a healthy case
	}
	r.Score = score.Of(score.Answer{IsAnomaly: r.Answer.IsAnomaly, FaultyDevices: r.Answer.FaultyDevices, RootCauseName: r.Answer.RootCauseName}, c.Truth.Score())
	return r, nil
}

// controllerCase asks the controller's engine, in this process, as
// `netmcp ask --lab` does.
func controllerCase(ctx context.Context, in controller.Intent, l *servedLab, topo topology.Topology) (Answer, error) {
	// The case's own timeout bounds the diagnosis; the bounds below only
	// keep a hung device from holding it. They are generous because on a
	// busy machine a session or a device's reads that take longer than a
	// minute are slow, not lost, and a device given up for lost turns
	// every check that needed it into a wrong answer.
	fleet, err := client.New(l.inv, client.Options{Name: "netmcp-eval", CallTimeout: 5 * time.Minute, ConnectTimeout: time.Minute})
	if err != nil {
		return Answer{}, err
	}
	defer fleet.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = fleet.Connect(cctx)
	cancel()
	if err != nil && ctx.Err() != nil {
		return Answer{}, err
	}
	// The controller's clock is the devices' (as NTP keeps them on a real
	// network): it dates their log lines against it.
	ctl := &controller.Controller{Fleet: fleet, Hosts: controller.HostsOf(topo), Domains: controller.DomainsOf(topo), Now: l.now}
	rep, err := ctl.Ask(ctx, in)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{IsAnomaly: rep.IsAnomaly, FaultyDevices: sortedSet(rep.FaultyDevices), RootCauseName: sortedSet(rep.RootCauseName), RootCauses: []RootCause{}}
	for _, cause := range rep.RootCauses {
		if _, ok := topology.LookupFault(cause.Name); !ok {
			continue
		}
		for _, d := range cause.Devices {
			a.RootCauses = append(a.RootCauses, RootCause{ResourceID: d, FaultType: cause.Name})
		}
	}
	return a, nil
}

// agentCase runs the agent command on the lab.
func agentCase(ctx context.Context, argv []string, l *servedLab) (Answer, error) {
	dir, err := os.MkdirTemp("", "netmcp-eval-*")
	if err != nil {
		return Answer{}, err
	}
	defer os.RemoveAll(dir)
	return runAgent(ctx, argv, l.inv, dir)
}

// withRootCauses fills an answer's submission entries when the diagnoser
// gave none: every faulty device paired with every root cause name, as
// the three fields do not tell which name goes with which device. The
// entries are sorted and without repeats.
func withRootCauses(a Answer) Answer {
	if a.FaultyDevices == nil {
		a.FaultyDevices = []string{}
	}
	if a.RootCauseName == nil {
		a.RootCauseName = []string{}
	}
	if len(a.RootCauses) == 0 {
		a.RootCauses = []RootCause{}
		for _, d := range a.FaultyDevices {
			for _, n := range a.RootCauseName {
				a.RootCauses = append(a.RootCauses, RootCause{ResourceID: d, FaultType: n})
			}
		}
	}
	slices.SortFunc(a.RootCauses, func(x, y RootCause) int {
		if x.ResourceID != y.ResourceID {
			return cmp.Compare(x.ResourceID, y.ResourceID)
		}
		return cmp.Compare(x.FaultType, y.FaultType)
	})
	a.RootCauses = slices.Compact(a.RootCauses)
	return a
}
