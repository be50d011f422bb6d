//go:build linux

// Package frrtest starts FRR's daemons in a network namespace for tests
// of the linux driver: as root, with FRR installed (scripts/install-deps.sh).
// The daemons are children of the test process, waited for (PID 1 of
// this kind of machine does not reap) and stopped at the test's end.
package frrtest

import (
	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device/linux"
)

// Dir holds FRR's daemons.
var Dir = "/usr/lib/frr"

// Daemons are the daemons Start runs when none are named.
var Daemons = []string{"zebra", "staticd", "ospfd", "bgpd"}

// Need skips t unless it runs as root with FRR and iproute2 installed;
// under CI (the CI variable set) a missing tool fails it instead.
func Need(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run FRR in a network namespace (run the tests as root, as CI does)")
	}
	for _, bin := range []string{"ip", "vtysh", filepath.Join(Dir, "zebra")} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI is set and we are root, but %s is missing (scripts/install-deps.sh)", bin)
			}
			t.Skipf("needs %s (apt-get install frr iproute2)", bin)
		}
	}
}

// Start runs FRR's daemons (Daemons when none are named) for namespace ns,
// which must exist, with their sockets in linux.FRRRunDir/ns, waits until
// each has its vty socket, then loads conf (FRR configuration lines, ""
// for none) through vtysh. The daemons are stopped, and their run
// directory removed, when t ends.
func Start(t testing.TB, ns, conf string, daemons ...string) {
	t.Helper()
	if len(daemons) == 0 {
		daemons = Daemons
	}
	run := filepath.Join(linux.FRRRunDir, ns)
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	if u, err := user.Lookup("frr"); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(run, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	for _, dm := range daemons {
		argv := []string{"ip", "netns", "exec", ns, filepath.Join(Dir, dm), "-N", ns, "-P", "0",
			"-i", filepath.Join(run, dm+".pid"), "--log", "file:" + filepath.Join(run, dm+".log")}
		cmd := exec.Command(argv[0], argv[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", dm, err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
		vty := filepath.Join(run, dm+".vty")
		deadline := time.Now().Add(15 * time.Second)
		for {
			if _, err := os.Stat(vty); err == nil {
				break
			}
			select {
			case <-done:
				t.Fatalf("%s exited before creating %s: %s", dm, vty, out.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not create %s within 15 s", dm, vty)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if strings.TrimSpace(conf) == "" {
		return
	}
	args := []string{"-N", ns, "-c", "configure terminal"}
	for _, l := range strings.Split(strings.TrimSpace(conf), "\n") {
		if strings.TrimSpace(l) != "" {
			args = append(args, "-c", l)
		}
	}
	if out, err := exec.Command("vtysh", args...).CombinedOutput(); err != nil {
		t.Fatalf("loading FRR's configuration in %s: %v: %s", ns, err, out)
	}
}
