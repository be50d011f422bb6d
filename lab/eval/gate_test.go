package eval_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/eval"
)

// gateThreshold is the least each of NIKA's three measures (detection,
// localization F1, root-cause F1) may be on the gate's suite. The
// controller reaches 0.994 on each there (159 of 160 cases fully right),
// so two cases may flip before the gate fails; what is still missed is in
// docs/controller.md.
const gateThreshold = 0.98

// gatePlan is the gate's seeded suite: 160 cases over 11 generated
// networks of every size band.
var gatePlan = eval.Plan{Cases: 160, Seed: 1, Networks: 11}

// TestGeneratedSuiteGate scores the controller on the gate's suite and
// fails when any of the three measures is below gateThreshold or when a
// healthy case is reported as a fault. It takes minutes: under the race
// detector it is skipped (CI runs it in its stage without -race).
func TestGeneratedSuiteGate(t *testing.T) {
	if raceEnabled {
		t.Skip("the generated-suite gate takes several minutes, and many more under -race: run it without -race (scripts/test.sh does, in its no-race stage)")
	}
	if testing.Short() {
		t.Skip("the generated-suite gate builds 160 networks")
	}
	s, err := gatePlan.Suite()
	if err != nil {
		t.Fatal(err)
	}
	nets := map[string]bool{}
	for _, c := range s.Cases {
		nets[c.Network.Name()] = true
	}
	if len(s.Cases) < 150 || len(nets) < 10 {
		t.Fatalf("the gate's plan gave %d cases over %d networks, want at least 150 over 10", len(s.Cases), len(nets))
	}
	rep, err := eval.Run(context.Background(), s, eval.Options{Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())
	o := rep.Overall
	for _, m := range []struct {
		name string
		v    float64
	}{{"detection", o.Detection}, {"localization F1", o.Localization}, {"root-cause F1", o.RootCause}} {
		if m.v < gateThreshold {
			t.Errorf("%s %.3f over %d cases, below %.2f", m.name, m.v, o.Cases, gateThreshold)
		}
	}
	if rep.Healthy.FalseAlarms > 0 {
		t.Errorf("%d false alarms among %d healthy cases", rep.Healthy.FalseAlarms, rep.Healthy.Cases)
	}
}

// TestSameAnswersUnderLoad runs the controller on a seeded suite of 30
// cases twice, on the machine as it is and with every CPU saturated by a
// busy loop (one per CPU, bounded in time), and checks that every case
// gets the same answer: a probe refused or slowed by the load is never
// read as a fault. It is skipped under the race detector, which would
// make it take many minutes (CI runs it in its stage without -race).
func TestSameAnswersUnderLoad(t *testing.T) {
	if raceEnabled {
		t.Skip("30 generated cases run twice take minutes under -race: run it without -race (scripts/test.sh does, in its no-race stage)")
	}
	if testing.Short() {
		t.Skip("runs 30 generated cases twice")
	}
	s, err := eval.Plan{Cases: 30, Seed: 5, Networks: 3, MinRouters: 4, MaxRouters: 8}.Suite()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out [2]*eval.Report
	for i, busy := range []bool{false, true} {
		stop := func() {}
		if busy {
			stop = busyLoops(runtime.NumCPU(), 10*time.Minute)
		}
		out[i], err = eval.Run(ctx, s, eval.Options{Timeout: 3 * time.Minute})
		stop()
		if err != nil {
			t.Fatal(err)
		}
	}
	for k, c := range out[0].Cases {
		b := out[1].Cases[k]
		if c.Error != "" || b.Error != "" || c.Answer.IsAnomaly != b.Answer.IsAnomaly ||
			strings.Join(c.Answer.RootCauseName, ",") != strings.Join(b.Answer.RootCauseName, ",") ||
			strings.Join(c.Answer.FaultyDevices, ",") != strings.Join(b.Answer.FaultyDevices, ",") {
			t.Errorf("case %s (%v): quiet %+v (error %q), busy %+v (error %q)", c.ID, c.Faults, c.Answer, c.Error, b.Answer, b.Error)
		}
	}
	t.Logf("quiet: %+v; busy: %+v", out[0].Overall, out[1].Overall)
}

// busyLoops starts n goroutines that spin until the returned function is
// called or limit has passed, and returns that function, which waits for
// them to end.
func busyLoops(n int, limit time.Duration) func() {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			x := 0
			for ctx.Err() == nil {
				for range 1 << 16 {
					x++
				}
			}
			_ = x
		})
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
