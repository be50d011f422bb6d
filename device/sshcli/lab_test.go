package sshcli_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needRoot skips a test that needs root, namespaces or Debian packages
// when they are missing, except under CI as root, where it fails: CI
// installs the packages (scripts/install-deps.sh) and must run the test.
func needRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces and run sshd and FRR (run the tests as root, as CI does)")
	}
}

// missing reports a missing prerequisite: a skip, or a failure under CI.
func missing(t testing.TB, format string, a ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, a...)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI runs as root with scripts/install-deps.sh: this must work)", msg)
	}
	t.Skip(msg)
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// daemon starts a foreground child and stops it (and reaps it) at cleanup.
func daemon(t testing.TB, logf string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	f, err := os.Create(logf)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		f.Close()
	})
	return cmd
}

func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// keygen writes an ed25519 key pair with ssh-keygen and returns the
// private key's path and the public key's line.
func keygen(t testing.TB, dir, name string) (string, string) {
	t.Helper()
	p := filepath.Join(dir, name)
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p)
	pub, err := os.ReadFile(p + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return p, strings.TrimSpace(string(pub))
}

// frrLab is FRR (zebra, staticd) in a fresh network namespace and an
// OpenSSH server on 127.0.0.1 whose only command is that namespace's vtysh.
type frrLab struct {
	ns, dir, confDir string
	port             int
	keyFile          string
	knownHosts       string
	sshd             *exec.Cmd
}

func (l *frrLab) url(extra string) string {
	u := fmt.Sprintf("ssh://root@127.0.0.1:%d?dialect=frr&connect-timeout=60s&key-file=%s&known-hosts=%s", l.port, l.keyFile, l.knownHosts)
	if extra != "" {
		u += "&" + extra
	}
	return u
}

// vtysh runs commands in the namespace's vtysh directly (not through the
// driver), to check what the driver did.
func (l *frrLab) vtysh(t testing.TB, cmds ...string) string {
	t.Helper()
	args := []string{"-N", l.ns, "--config_dir", l.confDir}
	for _, c := range cmds {
		args = append(args, "-c", c)
	}
	return run(t, "vtysh", args...)
}

// sshdChildren lists the per-connection sshd processes.
func (l *frrLab) sshdChildren(t testing.TB) []int {
	pid := l.sshd.Process.Pid
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func newFRRLab(t testing.TB) *frrLab {
	t.Helper()
	needRoot(t)
	for _, bin := range []string{"/usr/lib/frr/zebra", "/usr/lib/frr/staticd", "/usr/sbin/sshd", "/usr/bin/vtysh", "/usr/bin/ssh-keygen"} {
		if _, err := os.Stat(bin); err != nil {
			missing(t, "%s is not installed (scripts/install-deps.sh installs frr and openssh-server)", bin)
		}
	}
	l := &frrLab{ns: fmt.Sprintf("sshcli%d", os.Getpid()%100000), dir: t.TempDir()}
	if out, err := exec.Command("ip", "netns", "add", l.ns).CombinedOutput(); err != nil {
		missing(t, "ip netns add failed (no namespace support?): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.ns).Run() })
	run(t, "ip", "-n", l.ns, "link", "set", "lo", "up")
	run(t, "ip", "-n", l.ns, "link", "add", "eth0", "type", "veth", "peer", "name", "eth1")
	run(t, "ip", "-n", l.ns, "addr", "add", "198.51.100.1/30", "dev", "eth0")
	run(t, "ip", "-n", l.ns, "link", "set", "eth0", "up")
	run(t, "ip", "-n", l.ns, "link", "set", "eth1", "up")

	// FRR: -N puts sockets in /run/frr/NS; --config_dir gets /NS appended.
	l.confDir = filepath.Join(l.dir, "frr")
	nsConf := filepath.Join(l.confDir, l.ns)
	runDir := filepath.Join("/run/frr", l.ns)
	for _, d := range []string{nsConf, runDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(runDir) })
	for _, f := range []string{"vtysh.conf", "frr.conf"} {
		if err := os.WriteFile(filepath.Join(nsConf, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, "chown", "-R", "frr:frr", runDir, l.confDir)
	for _, d := range []string{"zebra", "staticd"} {
		daemon(t, filepath.Join(l.dir, d+".out"), "ip", "netns", "exec", l.ns, "/usr/lib/frr/"+d,
			"-N", l.ns, "-P", "0", "-i", filepath.Join(runDir, d+".pid"), "--log", "file:"+filepath.Join(l.dir, d+".log"))
		sock := filepath.Join(runDir, d+".vty")
		waitFor(t, sock, func() bool { _, err := os.Stat(sock); return err == nil })
	}
	waitFor(t, "vtysh to answer", func() bool {
		return exec.Command("vtysh", "-N", l.ns, "--config_dir", l.confDir, "-c", "show version").Run() == nil
	})

	// OpenSSH: key auth only, our own host key, vtysh as the only command.
	hostKey, hostPub := keygen(t, l.dir, "host_ed25519")
	var clientPub string
	l.keyFile, clientPub = keygen(t, l.dir, "client_ed25519")
	auth := filepath.Join(l.dir, "authorized_keys")
	if err := os.WriteFile(auth, []byte(clientPub+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l.port = freePort(t)
	l.knownHosts = filepath.Join(l.dir, "known_hosts")
	if err := os.WriteFile(l.knownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s\n", l.port, hostPub)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
PrintMotd no
PrintLastLog no
ForceCommand /usr/bin/vtysh -N %s --config_dir %s
`, l.port, hostKey, filepath.Join(l.dir, "sshd.pid"), auth, l.ns, l.confDir)
	cfgFile := filepath.Join(l.dir, "sshd_config")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("/usr/sbin/sshd", "-t", "-f", cfgFile).CombinedOutput(); err != nil {
		t.Fatalf("sshd -t: %v\n%s", err, out)
	}
	l.sshd = daemon(t, filepath.Join(l.dir, "sshd.out"), "/usr/sbin/sshd", "-D", "-e", "-f", cfgFile)
	waitFor(t, "sshd to listen", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", l.port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return l
}

// linkNames are the interface names `ip link` shows in the namespace.
func linkNames(t testing.TB, ns string) []string {
	out := run(t, "ip", "-n", ns, "-o", "link", "show")
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		names = append(names, name)
	}
	return names
}
