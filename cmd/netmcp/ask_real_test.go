//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/controller"
	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/lab/twin"
)

// symptom is what the real lab must show before the sweep is asked: a
// fault built by configuration or an ACL is visible in the devices' data
// at once; one that acts through the protocols is asked about once they
// have noticed.
type symptom int

const (
	// atOnce: the fault is in the devices' data when InjectFault returns
	// (an ACL, an MTU, a configuration, a stopped daemon).
	atOnce symptom = iota
	// unconverged: OSPF or BGP leaves the converged state (polled).
	unconverged
	// routeGone: r2 loses the BGP route to r3's LAN (polled).
	routeGone
	// hostTalks: the host (the fault's target) pings its gateway once and
	// has it in its ARP table again (a MAC change empties the table; a
	// host that talks refills it).
	hostTalks
	// flapRepeated: a link_flap has gone down twice and come back up
	// (period+down seconds), and OSPF and BGP have converged again (or
	// 6 s have passed in that up phase).
	flapRepeated
)

// realSuiteCase is one fault of the suite on the real lab.
type realSuiteCase struct {
	fault string
	wait  symptom
	// quick puts the case in the default (CI) subset; the others run
	// with NETMCP_REAL_SUITE=full.
	quick bool
	// readAs is the root cause the controller must name instead, where
	// the linux driver cannot show what tells the fault apart ("": the
	// fault's own name). Detection and the faulty devices are required
	// as for every case.
	readAs string
}

// realSuite lists the faults of reallab.RealFaults that the simulator
// builds too (every one of them: its Lab.Inject takes every NIKA name),
// with the targets of the simulated suite (controller/suite_test.go).
var realSuite = []realSuiteCase{
	{fault: "bgp_acl_block r2:GigabitEthernet0/0/0/0", quick: true},
	{fault: "bgp_asn_misconfig r1", wait: unconverged, quick: true},
	{fault: "bgp_missing_route_advertisement r3", wait: routeGone},
	{fault: "dns_port_blocked h3"},
	{fault: "dns_record_error h3"},
	{fault: "dns_service_down h3", quick: true},
	{fault: "frr_service_down r3", quick: true},
	{fault: "host_incorrect_dns h3"},
	{fault: "host_incorrect_gateway h3"},
	{fault: "host_incorrect_ip h3", quick: true},
	{fault: "host_incorrect_netmask h3"},
	{fault: "host_ip_conflict h3"},
	{fault: "host_missing_ip h3"},
	{fault: "host_static_blackhole h3"},
	// h3's links, daemons and MCP endpoint go down (r3's port toward it
	// loses its carrier at once). Not after the flap, whose log every
	// later sweep reads (its window is 5 minutes), nor right after
	// ospf_area_misconfiguration: once cleared, r3's OSPF routes can still
	// drop for a moment as the routers set their hello timers back, which
	// a sweep then reads as a missing advertisement. r3's log keeps the
	// LAN port's one down, which is no flap.
	{fault: "host_crash h3", quick: true},
	{fault: "http_acl_block r3:GigabitEthernet0/0/1"},
	{fault: "icmp_acl_block r3:GigabitEthernet0/0/0", quick: true},
	{fault: "link_down r2:GigabitEthernet0/0/0/1", wait: unconverged, quick: true},
	// r2's end loses its carrier and stays administratively up; r3's end
	// stays up and hears nothing (its new peer is in the stub namespace).
	{fault: "link_detach r2:GigabitEthernet0/0/0/1", wait: unconverged, quick: true},
	// Every probe comes back after twice the default 200 ms (an NFQUEUE
	// consumer holds each packet), with no error and no discard.
	{fault: "link_high_latency r2:GigabitEthernet0/0/0/1", quick: true},
	{fault: "link_high_packet_corruption r2:GigabitEthernet0/0/0/1"},
	{fault: "mac_address_conflict h3", wait: hostTalks},
	{fault: "mtu_mismatch r2:GigabitEthernet0/0/0/1", quick: true},
	// The interface's MTU is lowered and what it would fragment is
	// dropped. The simulator shows the configured MTU beside the running
	// one, which tells this fault from mtu_mismatch; the linux driver
	// reports the kernel's MTU as both, and OSPF sticks in ExStart in
	// both, so the controller names the MTU mismatch on the right end.
	{fault: "link_fragmentation_disabled r2:GigabitEthernet0/0/0/1", wait: unconverged, readAs: "mtu_mismatch"},
	{fault: "ospf_acl_block r2:GigabitEthernet0/0/0/1"},
	{fault: "ospf_area_misconfiguration r3:GigabitEthernet0/0/0", wait: unconverged, quick: true},
	// Under the load the simulator assumes a link carries (the real lab
	// sends it while the fault is on: 100 kbit/s each way over 64 kbit/s),
	// the queue fills: the probes' round trip passes half a second and the
	// excess drops at the sender, with no input error. Before the flap: a
	// link's counters are read as deltas across the probes, so its drops
	// left in them mislead no later sweep.
	{fault: "link_bandwidth_throttling r2:GigabitEthernet0/0/0/1"},
	// Swept in its second up phase, converged again: in a down phase r2's
	// end is shut (ip link set down), which the controller takes for
	// link_down; the flap is in r3's log (the linux driver's syslog). After
	// every other fault on this link: the log keeps the flap (for the
	// controller's flap window), and later sweeps would read it there.
	{fault: "link_flap r2:GigabitEthernet0/0/0/1 period=20 down=3", wait: flapRepeated},
}

// TestAskRealSuite is the controller's fault suite (TestFaultSuite) on
// the real lab: one lab of the default topology (namespaces, FRR,
// lldpd, unbound; BGP timers 3/9) served as by `netmcp lab up --real`,
// the healthy lab swept, then each fault injected, its symptom awaited,
// the network swept exactly as `netmcp ask --inventory FILE --json
// "what is wrong with the network?"` does (runAsk), the report scored in
// NIKA's measures, the fault cleared and the lab's reconvergence awaited.
// It prints the table with each fault's time to diagnosis. By default a
// representative subset runs (the quick cases: about a minute); every
// fault with NETMCP_REAL_SUITE=full (under three minutes: the flap
// waits about 30 s for its second up phase).
func TestAskRealSuite(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the real lab needs root (network namespaces, FRR)")
	}
	if testing.Short() {
		t.Skip("skipped in -short: builds the real lab and sweeps it per fault")
	}
	for _, name := range reallab.RealFaults {
		if !slices.ContainsFunc(realSuite, func(c realSuiteCase) bool { return strings.HasPrefix(c.fault, name+" ") }) {
			t.Errorf("the real lab builds %s, which the suite does not run: add it to realSuite", name)
		}
	}
	t.Parallel() // with the other real-lab tests: each waits mostly on its own lab
	full := os.Getenv("NETMCP_REAL_SUITE") == "full"
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	topo := twin.FastBGP(sim.DefaultTopology())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	start := time.Now()
	dir := t.TempDir()
	lab, err := serve.Up(ctx, serve.Options{Topology: topo, Real: true, NetnsPrefix: fmt.Sprintf("t%dq-", os.Getpid()%100000), StateDir: dir, Logger: logger})
	if err != nil {
		if os.Getenv("CI") == "" && !strings.Contains(err.Error(), "root") {
			t.Skipf("skipped: the real lab cannot run here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Errorf("stopping the real lab: %v", err)
		}
	})
	rl := lab.Real()
	t.Logf("real lab up in %.1f s (converged %.1f s)", time.Since(start).Seconds(), rl.Converged.Seconds())
	sweep := func(t *testing.T) *controller.Report { return sweepLab(ctx, t, dir) }

	awaitBGPRoutes(ctx, t, rl, topo, 30*time.Second)
	var rows []score.Row
	rep := sweep(t)
	s := score.Of(nikaAnswer(rep), score.Truth{})
	rows = append(rows, scoreRow("healthy", s, rep))
	if rep.IsAnomaly {
		t.Errorf("healthy real lab: is_anomaly true: %s", reportText(rep))
	}
	for _, c := range realSuite {
		if !full && !c.quick {
			continue
		}
		f, err := topology.ParseFault(c.fault)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(reallab.RealFaults, f.Name) {
			t.Fatalf("%s: not built on the real lab", f.Name)
		}
		ok := t.Run(c.fault, func(t *testing.T) {
			t0 := time.Now()
			if err := rl.InjectFault(ctx, f); err != nil {
				t.Fatalf("inject: %v", err)
			}
			cleared := false
			clear := func() {
				if cleared {
					return
				}
				cleared = true
				if err := rl.ClearFault(ctx, f); err != nil {
					t.Errorf("clear: %v", err)
				}
				if err := rl.WaitConverged(ctx, 60*time.Second); err != nil {
					t.Errorf("after clearing: %v", err)
				}
				awaitBGPRoutes(ctx, t, rl, topo, 30*time.Second)
			}
			defer clear()
			waited := awaitSymptom(ctx, t, rl, topo, f, c.wait)
			rep := sweep(t)
			truth := score.Truth{Devices: score.FaultDevices(topo, f), Names: []string{f.Name}}
			name := fmt.Sprintf("%s (wait %.1fs)", c.fault, waited.Seconds())
			rows = append(rows, scoreRow(name, score.Of(nikaAnswer(rep), truth), rep)) // NIKA's score
			t.Logf("injected to diagnosed %.1f s (symptom %.1f s, sweep %.0f ms)", time.Since(t0).Seconds(), waited.Seconds(), rep.ElapsedMS)
			want := truth
			if c.readAs != "" {
				want.Names = []string{c.readAs}
			}
			if s := score.Of(nikaAnswer(rep), want); !s.Detection || s.Localization != 1 || s.RootCause != 1 {
				t.Errorf("score %+v against %+v\n%s", s, want, reportText(rep))
			}
			clear()
		})
		if !ok && ctx.Err() != nil {
			break
		}
	}
	var b bytes.Buffer
	score.WriteTable(&b, rows)
	mode := "default subset (NETMCP_REAL_SUITE=full for every fault)"
	if full {
		mode = "full"
	}
	t.Logf("NIKA scores on the real lab, %s:\n%s", mode, b.String())
}

// awaitSymptom polls the real lab until the fault shows as sym says, at
// most 30 s, and returns how long it waited.
func awaitSymptom(ctx context.Context, t *testing.T, l *reallab.Lab, topo topology.Topology, f topology.Fault, sym symptom) time.Duration {
	t.Helper()
	start := time.Now()
	if sym == atOnce {
		return 0
	}
	deadline := start.Add(30 * time.Second)
	for {
		var shown bool
		var state string
		switch sym {
		case unconverged:
			err := l.WaitConverged(ctx, 0)
			shown, state = err != nil, fmt.Sprint(err)
		case routeGone:
			out, err := l.Vtysh(ctx, "r2", "show ip route 10.3.0.0/24 json")
			shown, state = err == nil && !strings.Contains(string(out), `"bgp"`), string(out)
		case flapRepeated:
			p, _ := strconv.ParseFloat(f.Param("period"), 64)
			d, _ := strconv.ParseFloat(f.Param("down"), 64)
			up := time.Duration((p + d + 0.5) * float64(time.Second))
			if time.Since(start) < up {
				state = "waiting for the second up phase"
				break
			}
			// Converged, or at most 6 s into the up phase (BGP may take
			// longer to send its End-of-RIB again): the sweep must end
			// before the next down.
			err := l.WaitConverged(ctx, 0)
			shown, state = err == nil || time.Since(start) > up+6*time.Second, fmt.Sprint(err)
		case hostTalks:
			gw := ""
			for _, d := range topo.Devices {
				if d.Name == f.Target {
					gw = d.Gateway
				}
			}
			_, _ = l.Exec(ctx, f.Target, "ping", "-c", "1", "-W", "1", gw)
			out, err := l.Exec(ctx, f.Target, "ip", "neigh", "show", gw)
			shown, state = err == nil && strings.Contains(string(out), "lladdr"), string(out)
		}
		if shown {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fault's symptom did not show within 30 s (last: %s)", state)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// awaitBGPRoutes polls until every BGP router has the IPv4 networks of
// every BGP router of another AS as BGP routes (sessions Established is not yet
// routes exchanged), at most timeout.
func awaitBGPRoutes(ctx context.Context, t *testing.T, l *reallab.Lab, topo topology.Topology, timeout time.Duration) {
	t.Helper()
	type want struct{ router, prefix string }
	var wants []want
	for _, d := range topo.Devices {
		if d.BGP == nil {
			continue
		}
		for _, o := range topo.Devices {
			// Within an AS the IGP carries the networks: an iBGP route
			// loses to OSPF's and may not be in the RIB at all.
			if o.BGP == nil || o.Name == d.Name || o.BGP.ASN == d.BGP.ASN {
				continue
			}
			for _, p := range o.BGP.Networks {
				if !strings.Contains(p, ":") {
					wants = append(wants, want{d.Name, p})
				}
			}
		}
	}
	deadline := time.Now().Add(timeout)
	for _, w := range wants {
		for {
			out, err := l.Vtysh(ctx, w.router, "show ip route "+w.prefix+" json")
			if err == nil && strings.Contains(string(out), `"bgp"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s has no BGP route to %s within %v: %s %v", w.router, w.prefix, timeout, out, err)
				return
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
}

// sweepLab sweeps the lab whose state directory is dir exactly as
// `netmcp ask --inventory DIR/inventory.yaml --json "what is wrong with
// the network?"` does (runAsk), and returns the report.
func sweepLab(ctx context.Context, t *testing.T, dir string) *controller.Report {
	t.Helper()
	var out, errw bytes.Buffer
	o := askOptions{inventory: filepath.Join(dir, serve.InventoryFile), json: true, reportsDir: filepath.Join(dir, "reports"), noFix: true, timeout: 2 * time.Minute}
	if err := runAsk(ctx, o, "what is wrong with the network?", strings.NewReader(""), &out, &errw); err != nil {
		t.Fatalf("ask: %v\n%s", err, errw.String())
	}
	var rep controller.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("ask --json printed no report: %v\n%s", err, out.String())
	}
	return &rep
}

// nikaAnswer is a report's NIKA fields.
func nikaAnswer(rep *controller.Report) score.Answer {
	return score.Answer{IsAnomaly: rep.IsAnomaly, FaultyDevices: rep.FaultyDevices, RootCauseName: rep.RootCauseName}
}

// scoreRow is a report's line of the scoring table.
func scoreRow(fault string, s score.Score, rep *controller.Report) score.Row {
	return score.Row{Fault: fault, Score: s, Answer: nikaAnswer(rep), ElapsedMS: rep.ElapsedMS, Calls: len(rep.Calls)}
}

// reportText is the report as `netmcp ask` prints it.
func reportText(rep *controller.Report) string {
	var b bytes.Buffer
	rep.WriteText(&b)
	for _, c := range rep.Calls {
		fmt.Fprintf(&b, "  #%d [%s] %s %v: %s%s\n", c.N, c.Device, c.Tool, c.Args, c.Summary, c.Error)
	}
	return b.String()
}
