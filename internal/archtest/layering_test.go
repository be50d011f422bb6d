package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The layering rule. Dependencies point one way, downwards:
//
//	cmd -> {lab/eval, lab/labtest} -> {controller, agent, console, lab/serve}
//	    -> {server, client}
//	    -> {device/*, lab/*, approval, policy, audit, diag, d2d, transport, ...}
//	    -> {yang, netproto}
//
// Only non-test imports count: a test may import anything (a lab harness, a
// driver, a fake server). Packages under internal/ at the module root are
// shared helpers that any package may use; they are outside the rule.

// module is the module path every package path below is relative to.
const module = "github.com/netmcp/netmcp"

// A layer is one level of the hierarchy. A package may import packages of
// lower layers; within its own layer only its own unit (the unit's path and
// everything under it), unless the layer allows peers.
type layer struct {
	name  string
	peers bool     // units of this layer may import each other
	units []string // a unit is a package path and every package below it
}

// layers runs from the top down. A package belongs to the unit with the
// longest path that contains it: lab/serve is an application while the rest
// of lab/ is a domain package.
var layers = []layer{
	{name: "command", units: []string{
		"cmd", // the binaries: wiring only
	}},
	{name: "harness", units: []string{
		"lab/labtest", // the served-lab test harness, imported by tests only
		"lab/eval",    // scores a diagnoser (the controller, or a command) on a fault suite
	}},
	{name: "application", units: []string{
		"controller",  // the engine, its MCP facade (serve), its model agent (llm)
		"agent",       // the device-to-device peer
		"console",     // the web console: a fleet's map, live
		"lab/serve",   // a lab's devices as MCP servers, its control endpoint
		"conformance", // the MCP conformance suite's reference server
	}},
	{name: "session", units: []string{
		"server", // one device as one MCP server
		"client", // one supervised MCP session per device
	}},
	{name: "domain", peers: true, units: []string{
		"device", // the Driver contract, its helpers and the drivers
		"lab",    // topology, faults, the simulated and the real lab, scoring
		"approval", "policy", "audit", "diag", "redact", "pki", "inventory",
		"transport", // stdio, Streamable HTTP, the TLS stream
		"d2d",       // the device-to-device wire format
		"remedy",    // the fix for a diagnosed fault, for controller and agent
	}},
	{name: "vocabulary", peers: true, units: []string{
		"yang",     // YANG paths and RFC 7951 trees
		"netproto", // the drafts' names, codes and types
	}},
}

// free lists the units outside the rule, in both directions.
var free = []string{"internal"}

// drivers are the packages that implement a device backend.
var drivers = []string{"device/linux", "device/netconf", "device/sshcli", "device/snmp", "lab/sim"}

// labBackends are the packages that run a lab's network.
var labBackends = []string{"lab/sim", "lab/real"}

// everything matches every package: a rule's from for "nothing imports".
var everything = []string{""}

// A rule forbids edges the layers alone allow (or names an edge they forbid
// so that the failure says why).
type rule struct {
	from   []string // importing units
	to     []string // imported units
	except []string // importing units the rule does not cover
	why    string
}

var rules = []rule{
	{from: []string{"agent"}, to: []string{"controller", "server"},
		why: "the agent builds on client and d2d, never on the controller or the server"},
	{from: []string{"agent"}, to: drivers,
		why: "the agent reaches devices through MCP, never through a driver"},
	{from: []string{"diag"}, to: []string{"device"},
		why: "diag runs diagnostics for the drivers and never imports device"},
	{from: []string{"yang"}, to: []string{"redact"},
		why: "yang is vocabulary and never imports redact"},
	{from: everything, to: labBackends,
		// cmd/netmcp wires the sim:// driver and the real lab until the
		// lab's commands live in lab/serve.
		except: []string{"lab", "cmd/netmcp"},
		why:    "nothing outside lab/ imports a lab backend"},
	{from: []string{"controller"}, to: []string{"lab/sim"},
		why: "the controller never imports the simulator"},
	{from: []string{"device"}, to: []string{"server", "transport"},
		why: "a driver never imports the MCP layer"},
	{from: []string{"server"}, to: drivers,
		why: "the MCP layer never names a particular driver"},
}

// An edge is one non-test import, by module-relative package paths.
type edge struct{ from, to string }

func (e edge) String() string { return e.from + " -> " + e.to }

// knownViolations are the wrong edges the code still has, each with a
// comment saying where and why. The test tolerates exactly these and fails
// when one is gone, so that its line is deleted: the list only shrinks. It
// is empty: keep it so, and fix a wrong edge rather than list it.
var knownViolations = []edge{}

// within reports whether pkg is unit or below it.
func within(pkg, unit string) bool {
	return unit == "" || pkg == unit || strings.HasPrefix(pkg, unit+"/")
}

func withinAny(pkg string, units []string) bool {
	return slices.ContainsFunc(units, func(u string) bool { return within(pkg, u) })
}

// place returns the layer index (0 is the top) and the unit of pkg, or
// ok false when no layer holds it.
func place(pkg string) (index int, unit string, ok bool) {
	for i, l := range layers {
		for _, u := range l.units {
			if within(pkg, u) && len(u) > len(unit) {
				index, unit, ok = i, u, true
			}
		}
	}
	return index, unit, ok
}

// check returns why e breaks the rule, one reason per broken part, or nil.
// Both ends must have a place (see TestEveryPackageHasALayer).
func check(e edge) []string {
	if withinAny(e.from, free) || withinAny(e.to, free) {
		return nil
	}
	var why []string
	fi, fu, _ := place(e.from)
	ti, tu, _ := place(e.to)
	switch {
	case fu == tu:
	case ti < fi:
		why = append(why, fmt.Sprintf("%s (%s) may not import %s (%s): imports point downwards",
			e.from, layers[fi].name, e.to, layers[ti].name))
	case ti == fi && !layers[fi].peers:
		why = append(why, fmt.Sprintf("%s and %s are both %s packages, which do not import each other",
			fu, tu, layers[fi].name))
	}
	for _, r := range rules {
		if withinAny(e.from, r.from) && !withinAny(e.from, r.except) && withinAny(e.to, r.to) {
			why = append(why, r.why)
		}
	}
	return why
}

// goosList are the systems whose files the test reads: a file built only
// on one of them counts like any other.
var goosList = []string{"linux", "darwin", "windows"}

// listed is the part of `go list -json` the test reads.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Error      *struct{ Err string }
}

// module holds what `go list` said, read once for every test.
var moduleOnce struct {
	sync.Once
	pkgs  map[string]listed
	edges map[edge]bool
	err   error
}

// loadModule returns every package of the module and its non-test imports
// of the module's packages, by module-relative path, merged over goosList.
func loadModule(t *testing.T) (pkgs map[string]listed, edges map[edge]bool) {
	t.Helper()
	moduleOnce.Do(func() {
		moduleOnce.pkgs, moduleOnce.edges, moduleOnce.err = listModule()
	})
	if moduleOnce.err != nil {
		t.Fatal(moduleOnce.err)
	}
	return moduleOnce.pkgs, moduleOnce.edges
}

func listModule() (pkgs map[string]listed, edges map[edge]bool, err error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	pkgs, edges = map[string]listed{}, map[edge]bool{}
	for _, goos := range goosList {
		cmd := exec.Command("go", "list", "-e", "-json", "./...")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, nil, fmt.Errorf("GOOS=%s go list: %v\n%s", goos, err, stderr.String())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p listed
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, nil, fmt.Errorf("GOOS=%s go list: %v", goos, err)
			}
			if p.Error != nil {
				if len(p.GoFiles) == 0 && strings.Contains(p.Error.Err, "build constraints exclude all Go files") {
					continue // a package for other systems
				}
				return nil, nil, fmt.Errorf("GOOS=%s go list %s: %s", goos, p.ImportPath, p.Error.Err)
			}
			from := relative(p.ImportPath)
			if _, seen := pkgs[from]; !seen {
				pkgs[from] = p
			}
			for _, imp := range p.Imports {
				if to := relative(imp); to != imp {
					edges[edge{from, to}] = true
				}
			}
		}
	}
	if len(pkgs) == 0 {
		return nil, nil, errors.New("go list found no packages")
	}
	return pkgs, edges, nil
}

// relative returns path relative to the module, or path itself when it is
// outside the module.
func relative(path string) string {
	if path == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest
	}
	return path
}

// importingFiles names the files of p that import the module package to,
// for a failure message.
func importingFiles(p listed, to string) []string {
	var files []string
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, name), nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, spec := range f.Imports {
			if path, _ := strconv.Unquote(spec.Path.Value); path == module+"/"+to {
				files = append(files, filepath.Join(relative(p.ImportPath), name))
			}
		}
	}
	return files
}

// TestLayering fails on every import that breaks the layering rule and is
// not a known violation, naming the importing file and the broken rule, and
// on a known violation that is gone.
func TestLayering(t *testing.T) {
	pkgs, edges := loadModule(t)
	for _, p := range reconcile(edges, knownViolations) {
		if p.why == nil {
			t.Error(p.msg)
			continue
		}
		t.Errorf("wrong import %s (in %s):\n\t%s",
			p.edge, strings.Join(importingFiles(pkgs[p.edge.from], p.edge.to), ", "), strings.Join(p.why, "\n\t"))
	}
}

// A problem is a wrong edge (why set) or a stale line of knownViolations
// (msg set).
type problem struct {
	edge edge
	why  []string
	msg  string
}

// reconcile returns the wrong edges among edges that known does not list,
// and the lines of known that no longer name a wrong edge, sorted by edge.
// Edges from or to a package without a place are left to
// TestEveryPackageHasALayer.
func reconcile(edges map[edge]bool, known []edge) []problem {
	listed := map[edge]bool{}
	for _, e := range known {
		listed[e] = true
	}
	var sorted []edge
	for e := range edges {
		sorted = append(sorted, e)
	}
	slices.SortFunc(sorted, func(a, b edge) int { return strings.Compare(a.String(), b.String()) })
	var out []problem
	for _, e := range sorted {
		if _, _, ok := place(e.from); !ok {
			continue
		}
		if _, _, ok := place(e.to); !ok {
			continue
		}
		why := check(e)
		switch {
		case len(why) > 0 && !listed[e]:
			out = append(out, problem{edge: e, why: why})
		case len(why) == 0 && listed[e]:
			out = append(out, problem{edge: e, msg: fmt.Sprintf("knownViolations lists %s, which the rule now allows: delete its line", e)})
		}
	}
	for _, e := range known {
		if !edges[e] {
			out = append(out, problem{edge: e, msg: fmt.Sprintf("knownViolations lists %s, but %s no longer imports %s: delete its line", e, e.from, e.to)})
		}
	}
	return out
}

// TestReconcile pins how the allowlist is held to the code.
func TestReconcile(t *testing.T) {
	wrong, right := edge{"agent", "controller"}, edge{"agent", "client"}
	tests := []struct {
		name  string
		edges []edge
		known []edge
		want  []string // one line per problem: the edge, and "wrong" or "stale"
	}{
		{"clean", []edge{right}, nil, nil},
		{"wrong-edge", []edge{right, wrong}, nil, []string{"agent -> controller wrong"}},
		{"listed-wrong-edge", []edge{wrong}, []edge{wrong}, nil},
		{"listed-edge-gone", []edge{right}, []edge{wrong}, []string{"agent -> controller stale"}},
		{"listed-edge-now-allowed", []edge{right}, []edge{right}, []string{"agent -> client stale"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edges := map[edge]bool{}
			for _, e := range tt.edges {
				edges[e] = true
			}
			var got []string
			for _, p := range reconcile(edges, tt.known) {
				kind := "wrong"
				if p.why == nil {
					kind = "stale"
				}
				got = append(got, p.edge.String()+" "+kind)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("reconcile = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEveryPackageHasALayer fails on a package the layers do not place, so
// that a new package is placed on purpose.
func TestEveryPackageHasALayer(t *testing.T) {
	pkgs, _ := loadModule(t)
	for pkg := range pkgs {
		if withinAny(pkg, free) {
			continue
		}
		if _, _, ok := place(pkg); !ok {
			t.Errorf("package %s has no layer: add it (or its parent) to a layer's units in layering_test.go", pkg)
		}
	}
}

// TestCheck pins the rule itself on edges, existing or not.
func TestCheck(t *testing.T) {
	tests := []struct {
		from, to string
		wrong    bool
	}{
		{"cmd/netmcp", "controller", false},
		{"cmd/netmcp", "lab/sim", false},
		{"cmd/netmcp", "device/linux", false},
		{"controller", "client", false},
		{"controller", "controller/serve", false},
		{"controller/serve", "server", false},
		{"controller", "lab/topology", false},
		{"controller", "d2d/report", false},
		{"controller", "remedy", false},
		{"controller/llm", "controller/serve", false},
		{"controller/serve", "client", false},
		{"controller", "lab/sim", true},
		{"controller", "lab/sim/netsim", true},
		{"controller", "agent", true},
		{"agent", "client", false},
		{"agent", "d2d/sign", false},
		{"agent", "remedy", false},
		{"agent", "agent/discover", false},
		{"agent", "internal/netns", false},
		{"agent", "controller", true},
		{"agent", "server", true},
		{"agent", "device/linux", true},
		{"agent", "device/snmp", true},
		{"agent/discover", "device/linux", true},
		{"lab/serve", "server", false},
		{"lab/serve", "lab/sim", false},
		{"lab/labtest", "lab/serve", false},
		{"cmd/netmcp", "lab/eval", false},
		{"lab/eval", "controller", false},
		{"lab/eval", "server", false},
		{"lab/eval", "lab/sim", false},
		{"controller", "lab/eval", true},
		{"console", "client", false},
		{"console", "lab/topology", false},
		{"client", "console", true},
		{"console", "controller", true},
		{"lab/twin", "lab/real", false},
		{"lab/real", "device/linux", false},
		{"lab/sim", "device/configstore", false},
		{"lab/real", "lab/serve", true},
		{"lab/gen/suite", "lab/sim", false},
		{"lab/sim", "lab/sim/vrp", false},
		{"lab/real", "lab/fault", false},
		{"server", "device", false},
		{"server", "device/configstore", false},
		{"server", "transport", false},
		{"server", "device/netconf", true},
		{"server", "lab/sim", true},
		{"server", "client", true},
		{"client", "transport/tlsstream", false},
		{"client", "server", true},
		{"transport", "server", true},
		{"device/netconf", "transport", true},
		{"device/sshcli", "device/configstore", false},
		{"policy", "approval", false},
		{"diag", "device", true},
		{"device", "diag", false},
		{"redact", "yang", false},
		{"diag", "netproto", false},
		{"inventory", "lab/real", true},
		{"yang", "netproto", false},
		{"yang", "redact", true},
		{"netproto", "yang", false},
		{"internal/benchpeer", "device", false},
		{"server", "internal/lazyre", false},
	}
	for _, tt := range tests {
		t.Run(tt.from+"->"+tt.to, func(t *testing.T) {
			why := check(edge{tt.from, tt.to})
			if got := len(why) > 0; got != tt.wrong {
				t.Errorf("check(%s -> %s) = %q, want wrong %v", tt.from, tt.to, why, tt.wrong)
			}
		})
	}
}
