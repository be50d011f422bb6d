package conformance

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
)

// npmTools are the Node 22 binary and the npm packages that
// scripts/install-deps.sh installs into .tools/.
type npmTools struct {
	nodeDir     string // directory of the node binary, put first on PATH
	node        string
	conformance string // @modelcontextprotocol/conformance CLI script
	inspector   string // @modelcontextprotocol/inspector launcher script
}

// repoRoot is the module root (the directory holding go.mod).
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// inCI reports whether the tests run under CI, where missing tools fail
// the test instead of skipping it.
func inCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "false" && v != "0"
}

// requireTools returns the npm tools, or skips (fails under CI) when they
// are not installed.
func requireTools(t *testing.T) npmTools {
	t.Helper()
	root := repoRoot(t)
	mcp := filepath.Join(root, ".tools", "mcp", "node_modules", "@modelcontextprotocol")
	tl := npmTools{
		nodeDir:     filepath.Join(root, ".tools", "node22", "node_modules", ".bin"),
		conformance: filepath.Join(mcp, "conformance", "dist", "index.js"),
		inspector:   filepath.Join(mcp, "inspector", "clients", "launcher", "build", "index.js"),
	}
	tl.node = filepath.Join(tl.nodeDir, "node")
	missing := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...) + "; run scripts/install-deps.sh"
		if inCI() {
			t.Fatal(msg + " (CI is set: the conformance tests must run)")
		}
		t.Skip(msg)
	}
	out, err := exec.Command(tl.node, "--version").Output()
	if err != nil {
		missing("Node 22 not installed at %s", tl.node)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		missing("%s is Node %s, want v22.x", tl.node, v)
	}
	for _, f := range []string{tl.conformance, tl.inspector} {
		if _, err := os.Stat(f); err != nil {
			missing("npm tool missing: %v", err)
		}
	}
	return tl
}

// command returns a node command running script with args; PATH starts
// with Node 22 so that whatever the tool spawns uses it too.
func (tl npmTools) command(ctx context.Context, dir, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, tl.node, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+tl.nodeDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1", "FORCE_COLOR=0", "HOME="+dir)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

var (
	buildMu  sync.Mutex
	built    = map[string]string{} // package -> its program
	buildDir string                // holds them; removed by TestMain
)

// netmcpBinary builds cmd/netmcp once per test binary and returns its path.
func netmcpBinary(t *testing.T) string { return buildProgram(t, "./cmd/netmcp", "netmcp") }

// conformanceServerBinary builds the fixture server (a test program, not
// part of netmcp) once per test binary and returns its path.
func conformanceServerBinary(t *testing.T) string {
	return buildProgram(t, "./internal/cmd/conformance-server", "conformance-server")
}

// buildProgram builds the main package pkg of this module as name, once per
// test binary, and returns its path.
func buildProgram(t *testing.T, pkg, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[pkg]; ok {
		return bin
	}
	if buildDir == "" {
		dir, err := os.MkdirTemp("", "netmcp-conformance-")
		if err != nil {
			t.Fatal(err)
		}
		buildDir = dir
	}
	bin := filepath.Join(buildDir, name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	built[pkg] = bin
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// listenURL matches the address line netmcp prints on stderr when it serves HTTP.
var listenURL = regexp.MustCompile(`http://(\S+)/mcp`)

// startNetmcp runs `netmcp args...` (a command that serves HTTP on
// 127.0.0.1:0) and returns the MCP endpoint URL it printed. The process is
// stopped when the test ends.
func startNetmcp(t *testing.T, args ...string) string {
	t.Helper()
	return startServer(t, netmcpBinary(t), args...)
}

// startServer runs the program bin with args (one that serves HTTP on
// 127.0.0.1:0) and returns the MCP endpoint URL it printed. The process is
// stopped when the test ends.
func startServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	name := filepath.Base(bin)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	exited := make(chan struct{}) // closed when stderr closes: the process ended
	var logMu sync.Mutex
	var logs strings.Builder
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			logs.WriteString(line + "\n")
			logMu.Unlock()
			if m := listenURL.FindStringSubmatch(line); m != nil {
				select {
				case urls <- "http://" + m[1] + "/mcp":
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		err := cmd.Wait()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) && !errors.Is(err, context.Canceled) {
			t.Logf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		if t.Failed() {
			logMu.Lock()
			t.Logf("%s %s stderr:\n%s", name, strings.Join(args, " "), logs.String())
			logMu.Unlock()
		}
	})
	select {
	case u := <-urls:
		return u
	case <-exited:
	case <-time.After(testwait.Timeout(30 * time.Second)):
	}
	select {
	case u := <-urls: // printed just before stderr closed
		return u
	default:
	}
	// The cleanup above prints stderr.
	t.Fatalf("%s %s printed no listen address (it exited, or 30s passed)", name, strings.Join(args, " "))
	return ""
}
