package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/controller/cluster"
	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/serve"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// clusterTestTTL is the replicas' lease TTL in the cluster test.
const clusterTestTTL = 2 * time.Second

// startTestNATS runs a NATS server with JetStream on a temporary
// directory in this process and returns its client URL.
func startTestNATS(t *testing.T) string {
	t.Helper()
	s, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(testwait.Timeout(10 * time.Second)) {
		t.Fatal("nats server not ready")
	}
	return s.ClientURL()
}

// replicaProc is one `netmcp controller serve --cluster` child process.
type replicaProc struct {
	name   string
	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	cs     *mcp.ClientSession
	url    string // its MCP endpoint
	// unnamed counts the devices list_devices showed without the replica
	// holding them (a device between owners).
	unnamed int
}

// startReplica starts a replica over inv and connects an MCP host to it.
func startReplica(t *testing.T, natsURL, inv, name string, extra ...string) *replicaProc {
	t.Helper()
	args := append([]string{"controller", "serve", "--inventory", inv, "--listen", "127.0.0.1:0", "--reports", t.TempDir(),
		"--cluster", natsURL, "--cluster-name", name, "--cluster-lease-ttl", clusterTestTTL.String()}, extra...)
	return startControllerProc(t, name, args)
}

// faultedLab starts the built-in lab with its state in dir, closed when
// the test ends, injects fault and returns the lab's inventory file.
func faultedLab(t *testing.T, ctx context.Context, dir, fault string) string {
	t.Helper()
	lab, err := serve.Up(ctx, serve.Options{Topology: sim.DefaultTopology(), StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	f, err := topology.ParseFault(fault)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, serve.InventoryFile)
}

// startControllerProc starts `netmcp ARGS` (a controller serve with
// --listen) as a child process, killed when the test ends, waits for it
// to announce its MCP address and connects an MCP host to it.
func startControllerProc(t *testing.T, name string, args []string) *replicaProc {
	t.Helper()
	r := spawnControllerProc(t, name, args)
	r.connect(t)
	return r
}

// spawnControllerProc starts `netmcp ARGS` as startControllerProc does,
// without waiting for it: connect it.
func spawnControllerProc(t *testing.T, name string, args []string) *replicaProc {
	t.Helper()
	r := &replicaProc{name: name, cmd: exec.Command(netmcpBinary(t), args...), stderr: &syncbuf.Buffer{}}
	r.cmd.Stderr = r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); _ = r.cmd.Wait() })
	return r
}

// connect waits for the controller to announce its MCP address and
// connects an MCP host to it.
func (r *replicaProc) connect(t *testing.T) {
	t.Helper()
	name := r.name
	re := regexp.MustCompile(`MCP at (http://[0-9.:]+/mcp)`)
	var url string
	testwait.Until(t, 30*time.Second, name+" announces its address", func() (bool, string) {
		if m := re.FindStringSubmatch(r.stderr.String()); m != nil {
			url = m[1]
		}
		return url != "", r.stderr.String()
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "controller-test"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	r.cs, r.url = cs, url
}

// held lists the devices whose session this replica holds (connected),
// and the devices it lists at all.
func (r *replicaProc) held(ctx context.Context) (held []string, all int, err error) {
	held, all, unnamed, err := r.listHeld(ctx)
	r.unnamed += unnamed
	return held, all, err
}

// listHeld is held, and how many devices the replica names no holder
// for.
func (r *replicaProc) listHeld(ctx context.Context) (held []string, all, unnamed int, err error) {
	res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_devices"})
	if err != nil {
		return nil, 0, 0, err
	}
	var out struct {
		Devices []struct{ Name, State, Replica string }
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, 0, 0, err
	}
	for _, d := range out.Devices {
		if d.State == "connected" {
			held = append(held, d.Name)
		}
		if d.Replica == "" {
			unnamed++
		}
	}
	return held, len(out.Devices), unnamed, nil
}

// ownedOnce waits until every device of names is held by exactly one of
// the replicas and returns the holder of each.
func ownedOnce(t *testing.T, ctx context.Context, reps []*replicaProc, names []string, what string) map[string]*replicaProc {
	t.Helper()
	return ownedOnceWithin(t, ctx, reps, names, what, time.Minute)
}

// ownedOnceWithin is ownedOnce, waiting up to d (stretched with the
// machine's load).
func ownedOnceWithin(t *testing.T, ctx context.Context, reps []*replicaProc, names []string, what string, d time.Duration) map[string]*replicaProc {
	t.Helper()
	var owner map[string]*replicaProc
	testwait.Until(t, d, what, func() (bool, string) {
		owner = map[string]*replicaProc{}
		count := map[string][]string{}
		for _, r := range reps {
			held, _, err := r.held(ctx)
			if err != nil {
				return false, r.name + ": " + err.Error()
			}
			for _, d := range held {
				owner[d] = r
				count[d] = append(count[d], r.name)
			}
		}
		var bad []string
		for _, r := range reps {
			if r.unnamed > 0 {
				bad = append(bad, fmt.Sprintf("%s names no holder for %d devices", r.name, r.unnamed))
				r.unnamed = 0
			}
		}
		for _, d := range names {
			if len(count[d]) != 1 {
				bad = append(bad, fmt.Sprintf("%s held by %v", d, count[d]))
			}
		}
		return len(bad) == 0, strings.Join(bad, "; ")
	})
	return owner
}

// readHostname reads device's hostname through replica r.
func readHostname(ctx context.Context, r *replicaProc, device string) error {
	res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: map[string]any{
		"device": device, "tool": netproto.ToolYangGet, "arguments": map[string]any{"path": "/openconfig-system:system/config/hostname"}}})
	if err != nil {
		return err
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), device) {
		return fmt.Errorf("%s through %s answered %s (error %v)", device, r.name, b, res.IsError)
	}
	return nil
}

// clusterFault is the fault TestControllerCluster's lab runs with: its
// diagnosis needs a host's tools (cli exec, for its resolvers), which a
// replica learns from the replica holding the host.
const clusterFault = "host_incorrect_dns h3"

// askReport is what a report of ask is compared on.
type askReport struct {
	ID            string            `json:"id"`
	IsAnomaly     bool              `json:"is_anomaly"`
	FaultyDevices []string          `json:"faulty_devices"`
	RootCauseName []string          `json:"root_cause_name"`
	Diagnosis     string            `json:"diagnosis"`
	Unreachable   map[string]string `json:"unreachable"`
	ElapsedMS     float64           `json:"elapsed_ms"`
	RootCauses    []struct {
		Name    string   `json:"name"`
		Devices []string `json:"devices"`
		Summary string   `json:"summary"`
	} `json:"root_causes"`
	Calls []json.RawMessage `json:"calls"`
}

// differs says how got differs from want: diagnosis, anomaly, faulty
// devices, root causes (name, devices, summary), unread devices.
func (want askReport) differs(got askReport) string {
	var d []string
	if got.Diagnosis != want.Diagnosis {
		d = append(d, fmt.Sprintf("diagnosis %q, want %q", got.Diagnosis, want.Diagnosis))
	}
	if got.IsAnomaly != want.IsAnomaly || !slices.Equal(got.FaultyDevices, want.FaultyDevices) || !slices.Equal(got.RootCauseName, want.RootCauseName) {
		d = append(d, fmt.Sprintf("anomaly %v, faulty %v, causes %v; want %v, %v, %v", got.IsAnomaly, got.FaultyDevices, got.RootCauseName,
			want.IsAnomaly, want.FaultyDevices, want.RootCauseName))
	}
	gb, _ := json.Marshal(got.RootCauses)
	wb, _ := json.Marshal(want.RootCauses)
	if string(gb) != string(wb) {
		d = append(d, fmt.Sprintf("root causes %s, want %s", gb, wb))
	}
	if len(got.Unreachable) != len(want.Unreachable) {
		d = append(d, fmt.Sprintf("unread devices %v, want %v", got.Unreachable, want.Unreachable))
	}
	if len(got.Calls) != len(want.Calls) {
		d = append(d, fmt.Sprintf("%d calls, want %d", len(got.Calls), len(want.Calls)))
	}
	return strings.Join(d, "; ")
}

// singleAsk asks a single controller (`netmcp controller ask`, no
// cluster) over the inventory what is wrong with the network.
func singleAsk(t *testing.T, ctx context.Context, inv, fault string) askReport {
	t.Helper()
	out, err := exec.CommandContext(ctx, netmcpBinary(t), "controller", "ask", "--inventory", inv, "--reports", t.TempDir(), "--json", "--no-fix",
		"what is wrong with the network?").Output()
	if err != nil {
		t.Fatalf("single controller ask: %v\n%s", err, out)
	}
	var rep askReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("single controller ask: %v\n%s", err, out)
	}
	if len(rep.Unreachable) > 0 {
		t.Fatalf("single controller ask could not read %d of the devices (the reference must read them all): %.500s", len(rep.Unreachable), rep.Diagnosis)
	}
	if !rep.IsAnomaly || len(rep.RootCauseName) == 0 {
		t.Fatalf("single controller ask found nothing wrong with %s: %s", fault, rep.Diagnosis)
	}
	return rep
}

// sweepIntent is the fan-out intent: every device of the fleet examined.
const sweepIntent = "what is wrong with the network?"

// askThrough asks intent through the controller r and returns its report
// and the host's wall time of the call.
func askThrough(t *testing.T, ctx context.Context, r *replicaProc, intent string) (askReport, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"intent": intent}})
	if err != nil || res.IsError {
		t.Fatalf("ask %q through %s: %v %+v", intent, r.name, err, res)
	}
	wall := time.Since(start)
	var rep askReport
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &rep); err != nil || rep.ID == "" {
		t.Fatalf("ask %q through %s: no report id in %.300s", intent, r.name, b)
	}
	return rep, wall
}

// askEach asks intent through each replica and compares each report with
// the single controller's; it returns the first replica's report.
func askEach(t *testing.T, ctx context.Context, reps []*replicaProc, held map[*replicaProc]int, devices int, single askReport, intent string) askReport {
	t.Helper()
	var first askReport
	for i, r := range reps {
		rep, wall := askThrough(t, ctx, r, intent)
		if diff := single.differs(rep); diff != "" {
			t.Errorf("ask %q through %s (holding %d of %d devices) differs from a single controller's: %.2000s", intent, r.name, held[r], devices, diff)
		}
		t.Logf("ask %q through %s (holding %d of %d devices): %v (engine %.0f ms), %d calls; single controller: engine %.0f ms, %d calls",
			intent, r.name, held[r], devices, wall.Round(time.Millisecond), rep.ElapsedMS, len(rep.Calls), single.ElapsedMS, len(single.Calls))
		if i == 0 {
			first = rep
		}
	}
	return first
}

// TestControllerCluster runs three `netmcp controller serve --cluster`
// replicas as child processes over one simulated lab and an in-process
// NATS: every device is held by exactly one replica; a call through one
// replica on another's device is answered by the owner; ask through
// every replica gives the report a single controller gives, with a fault
// injected; a consent used
// through one replica is refused through another; a replica with another
// policy may not join; `controller status` lists the replicas; and once
// a replica is killed (SIGKILL, no hand-back) its devices are held again
// by the others and answer.
func TestControllerCluster(t *testing.T) {
	natsURL := startTestNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(3*time.Minute))
	defer cancel()
	dir := t.TempDir()
	inv := faultedLab(t, ctx, dir, clusterFault)
	single := singleAsk(t, ctx, inv, clusterFault)
	var names []string
	for _, d := range sim.DefaultTopology().Devices {
		names = append(names, d.Name)
	}
	sort.Strings(names)

	reps := []*replicaProc{startReplica(t, natsURL, inv, "ra"), startReplica(t, natsURL, inv, "rb"), startReplica(t, natsURL, inv, "rc")}
	owner := ownedOnce(t, ctx, reps, names, "every device held by exactly one replica")
	for _, r := range reps {
		if _, all, err := r.held(ctx); err != nil || all != len(names) {
			t.Fatalf("%s lists %d devices (%v), want the whole fleet (%d)", r.name, all, err, len(names))
		}
	}

	// Through each replica, a device another replica holds.
	for _, r := range reps {
		for _, d := range names {
			if owner[d] != r {
				if err := readHostname(ctx, r, d); err != nil {
					t.Fatalf("routed call: %v", err)
				}
				break
			}
		}
	}

	// ask through each replica examines the whole fleet, the devices the
	// others hold through them, and gives the single controller's report.
	// The first asking replica is one that does not hold every device.
	count := map[*replicaProc]int{}
	for _, r := range owner {
		count[r]++
	}
	sort.SliceStable(reps, func(i, j int) bool { return count[reps[i]] < len(names) && count[reps[j]] == len(names) })
	asked := askEach(t, ctx, reps, count, len(names), single, sweepIntent)

	// A report of ask through one replica is read through the others.
	for _, r := range reps[1:] {
		rr, err := r.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "netmcp://reports/" + asked.ID})
		if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, asked.ID) {
			t.Fatalf("report %s of %s read through %s: %v", asked.ID, reps[0].name, r.name, err)
		}
		rr, err = r.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "netmcp://reports"})
		if err != nil || !strings.Contains(rr.Contents[0].Text, asked.ID) {
			t.Fatalf("reports listed through %s: %v, want %s among them", r.name, err, asked.ID)
		}
	}

	// A consent is used once across the cluster, whatever replica sees it.
	_, key, _ := ed25519.GenerateKey(nil)
	now := time.Now()
	consent, err := approval.Consent{Tool: netproto.ToolYangGet, Parameters: json.RawMessage(`{}`), User: "ann", Timestamp: now,
		Nonce: "cluster-test-nonce", Device: names[0], Expires: now.Add(time.Minute)}.Sign("k1", key)
	if err != nil {
		t.Fatal(err)
	}
	withConsent := map[string]any{"device": names[0], "tool": netproto.ToolYangGet,
		"arguments": map[string]any{"path": "/openconfig-system:system/config/hostname", "consent": consent}}
	if _, err := reps[0].cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: withConsent}); err != nil &&
		strings.Contains(err.Error(), "refused by the cluster") {
		t.Fatalf("first use of a consent: %v", err)
	}
	_, err = reps[1].cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_device_tool", Arguments: withConsent})
	if err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("the same consent through another replica: %v, want it refused as already used", err)
	}

	// The replicas' audit records are one chain, verified from anywhere.
	out, err := exec.CommandContext(ctx, netmcpBinary(t), "audit", "verify", "--cluster", natsURL).CombinedOutput()
	m := regexp.MustCompile(`^OK cluster \S+: (\d+) records`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("audit verify --cluster: %v\n%s", err, out)
	}
	// Each replica recorded at least the request and the response of its
	// list_devices and ask calls.
	if n, _ := strconv.Atoi(string(m[1])); n < 4*len(reps) {
		t.Fatalf("audit verify --cluster: %s, want at least %d records", out, 4*len(reps))
	}

	// A replica with another policy is refused.
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(pol, []byte("roles:\n  noc: [tool:ask]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.CommandContext(ctx, netmcpBinary(t), "controller", "serve", "--inventory", inv, "--listen", "127.0.0.1:0", "--reports", t.TempDir(),
		"--cluster", natsURL, "--cluster-lease-ttl", clusterTestTTL.String(), "--policy", pol).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "policy differs from the cluster's") {
		t.Fatalf("a replica with another policy: %v\n%s", err, out)
	}

	// controller status lists the three replicas and every lease.
	out, err = exec.CommandContext(ctx, netmcpBinary(t), "controller", "status", "--cluster", natsURL, "--json").Output()
	if err != nil {
		t.Fatalf("controller status: %v\n%s", err, out)
	}
	var st cluster.Status
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("controller status --json: %v\n%s", err, out)
	}
	if len(st.Replicas) != 3 || st.Devices != len(names) {
		t.Fatalf("controller status: %d replicas, %d devices; want 3, %d\n%s", len(st.Replicas), st.Devices, len(names), out)
	}
	text, err := exec.CommandContext(ctx, netmcpBinary(t), "controller", "status", "--cluster", natsURL).Output()
	if err != nil || !strings.Contains(string(text), "3 replicas") || !strings.Contains(string(text), "lease renewed") {
		t.Fatalf("controller status: %v\n%s", err, text)
	}

	// SIGKILL the replica holding the first device: no hand-back.
	victim := owner[names[0]]
	var lost []string
	for _, d := range names {
		if owner[d] == victim {
			lost = append(lost, d)
		}
	}
	var rest []*replicaProc
	for _, r := range reps {
		if r != victim {
			rest = append(rest, r)
		}
	}
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = victim.cmd.Wait()
	killed := time.Now()
	ownedOnce(t, ctx, rest, names, "every device held again after "+victim.name+" was killed")
	for _, d := range lost {
		if err := readHostname(ctx, rest[0], d); err != nil {
			t.Fatalf("after the kill: %v", err)
		}
		if err := readHostname(ctx, rest[1], d); err != nil {
			t.Fatalf("after the kill: %v", err)
		}
	}
	t.Logf("%s killed holding %d devices; all held and answering again after %v (lease TTL %v)", victim.name, len(lost), time.Since(killed).Round(time.Millisecond), clusterTestTTL)
}

// TestControllerClusterConsoleFix: two replicas with their web consoles
// over a lab with an ACL fault. A fix asked and queued through one
// replica's console waits in the other's queue, is approved there and
// applied (the devices' approval questions answered through whichever
// replica holds them), once: the first console no longer lists it, may
// not approve it, and shows the report with its fix applied.
func TestControllerClusterConsoleFix(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a lab, a NATS server and two controllers")
	}
	natsURL := startTestNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(5*time.Minute))
	defer cancel()
	dir := t.TempDir()
	inv := faultedLab(t, ctx, dir, ctlFault)
	var names []string
	for _, d := range sim.DefaultTopology().Devices {
		names = append(names, d.Name)
	}
	reps := []*replicaProc{startReplica(t, natsURL, inv, "wa", "--web", "127.0.0.1:0"), startReplica(t, natsURL, inv, "wb", "--web", "127.0.0.1:0")}
	ownedOnce(t, ctx, reps, names, "every device held by exactly one replica")
	var web []*webSession
	for _, r := range reps {
		m := regexp.MustCompile(`console at (\S+)`).FindStringSubmatch(r.stderr.String())
		if m == nil {
			t.Fatalf("%s printed no console URL:\n%s", r.name, r.stderr.String())
		}
		web = append(web, loginConsole(t, m[1]))
	}
	a, b := web[0], web[1]

	code, _, loc := a.do(http.MethodPost, a.base+"/ask", url.Values{"intent": {"verify reachability between r1 and h3"}})
	if code != http.StatusSeeOther {
		t.Fatalf("POST /ask through wa: %d", code)
	}
	id := a.run(loc)
	if code, _, _ := a.do(http.MethodPost, a.base+"/report/"+id+"/apply", url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("apply through wa: %d", code)
	}
	approve := regexp.MustCompile(`action="(/approvals/[^/"]+/approve)"`)
	_, queue, _ := b.do(http.MethodGet, b.base+"/approvals", nil)
	m := approve.FindStringSubmatch(queue)
	if m == nil || !strings.Contains(queue, id) {
		t.Fatalf("the fix of report %s queued through wa is not waiting in wb's queue:\n%.2000s", id, queue)
	}
	code, _, loc = b.do(http.MethodPost, b.base+m[1], url.Values{})
	if code != http.StatusSeeOther {
		t.Fatalf("approve through wb: %d", code)
	}
	b.run(loc)
	_, page, _ := b.do(http.MethodGet, b.base+"/report/"+id, nil)
	if !strings.Contains(page, "verified") || !strings.Contains(page, "confirmed") {
		t.Fatalf("the fix approved through wb was not verified and confirmed:\n%.3000s", page)
	}
	if code, _, _ := a.do(http.MethodPost, a.base+m[1], url.Values{}); code != http.StatusNotFound {
		t.Errorf("approving again through wa: %d, want 404 (decided already)", code)
	}
	if _, queue, _ := a.do(http.MethodGet, a.base+"/approvals", nil); approve.MatchString(queue) {
		t.Errorf("wa still lists a fix waiting:\n%.2000s", queue)
	}
	if _, page, _ := a.do(http.MethodGet, a.base+"/report/"+id, nil); !strings.Contains(page, "confirmed") || strings.Contains(page, "/apply\"") {
		t.Errorf("wa's page of report %s does not show its fix applied, or still offers it:\n%.3000s", id, page)
	}
}
