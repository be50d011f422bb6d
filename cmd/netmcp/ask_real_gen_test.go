//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/gen/suite"
	"github.com/netmcp/netmcp/lab/score"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/twin"
)

// generatedRealNetwork is the generated network the real-lab suite runs
// on besides the built-in one: two ASes joined by eBGP, a non-backbone
// area, hosts behind VLAN interfaces, DNS and web servers on other LANs
// than their clients', an upstream provider.
var generatedRealNetwork = gen.Options{Shape: gen.ShapeMultiAS, Routers: 6, Seed: 13}

// generatedRealFaults are the fault names of the suite on the generated
// network: link, interface, ACL, routing and host faults the real lab
// builds. The suite generator picks their targets and ground truth.
var generatedRealFaults = []string{"link_down", "link_detach", "icmp_acl_block", "mtu_mismatch",
	"ospf_area_misconfiguration", "host_incorrect_ip", "dns_service_down"}

// generatedSymptom is what the real lab must show before the sweep:
// faults that act through the protocols are swept once the network has
// noticed.
func generatedSymptom(name string) symptom {
	switch name {
	case "link_down", "link_detach", "ospf_area_misconfiguration":
		return unconverged
	}
	return atOnce
}

// TestAskRealGenerated runs the controller on the real lab built from a
// generated network it was never tuned on: the healthy network swept with
// no false alarm, then each case of a seeded suite on it (targets chosen
// by the suite generator across the network) injected, swept as `netmcp
// ask --inventory` does, scored by NIKA's measures against the case's
// ground truth, and cleared.
func TestAskRealGenerated(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the real lab needs root (network namespaces, FRR)")
	}
	if testing.Short() {
		t.Skip("skipped in -short: builds a real lab of a generated network and sweeps it per fault")
	}
	t.Parallel() // with the other real-lab tests: each waits mostly on its own lab
	s, err := suite.Generate(suite.Options{Networks: []gen.Options{generatedRealNetwork}, Seed: 7, Names: generatedRealFaults})
	if err != nil {
		t.Fatal(err)
	}
	topo, err := gen.Generate(generatedRealNetwork)
	if err != nil {
		t.Fatal(err)
	}
	topo = twin.FastBGP(topo)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	dir := t.TempDir()
	start := time.Now()
	lab, err := serve.Up(ctx, serve.Options{Topology: topo, Real: true, NetnsPrefix: fmt.Sprintf("t%dv-", os.Getpid()%100000),
		StateDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := lab.Close(); err != nil {
			t.Errorf("stopping the real lab: %v", err)
		}
	})
	rl := lab.Real()
	t.Logf("%s (%s) up in %.1f s", topo.Name, gen.Summarize(topo), time.Since(start).Seconds())
	awaitBGPRoutes(ctx, t, rl, topo, 60*time.Second)

	var rows []score.Row
	rep := sweepLab(ctx, t, dir)
	rows = append(rows, scoreRow("healthy", score.Of(nikaAnswer(rep), score.Truth{}), rep))
	if rep.IsAnomaly {
		t.Errorf("healthy %s: is_anomaly true (a false alarm): %s", topo.Name, reportText(rep))
	}
	for _, c := range s.Cases {
		faults, err := c.ParsedFaults()
		if err != nil {
			t.Fatal(err)
		}
		if len(faults) != 1 {
			continue // the suite's healthy cases are the sweep above
		}
		f := faults[0]
		t.Run(c.Faults[0], func(t *testing.T) {
			t0 := time.Now()
			if err := rl.InjectFault(ctx, f); err != nil {
				t.Fatalf("inject: %v", err)
			}
			defer func() {
				if err := rl.ClearFault(ctx, f); err != nil {
					t.Errorf("clear: %v", err)
				}
				if err := rl.WaitConverged(ctx, 60*time.Second); err != nil {
					t.Errorf("after clearing: %v", err)
				}
				awaitBGPRoutes(ctx, t, rl, topo, 60*time.Second)
			}()
			waited := awaitSymptom(ctx, t, rl, topo, f, generatedSymptom(f.Name))
			rep := sweepLab(ctx, t, dir)
			truth := score.Truth{Devices: c.Truth.FaultyDevices, Names: c.Truth.RootCauseName}
			sc := score.Of(nikaAnswer(rep), truth)
			rows = append(rows, scoreRow(fmt.Sprintf("%s (wait %.1fs)", c.Faults[0], waited.Seconds()), sc, rep))
			t.Logf("injected to diagnosed %.1f s", time.Since(t0).Seconds())
			if !sc.Detection || sc.Localization != 1 || sc.RootCause != 1 {
				t.Errorf("score %+v against %+v\n%s", sc, truth, reportText(rep))
			}
		})
	}
	var b bytes.Buffer
	score.WriteTable(&b, rows)
	t.Logf("NIKA scores on the real lab of %s:\n%s", topo.Name, b.String())
}
