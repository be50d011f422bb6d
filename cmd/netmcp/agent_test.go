package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestAgentCLI runs `netmcp lab agents` on a lab whose r2 filters ICMP
// leaving toward r3, injects the intent with `netmcp agent ask`, and checks
// the report with `netmcp agent report verify`, from its file and its URI; a
// tampered copy fails with exit status 1.
func TestAgentCLI(t *testing.T) {
	topo := egressACLTopology()
	dir := t.TempDir()
	topoFile := filepath.Join(dir, "lab.yaml")
	b, err := yaml.Marshal(topo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(topoFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	labDir := filepath.Join(dir, "lab")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runAgentLab(ctx, labDir, topoFile, 0, &mitigationConsent{}, pw, io.Discard)
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	r1 := ""
	sc := bufio.NewScanner(pr)
	re := regexp.MustCompile(`^r1: agent on https://([0-9.:]+)/mcp`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			r1 = m[1]
		}
		if strings.HasPrefix(sc.Text(), "operator certificate") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if r1 == "" {
		t.Fatal("no r1 agent address printed")
	}
	creds := []string{"--cert", filepath.Join(labDir, "alice.pem"), "--key", filepath.Join(labDir, "alice.key"), "--ca", filepath.Join(labDir, "ca.pem")}
	start := time.Now()
	out, err := runRootSplit(t, append([]string{"agent", "ask", "--device", "r1", "--agent", r1, "verify packet loss on the path from r1 to r3 via r2"}, creds...)...)
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	t.Logf("agent ask: %s", time.Since(start))
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("ask printed no report: %v\n%s", err, out)
	}
	if h := rep.Hypothesis; h == nil || h.Device != "r2" || h.Direction != "r2->r3" || h.Cause != "egress-filter" {
		t.Fatalf("hypothesis %+v", rep.Hypothesis)
	}
	file := filepath.Join(dir, "report.json")
	os.WriteFile(file, []byte(out), 0o600)
	if out, err := runRoot(t, "", "agent", "report", "verify", "--ca", filepath.Join(labDir, "ca.pem"), file); err != nil || !strings.Contains(out, "signatures verified (r1 ") {
		t.Fatalf("verify file: %v\n%s", err, out)
	}
	if out, err := runRoot(t, "", append([]string{"agent", "report", "verify", "--device", "r1", "--agent", r1, rep.URI}, creds...)...); err != nil || !strings.Contains(out, "hypothesis: r2 discarded") {
		t.Fatalf("verify URI: %v\n%s", err, out)
	}
	rep.Hypothesis.Device = "r1"
	tb, _ := json.Marshal(rep)
	os.WriteFile(file, tb, 0o600)
	_, err = runRoot(t, "", "agent", "report", "verify", "--ca", filepath.Join(labDir, "ca.pem"), file)
	var ee *exitError
	if err == nil || !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("tampered report: %v", err)
	}
}

// runRootSplit runs the root command and returns its standard output only.
func runRootSplit(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out strings.Builder
	root := newRootCmd(args)
	root.SetOut(&out)
	root.SetErr(io.Discard)
	err := root.Execute()
	return out.String(), err
}

// egressACLTopology is the built-in lab whose r2 filters ICMP leaving
// toward r3: ACL NO-ICMP-OUT (10 deny icmp, 20 permit ip) bound outbound
// on GigabitEthernet0/0/0/1, a one-way fault.
func egressACLTopology() topology.Topology {
	topo := sim.DefaultTopology()
	for i := range topo.Devices {
		dv := &topo.Devices[i]
		if dv.Name == "r2" {
			dv.ACLs = append(dv.ACLs, topology.ACL{Name: "NO-ICMP-OUT", Rules: []topology.ACLEntry{
				{Seq: 10, Action: "deny", Protocol: "icmp"}, {Seq: 20, Action: "permit", Protocol: "ip"}}})
			for j := range dv.Interfaces {
				if dv.Interfaces[j].Name == "GigabitEthernet0/0/0/1" {
					dv.Interfaces[j].EgressACL = "NO-ICMP-OUT"
				}
			}
		}
	}
	return topo
}
