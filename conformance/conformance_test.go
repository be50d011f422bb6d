package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// check is one check of a scenario, as the suite writes it to checks.json.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// scenario is the outcome of one scenario.
type scenario struct {
	name   string
	checks []check
}

func (s scenario) with(status string) []check {
	var out []check
	for _, c := range s.checks {
		if c.Status == status {
			out = append(out, c)
		}
	}
	return out
}

// failed reports whether a check failed (warnings do not fail a scenario,
// as in the suite's own exit status for server runs).
func (s scenario) failed() bool { return len(s.with("FAILURE")) > 0 }

// resultDir matches the suite's per-scenario output directory names.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[0-9-]+Z$`)

// readResults reads every checks.json under the suite's output directory.
func readResults(t *testing.T, dir string) map[string]scenario {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading suite results: %v", err)
	}
	out := map[string]scenario{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			t.Fatalf("scenario %s: %v", m[1], err)
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("scenario %s: checks.json: %v", m[1], err)
		}
		out[m[1]] = scenario{name: m[1], checks: checks}
	}
	return out
}

// runSuite runs the conformance CLI's server mode against url with extra
// arguments, writing results under outDir, and returns its output.
func runSuite(t *testing.T, tl npmTools, url, outDir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args = append([]string{"server", "--url", url, "--output-dir", outDir}, args...)
	out, err := tl.command(ctx, outDir, tl.conformance, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("conformance %s: timed out\n%s", strings.Join(args, " "), out)
	}
	// Exit status 1 means a failed check, which the checks themselves
	// report (see judge); anything else means the suite did not run.
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("conformance %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// serverScenarios lists the suite's server scenarios (`conformance list --server`).
func serverScenarios(t *testing.T, tl npmTools) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := tl.command(ctx, t.TempDir(), tl.conformance, "list", "--server").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list --server: %v\n%s", err, out)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		// "  - server-initialize [2025-06-18,2025-11-25]"
		item, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if f := strings.Fields(item); ok && len(f) > 0 {
			names = append(names, f[0])
		}
	}
	if len(names) == 0 {
		t.Fatalf("conformance list --server listed no scenario:\n%s", out)
	}
	return names
}

// baseline returns the scenarios known to fail against target
// (testdata/baseline.yml, explained in KNOWN.md).
func baseline(t *testing.T, target string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string][]string
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("testdata/baseline.yml: %v", err)
	}
	list, ok := m[target]
	if !ok {
		t.Fatalf("testdata/baseline.yml has no %q entry", target)
	}
	return list
}

// judge fails t for every scenario that failed and is not in known, and
// for every known failure that now passes; it logs warnings and a summary.
func judge(t *testing.T, results map[string]scenario, known []string) {
	t.Helper()
	names := make([]string, 0, len(results))
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	var summary strings.Builder
	ok := 0
	for _, n := range names {
		s := results[n]
		state := "ok"
		switch {
		case s.failed() && slices.Contains(known, n):
			state = "FAILING (known, see KNOWN.md)"
			for _, c := range s.with("FAILURE") {
				t.Logf("scenario %s (known failure): check %s: %s", n, c.ID, c.ErrorMessage)
			}
		case s.failed():
			state = "FAILING"
			for _, c := range s.with("FAILURE") {
				t.Errorf("scenario %s: check %s failed: %s %s", n, c.ID, c.Description, c.ErrorMessage)
			}
		case slices.Contains(known, n):
			t.Errorf("scenario %s passes but testdata/baseline.yml lists it as failing: remove it there and in KNOWN.md", n)
		default:
			ok++
		}
		for _, c := range s.with("WARNING") {
			t.Logf("scenario %s: warning %s: %s %s", n, c.ID, c.Description, c.ErrorMessage)
		}
		fmt.Fprintf(&summary, "  %-32s %d checks succeeded, %d failed, %d warnings: %s\n", n,
			len(s.with("SUCCESS")), len(s.with("FAILURE")), len(s.with("WARNING")), state)
	}
	t.Logf("conformance scenarios: %d of %d ok\n%s", ok, len(names), summary.String())
}

// TestConformanceServerAllScenarios runs every server scenario of the
// official suite (active and pending) against the fixture server
// (internal/cmd/conformance-server): netmcp's HTTP transport and
// capability middleware serving the fixtures.
func TestConformanceServerAllScenarios(t *testing.T) {
	tl := requireTools(t)
	want := serverScenarios(t, tl)
	url := startServer(t, conformanceServerBinary(t), "--listen", "127.0.0.1:0")
	out := t.TempDir()
	log := runSuite(t, tl, url, out, "--suite", "all")
	if i := strings.Index(log, "=== SUMMARY ==="); i >= 0 {
		t.Logf("suite summary:\n%s", log[i:])
	}
	results := readResults(t, out)
	for _, n := range want {
		if _, ok := results[n]; !ok {
			t.Errorf("scenario %s was listed but has no result; suite output:\n%s", n, log)
		}
	}
	judge(t, results, baseline(t, "conformance-server"))
}

// serveScenarios are the server scenarios that need no fixture, run
// against `netmcp serve --device sim://r1` itself.
var serveScenarios = []string{
	"server-initialize",
	"ping",
	"logging-set-level",
	"tools-list",
	"resources-list",
	"prompts-list",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
}

// TestConformanceServe runs the fixture-free scenarios against a real
// device server, `netmcp serve --device sim://r1`.
func TestConformanceServe(t *testing.T) {
	tl := requireTools(t)
	url := startNetmcp(t, "serve", "--device", "sim://r1", "--local-role", "admin", "--listen", "127.0.0.1:0", "--state-dir", t.TempDir())
	out := t.TempDir()
	for _, s := range serveScenarios {
		runSuite(t, tl, url, out, "--scenario", s)
	}
	results := readResults(t, out)
	for _, s := range serveScenarios {
		if _, ok := results[s]; !ok {
			t.Errorf("scenario %s has no result", s)
		}
	}
	judge(t, results, baseline(t, "serve"))
}
