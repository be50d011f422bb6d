//go:build linux

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/lab/serve"
)

// TestLabRealFaults runs `lab up --real --fault icmp_acl_block ...` (as
// root with FRR) and drives it with `netmcp lab fault list|add|clear`,
// as on the simulated lab: the start fault stops r2's pings to r1 until
// cleared; frr_service_down r1 takes r2's BGP session to r1 out of
// ESTABLISHED (read through r2's linux:// YANG over MCP) until cleared;
// a name the real lab does not build is refused with the list it builds.
func TestLabRealFaults(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: lab up --real needs root (and FRR)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	prefix := fmt.Sprintf("t%df-", os.Getpid()%100000)
	// r1, r2, r3, h1, h3: the host_crash part reaches h3
	r, lines := startLabUp(ctx, t, 5, 90*time.Second, "--real", "--netns-prefix", prefix, "--state-dir", dir,
		"--fault", "icmp_acl_block r1:GigabitEthernet0/0/0")
	stop := func() { r.stop(t) }
	defer stop()
	urls := map[string]string{}
	for _, f := range lines {
		if len(f) == 3 {
			urls[f[0]] = f[2]
		}
	}
	fault := func(args ...string) (string, error) {
		return runLabCmd(ctx, append([]string{"fault", "--state-dir", dir}, args...)...)
	}
	ping := func() error {
		return exec.CommandContext(ctx, "ip", "netns", "exec", prefix+"r2", "ping", "-c", "1", "-W", "1", "10.0.12.1").Run()
	}

	// The start fault is listed as f1, and r2's pings to r1 fail.
	if got, err := fault("list"); err != nil || !strings.Contains(got, "f1") || !strings.Contains(got, "icmp_acl_block r1:GigabitEthernet0/0/0") {
		t.Fatalf("lab fault list = %q, %v; want f1 icmp_acl_block", got, err)
	}
	if ping() == nil {
		t.Error("icmp_acl_block: r2 still pings r1")
	}

	// frr_service_down r1 through the control endpoint.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lab-real-fault-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls["r2"], HTTPClient: labClient(t, dir)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	session := func() string {
		path := "/openconfig-network-instance:network-instances/network-instance[name=default]/protocols/protocol[identifier=openconfig-policy-types:BGP][name=bgp]/bgp/neighbors/neighbor[neighbor-address=10.0.12.1]/state/session-state"
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{"path": path, "datastore": "operational"}})
		if err != nil || res.IsError || len(res.Content) == 0 {
			return fmt.Sprintf("error %v %+v", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	if s := session(); !strings.Contains(s, "ESTABLISHED") {
		t.Fatalf("before the fault, r2's session to r1 = %q", s)
	}
	if got, err := fault("add", "frr_service_down", "r1"); err != nil || !strings.Contains(got, "f2") {
		t.Fatalf("lab fault add frr_service_down r1 = %q, %v", got, err)
	}
	waitUntil(t, 20*time.Second, "frr_service_down: r2's session to r1 leaves ESTABLISHED", func() (bool, string) {
		s := session()
		return !strings.Contains(s, "ESTABLISHED") && !strings.HasPrefix(s, "error"), s
	})
	if _, err := fault("add", "ospf_neighbor_missing", "r1:GigabitEthernet0/0/0"); err == nil || !strings.Contains(err.Error(), "not built") || !strings.Contains(err.Error(), "bgp_acl_block") {
		t.Errorf("an unbuilt fault = %v, want a refusal naming the built ones", err)
	}
	if got, err := fault("clear", "f2"); err != nil || !strings.Contains(got, "frr_service_down") {
		t.Fatalf("lab fault clear f2 = %q, %v", got, err)
	}
	waitUntil(t, 40*time.Second, "frr_service_down cleared: r2's session to r1 back", func() (bool, string) {
		s := session()
		return strings.Contains(s, "ESTABLISHED"), s
	})

	testRealHostCrash(ctx, t, fault, urls, labClient(t, dir), prefix)

	// Clearing the start fault by its words brings the pings back.
	if _, err := fault("clear", "icmp_acl_block", "r1:GigabitEthernet0/0/0"); err != nil {
		t.Fatal(err)
	}
	if err := ping(); err != nil {
		t.Errorf("icmp_acl_block cleared: r2 still cannot ping r1: %v", err)
	}
	if got, err := fault("list"); err != nil || strings.Contains(got, "f1") || strings.Contains(got, "f2") {
		t.Errorf("lab fault list after clearing = %q, %v; want none", got, err)
	}
	stop()
	if _, err := os.Stat(filepath.Join(dir, serve.ControlFile)); err == nil {
		t.Error("the control file outlived the lab")
	}
}

// waitUntil polls check every 250 ms until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, check func() (bool, string)) {
	t.Helper()
	end := time.Now().Add(timeout)
	for {
		ok, state := check()
		if ok {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s: not after %v (last: %s)", what, timeout, state)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// testRealHostCrash crashes h3 through the control endpoint of a running
// `lab up --real` and checks it as the controller sees it: h3's MCP
// endpoint refuses new connections and a session opened before fails, r3's
// port toward h3 is admin up and oper down (r3's own MCP server), r3 does
// not ping h3; cleared, h3 answers MCP on the same URL and r3 pings it.
func testRealHostCrash(ctx context.Context, t *testing.T, fault func(...string) (string, error), urls map[string]string, hc *http.Client, prefix string) {
	t.Helper()
	start := time.Now()
	defer func() {
		t.Logf("host_crash h3: crashed, checked, booted and checked in %.1f s", time.Since(start).Seconds())
	}()
	connect := func(url string) (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "lab-real-crash-test", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	}
	get := func(cs *mcp.ClientSession, path string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "network.yang.get", Arguments: map[string]any{"path": path, "datastore": "operational"}})
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) == 0 {
			return "", fmt.Errorf("tool error %+v", res)
		}
		return res.Content[0].(*mcp.TextContent).Text, nil
	}
	ping := func() error {
		return exec.CommandContext(ctx, "ip", "netns", "exec", prefix+"r3", "ping", "-n", "-c", "1", "-W", "1", "10.3.0.10").Run()
	}
	const port = "/openconfig-interfaces:interfaces/interface[name=GigabitEthernet0/0/1]/state"
	r3, err := connect(urls["r3"])
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Close()
	h3url := urls["h3"]
	before, err := connect(h3url)
	if err != nil {
		t.Fatalf("h3's MCP endpoint before the crash: %v", err)
	}
	defer before.Close()
	if _, err := get(before, "/openconfig-interfaces:interfaces"); err != nil {
		t.Fatalf("h3 before the crash: %v", err)
	}
	if err := ping(); err != nil {
		t.Fatalf("r3 does not ping h3 before the crash: %v", err)
	}

	got, err := fault("add", "host_crash", "h3")
	if err != nil || !strings.Contains(got, "host_crash h3") {
		t.Fatalf("lab fault add host_crash h3 = %q, %v", got, err)
	}
	if s, err := get(before, "/openconfig-interfaces:interfaces"); err == nil {
		t.Errorf("a session opened before the crash still answers: %.200s", s)
	}
	if cs, err := connect(h3url); err == nil {
		cs.Close()
		t.Errorf("h3's MCP endpoint %s accepts a session while h3 is down", h3url)
	} else if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("h3's MCP endpoint while down: %v, want connection refused", err)
	}
	waitUntil(t, 10*time.Second, "r3's port toward h3 admin UP, oper DOWN", func() (bool, string) {
		s, err := get(r3, port)
		return err == nil && strings.Contains(s, `"admin-status":"UP"`) && strings.Contains(s, `"oper-status":"DOWN"`), fmt.Sprint(s, err)
	})
	if err := ping(); err == nil {
		t.Error("r3 still pings h3 while it is down")
	}

	if got, err := fault("clear", "host_crash", "h3"); err != nil || !strings.Contains(got, "host_crash") {
		t.Fatalf("lab fault clear host_crash h3 = %q, %v", got, err)
	}
	after, err := connect(h3url)
	if err != nil {
		t.Fatalf("h3's MCP endpoint %s after clearing: %v", h3url, err)
	}
	defer after.Close()
	if s, err := get(after, "/openconfig-interfaces:interfaces/interface[name=eth0]/state"); err != nil || !strings.Contains(s, `"oper-status":"UP"`) {
		t.Errorf("h3's eth0 after clearing: %.300s %v", s, err)
	}
	if err := ping(); err != nil {
		t.Errorf("r3 cannot ping h3 after clearing: %v", err)
	}
}
