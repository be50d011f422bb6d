package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/eval"
	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/gen/suite"
)

// agentEnv makes the test binary, re-executed, the scripted agent of
// TestAgent: its value is the behaviour ("guess", "sleep", "fail").
const agentEnv = "NETMCP_EVAL_TEST_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(agentEnv); mode != "" {
		os.Exit(scriptedAgent(mode))
	}
	os.Exit(m.Run())
}

// guess is the scripted agent's fixed answer.
const guess = `{"is_anomaly": true, "faulty_devices": ["r1"], "root_cause_name": ["link_down", "host_crash"]}`

// scriptedAgent reads the inventory named by its last argument, checks
// that the environment names the same file and that every device has an
// MCP endpoint, and answers the fixed guess.
func scriptedAgent(mode string) int {
	file := os.Args[len(os.Args)-1]
	if os.Getenv(eval.InventoryEnv) != file {
		fmt.Fprintf(os.Stderr, "inventory %q as argument, %q in the environment\n", file, os.Getenv(eval.InventoryEnv))
		return 1
	}
	inv, err := inventory.Load(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, d := range inv.Devices {
		if !strings.HasPrefix(d.URL, "http://127.0.0.1:") {
			fmt.Fprintf(os.Stderr, "device %s: endpoint %q\n", d.Name, d.URL)
			return 1
		}
	}
	switch mode {
	case "sleep":
		time.Sleep(time.Minute)
	case "fail":
		fmt.Fprintln(os.Stderr, "the scripted agent gives up")
		return 3
	}
	fmt.Println("thinking about", len(inv.Devices), "devices")
	fmt.Println(guess)
	return 0
}

// smallSuite is the suite of package suite's example: a link_down, a MAC
// conflict and a healthy case on one generated ring.
func smallSuite() *suite.Suite {
	net := gen.Options{Shape: gen.ShapeRing, Routers: 6, Seed: 2}
	return &suite.Suite{Seed: 1, Cases: []suite.Case{
		{ID: "ring-6-s2/01", Network: net, Faults: []string{"link_down r1:GigabitEthernet0/0/1"},
			Truth: suite.Truth{IsAnomaly: true, FaultyDevices: []string{"r1", "r5"}, RootCauseName: []string{"link_down"}}},
		{ID: "ring-6-s2/02", Network: net, Faults: []string{"mac_address_conflict h2 with=h4"},
			Truth: suite.Truth{IsAnomaly: true, FaultyDevices: []string{"h2"}, RootCauseName: []string{"mac_address_conflict"}}},
		{ID: "ring-6-s2/05", Network: net, Truth: suite.Truth{FaultyDevices: []string{}, RootCauseName: []string{}}},
	}}
}

// TestAgent scores the scripted agent's fixed guess and compares each
// case's score and the means with the ones computed by hand.
func TestAgent(t *testing.T) {
	rep, err := eval.Run(context.Background(), smallSuite(), eval.Options{
		Agent: []string{"env", agentEnv + "=guess", os.Args[0]}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Guess: anomaly, devices {r1}, names {link_down, host_crash}.
	// link_down on r1-r5: detection right; devices P=1 R=1/2, F1 2/3;
	// names P=1/2 R=1, F1 2/3. MAC conflict on h2: detection right, both
	// F1 0. Healthy: detection wrong, both F1 0 (names given where none
	// were due).
	want := []struct {
		det      bool
		loc, rc  float64
		failures bool
	}{{true, 2.0 / 3, 2.0 / 3, true}, {true, 0, 0, true}, {false, 0, 0, true}}
	if len(rep.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(rep.Cases), len(want))
	}
	for i, w := range want {
		c := rep.Cases[i]
		if c.Error != "" {
			t.Fatalf("case %s: %s", c.ID, c.Error)
		}
		if c.Score.Detection != w.det || c.Score.Localization != w.loc || c.Score.RootCause != w.rc {
			t.Errorf("case %s: score %+v, want %v %v %v", c.ID, c.Score, w.det, w.loc, w.rc)
		}
		wantRC := []eval.RootCause{{ResourceID: "r1", FaultType: "host_crash"}, {ResourceID: "r1", FaultType: "link_down"}}
		if !slices.Equal(c.Answer.RootCauses, wantRC) {
			t.Errorf("case %s: submission %+v, want %+v", c.ID, c.Answer.RootCauses, wantRC)
		}
	}
	o := rep.Overall
	if o.Cases != 3 || o.Detection != 2.0/3 || o.Localization != (2.0/3)/3 || o.RootCause != (2.0/3)/3 || o.Right != 0 {
		t.Errorf("overall %+v", o)
	}
	if rep.Healthy != (eval.Healthy{Cases: 1, FalseAlarms: 1}) || len(rep.Failures) != 3 {
		t.Errorf("healthy %+v, %d failures", rep.Healthy, len(rep.Failures))
	}
}

// TestAgentFailures: an agent that overruns its time or exits with an
// error fails its case, with the reason, and the run goes on.
func TestAgentFailures(t *testing.T) {
	s := smallSuite()
	s.Cases = s.Cases[2:]
	for _, tc := range []struct{ mode, want string }{
		{"sleep", "no answer within"},
		{"fail", "the scripted agent gives up"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			rep, err := eval.Run(context.Background(), s, eval.Options{
				Agent: []string{"env", agentEnv + "=" + tc.mode, os.Args[0]}, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Cases[0]
			if !strings.Contains(c.Error, tc.want) || c.Right() || len(rep.Failures) != 1 || rep.Failures[0].Error != c.Error {
				t.Errorf("error %q (want %q), failures %+v", c.Error, tc.want, rep.Failures)
			}
		})
	}
}

var (
	planOnce  sync.Once
	planSuite *suite.Suite
	planErr   error
)

// plannedSuite is a seeded suite of 12 cases over 3 small networks.
func plannedSuite(t *testing.T) *suite.Suite {
	t.Helper()
	planOnce.Do(func() {
		planSuite, planErr = eval.Plan{Cases: 12, Seed: 7, Networks: 3, MinRouters: 4, MaxRouters: 7}.Suite()
	})
	if planErr != nil {
		t.Fatal(planErr)
	}
	return planSuite
}

// TestController runs the controller on the planned suite end to end and
// checks the report's structure: every case once, the per-fault rows
// summing to the cases, the bands covering them, the failures being the
// cases not fully right, the JSON and the submissions complete.
func TestController(t *testing.T) {
	s := plannedSuite(t)
	if len(s.Cases) < 10 {
		t.Fatalf("plan gave %d cases, want about 12", len(s.Cases))
	}
	var progress bytes.Buffer
	rep, err := eval.Run(context.Background(), s, eval.Options{Timeout: 2 * time.Minute, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != len(s.Cases) || strings.Count(progress.String(), "\n") != len(s.Cases) {
		t.Fatalf("%d results and %d progress lines for %d cases", len(rep.Cases), strings.Count(progress.String(), "\n"), len(s.Cases))
	}
	rows, healthy, singles, pairs := 0, 0, 0, 0
	for _, c := range s.Cases {
		switch len(c.Faults) {
		case 0:
			healthy++
		case 1:
			singles++
		default:
			pairs++
		}
	}
	for _, f := range rep.ByFault {
		rows += f.Cases
		if f.Name == "healthy" && f.Cases != healthy {
			t.Errorf("healthy row has %d cases, want %d", f.Cases, healthy)
		}
	}
	if rows != healthy+singles+2*pairs || rep.Healthy.Cases != healthy || healthy == 0 {
		t.Errorf("per-fault rows sum to %d, want %d healthy + %d single + 2x%d pairs", rows, healthy, singles, pairs)
	}
	bands, wrong := 0, 0
	for _, b := range rep.Bands {
		bands += b.Cases
	}
	for _, c := range rep.Cases {
		if !c.Right() {
			wrong++
		}
		if c.Error == "" && c.Calls == 0 {
			t.Errorf("case %s: no MCP call counted", c.ID)
		}
	}
	if bands != len(s.Cases) || rep.Overall.Cases != len(s.Cases) || wrong != len(rep.Failures) || rep.Overall.Right != len(s.Cases)-wrong {
		t.Errorf("bands hold %d cases, overall %+v, %d failures for %d wrong", bands, rep.Overall, len(rep.Failures), wrong)
	}
	if len(rep.Submissions()) != len(s.Cases) {
		t.Errorf("%d submissions", len(rep.Submissions()))
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back eval.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Cases) != len(s.Cases) || back.Overall != rep.Overall {
		t.Errorf("JSON round trip: %v, %d cases, overall %+v", err, len(back.Cases), back.Overall)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", text.String())
}

// TestCausesNotConsequences runs the controller on a ring whose hosts use
// two DNS servers (h12, the routers' too, and h13), each on another LAN
// than most of its clients: a service down on the second server is named
// on that server, not on every client whose lookups fail; a client
// pointed at its gateway has the wrong resolver; a service name (an
// alias, no device's name) given a wrong address is found in the
// server's zone; of two hosts with one MAC, the one that took the
// other's is named, not the rightful owner. A link rate-limited to a
// little more than its traffic (no drops, a round trip well under a slow
// link's) stands out from its peers and its delay grows with the
// packets' size; a slow link's does not.
func TestCausesNotConsequences(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12-router network per case")
	}
	net := gen.Options{Shape: gen.ShapeRing, Routers: 12, Seed: 2}
	truth := func(dev, name string) suite.Truth {
		return suite.Truth{IsAnomaly: true, FaultyDevices: []string{dev}, RootCauseName: []string{name}}
	}
	s := &suite.Suite{Seed: 1, Cases: []suite.Case{
		{ID: "dns-service-down", Network: net, Faults: []string{"dns_service_down h13"}, Truth: truth("h13", "dns_service_down")},
		{ID: "host-incorrect-dns", Network: net, Faults: []string{"host_incorrect_dns h1"}, Truth: truth("h1", "host_incorrect_dns")},
		{ID: "dns-record-alias", Network: net, Faults: []string{"dns_record_error h12 name=www"}, Truth: truth("h12", "dns_record_error")},
		{ID: "mac-conflict", Network: net, Faults: []string{"mac_address_conflict h3 with=h1"}, Truth: truth("h3", "mac_address_conflict")},
		{ID: "throttled-link", Network: net, Faults: []string{"link_bandwidth_throttling r4:GigabitEthernet0/0/1 rate=128"},
			Truth: suite.Truth{IsAnomaly: true, FaultyDevices: []string{"r4", "r5"}, RootCauseName: []string{"link_bandwidth_throttling"}}},
		{ID: "throttled-host-link", Network: net, Faults: []string{"link_bandwidth_throttling r8:GigabitEthernet0/0/0/2 rate=128"},
			Truth: suite.Truth{IsAnomaly: true, FaultyDevices: []string{"h5", "r8"}, RootCauseName: []string{"link_bandwidth_throttling"}}},
		{ID: "slow-link", Network: net, Faults: []string{"link_high_latency r4:GigabitEthernet0/0/1"},
			Truth: suite.Truth{IsAnomaly: true, FaultyDevices: []string{"r4", "r5"}, RootCauseName: []string{"link_high_latency"}}},
		{ID: "healthy", Network: net, Truth: suite.Truth{FaultyDevices: []string{}, RootCauseName: []string{}}},
	}}
	rep, err := eval.Run(context.Background(), s, eval.Options{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Cases {
		if !c.Right() {
			t.Errorf("case %s: %v: got %+v, want %+v (%s)", c.ID, c.Faults, c.Answer, c.Truth, c.Error)
		}
	}
}
