package gnmiserver_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// gnmiVersion is the openconfig/gnmi version gnmi_cli is built from: the
// one go.mod requires.
const gnmiVersion = "v0.14.1"

// buildGNMICLI builds gnmi_cli from github.com/openconfig/gnmi at
// gnmiVersion in a module of its own (its dependencies are not netmcp's),
// or skips the test when that cannot be done here.
func buildGNMICLI(t *testing.T) string {
	t.Helper()
	// go test puts its own GOROOT/bin first on the PATH of the test.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("gnmi_cli not built: no go command")
	}
	dir := t.TempDir()
	mod := "module gnmiclibuild\n\ngo 1.22\n\nrequire github.com/openconfig/gnmi " + gnmiVersion + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gnmi_cli")
	run := func(args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("gnmi_cli not built (github.com/openconfig/gnmi %s is neither in the module cache nor reachable through GOPROXY?): go %s: %v\n%s",
				gnmiVersion, strings.Join(args, " "), err, out)
		}
	}
	run("get", "github.com/openconfig/gnmi/cmd/gnmi_cli@"+gnmiVersion)
	run("build", "-o", bin, "github.com/openconfig/gnmi/cmd/gnmi_cli")
	return bin
}

// TestGNMICLI drives the server with gnmi_cli, a client netmcp did not
// write: capabilities, a get of the interfaces, and a stream subscription
// that sees a link go down within a second.
func TestGNMICLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gnmi_cli")
	}
	cli := buildGNMICLI(t)
	f := start(t)
	base := []string{"-a", f.tg.Addr, "-ca_crt", f.tg.CAFile, "-client_crt", f.tg.ClientCert,
		"-client_key", f.tg.ClientKey, "-server_name", "localhost", "-timeout", "10s"}
	gnmiCLI := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, cli, append(base, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("gnmi_cli %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	out := gnmiCLI("-capabilities")
	for _, want := range []string{`name: "openconfig-interfaces"`, "JSON_IETF", `gNMI_version: "0.10.0"`} {
		if !strings.Contains(out, want) {
			t.Errorf("capabilities lack %s:\n%s", want, out)
		}
	}

	out = gnmiCLI("-get", "-proto", `path: <origin: "openconfig" elem: <name: "interfaces">> type: STATE encoding: JSON_IETF`)
	for _, want := range []string{ifName, "LoopBack0", "oper-status"} {
		if !strings.Contains(out, want) {
			t.Errorf("get of the interfaces lacks %s:\n%.2000s", want, out)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, append(base, "-q", "/interfaces/interface[name="+ifName+"]/state/oper-status",
		"-qt", "s", "-dt", "s", "-sd", "20s")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cancel()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	wait := func(word string, within time.Duration) (string, time.Duration) {
		t.Helper()
		start := time.Now()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("gnmi_cli ended before printing %s", word)
				}
				if strings.Contains(l, "oper-status") && strings.HasSuffix(strings.TrimSpace(l), word) {
					return l, time.Since(start)
				}
				t.Logf("gnmi_cli: %s", l)
			case <-time.After(within - time.Since(start)):
				t.Fatalf("gnmi_cli printed no oper-status %s within %s", word, within)
			}
		}
	}
	l, _ := wait("UP", 10*time.Second)
	t.Logf("gnmi_cli: %s", l)
	if err := f.lab.InjectFault(topology.Fault{Name: "link_down", Target: "r1:" + ifName}); err != nil {
		t.Fatal(err)
	}
	l, took := wait("DOWN", time.Second)
	t.Logf("gnmi_cli: %s (%s after link_down)", l, took)
}
