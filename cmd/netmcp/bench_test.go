package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/netproto"
)

var (
	peerOnce sync.Once
	peerPath string
	peerErr  error
)

// benchPeer builds the bare go-sdk server of `netmcp bench`
// (internal/cmd/bench-peer, a test program) once per test run, beside the
// netmcp under test (TestMain removes both); the tests still name it with
// --peer.
func benchPeer(t testing.TB) string {
	t.Helper()
	dir := filepath.Dir(netmcpBinary(t))
	peerOnce.Do(func() {
		peerPath = filepath.Join(dir, benchPeerName)
		build := exec.Command("go", "build", "-trimpath", "-o", peerPath, benchPeerPackage)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			peerErr = fmt.Errorf("go build %s: %v\n%s", benchPeerPackage, err, out)
		}
	})
	if peerErr != nil {
		t.Fatal(peerErr)
	}
	return peerPath
}

// TestBenchPeerAnswersAsNetmcp: the bench peer's network.yang.get returns
// the same result (structured content and text) as netmcp serve's, for
// each datastore, so that `netmcp bench` compares equal work. Operational
// state differs between two processes only in 64-bit values (RFC 7951
// strings: timestamps such as last-change, counters), which are compared
// as "N".
func TestBenchPeerAnswersAsNetmcp(t *testing.T) {
	connect := func(bin string, args ...string) *mcp.ClientSession {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-test", Version: "1"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
		if err != nil {
			t.Fatalf("start %v: %v", args, err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	netmcp := connect(netmcpBinary(t), "serve", "--device", "sim://r1", "--no-state")
	bare := connect(benchPeer(t), "--device", "sim://r1")
	for _, args := range []map[string]any{
		{"path": "/openconfig-interfaces:interfaces", "datastore": "running"},
		{"path": "/openconfig-interfaces:interfaces", "datastore": "operational"},
		{"path": "/openconfig-interfaces:interfaces"}, // default datastore: operational
	} {
		var got [2]string
		for i, cs := range []*mcp.ClientSession{netmcp, bare} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: netproto.ToolYangGet, Arguments: args})
			if err != nil || res.IsError {
				t.Fatalf("%v: %v %+v", args, err, res)
			}
			b, _ := json.Marshal(res.StructuredContent)
			got[i] = uint64s.ReplaceAllString(string(b)+"\n"+res.Content[0].(*mcp.TextContent).Text, `"N"`)
		}
		if got[0] != got[1] {
			t.Errorf("%v: netmcp answered\n%.500s\nthe bench peer\n%.500s", args, got[0], got[1])
		}
	}
}

// uint64s are RFC 7951's quoted 64-bit integers.
var uint64s = regexp.MustCompile(`"[0-9]+"`)

// TestBenchJSON runs a short `netmcp bench --json` and checks its report:
// every server measured on stdio (2025-11-25 sessions) and over HTTP
// (2025-11-25 sessions and 2026-07-28 without), no call failed, ratios to
// the bare server of the same transport and protocol, RSS read; and the
// writes with and without idempotency keys.
func TestBenchJSON(t *testing.T) {
	cmd := exec.Command(netmcpBinary(t), "bench", "--quick", "--calls", "20", "--warmup", "2", "--writes", "5", "--json", "--peer", benchPeer(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("netmcp bench: %v\n%s", err, out)
	}
	var rep benchReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Results) != 3*len(benchConfigs) || rep.Calls != 20 || rep.Reps != 1 || rep.Machine.CPUs < 1 {
		t.Fatalf("report %+v", rep)
	}
	runs := map[string]int{}
	for _, r := range rep.Results {
		runs[r.Transport+" "+r.Protocol]++
		if stateless := slices.Contains(r.Argv, "--stateless"); stateless != (r.Server == "bare go-sdk" && r.Protocol == "2026-07-28") {
			t.Errorf("%s %s %s: argv %v", r.Transport, r.Protocol, r.Server, r.Argv)
		}
		if r.Calls != 20 || r.Errors != 0 || r.P50us <= 0 || r.P99us < r.P50us || r.CallsPerSec <= 0 || r.RSSMB <= 0 || r.RSSIdleMB <= 0 {
			t.Errorf("%s %s: %+v", r.Transport, r.Server, r)
		}
		if bare := r.Server == "bare go-sdk"; bare != (r.RatioP50 == 0) || bare != (r.RatioCallsPerSec == 0) || bare != (r.RatioRSS == 0) {
			t.Errorf("%s %s: ratios %g %g %g", r.Transport, r.Server, r.RatioP50, r.RatioCallsPerSec, r.RatioRSS)
		}
	}
	if want := map[string]int{"stdio 2025-11-25": 3, "http 2025-11-25": 3, "http 2026-07-28": 3}; !maps.Equal(runs, want) {
		t.Errorf("measured %v, want %v", runs, want)
	}
	if len(rep.Writes) != 2 || rep.WriteOps != 5 {
		t.Fatalf("writes %+v", rep.Writes)
	}
	for i, w := range rep.Writes {
		if w.Key != []string{benchNoKey, benchNewKey}[i] || w.Ops != 5 || w.Errors != 0 || w.P50us <= 0 || w.OpsPerSec <= 0 ||
			(w.RatioP50 == 0) != (w.Key == benchNoKey) || w.Protocol != "2026-07-28" {
			t.Errorf("writes %d: %+v", i, w)
		}
	}
}

// TestBenchFlagErrors: bad flags are refused with exit code 2 before
// anything starts.
func TestBenchFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--calls", "0"},
		{"bench", "--transport", "carrier-pigeon"},
		{"bench", "--protocol", "1999-01-01"},
		{"bench", "--transport", "stdio", "--protocol", "2026-07-28"},
		{"bench", "--writes", "-1"},
	} {
		root := newRootCmd(args)
		root.SetOut(new(syncbuf.Buffer))
		root.SetErr(new(syncbuf.Buffer))
		err := root.Execute()
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("%v: %v, want exit code 2", args, err)
		}
	}
}
