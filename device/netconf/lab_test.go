package netconf

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/netmcp/netmcp/internal/testwait"
)

// lab is a real netconfd behind a real OpenSSH sshd on 127.0.0.1, both in
// a mount namespace of their own whose /tmp is private (netconfd and
// netconf-subsystem meet at the fixed /tmp/ncxserver.sock, so several labs
// can run at once and none disturbs a netconfd outside).
type lab struct {
	dir        string
	port       int
	keyFile    string
	knownHosts string
	cmd        *exec.Cmd
}

// startupXML is the lab device's startup configuration.
const startupXML = `<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces">
 <interface><name>eth0</name>
  <description>uplink</description>
  <type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>
  <enabled>true</enabled>
  <ipv4 xmlns="urn:ietf:params:xml:ns:yang:ietf-ip"><mtu>1500</mtu>
   <address><ip>192.0.2.1</ip><prefix-length>24</prefix-length></address></ipv4>
 </interface>
 <interface><name>lo</name>
  <type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:softwareLoopback</type>
  <enabled>false</enabled>
 </interface>
</interfaces>
</config>
`

// needRoot skips a test that needs root and the daemons, or fails it
// when CI is set (CI runs as root with everything installed).
func needLab(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (mount namespace, sshd, netconfd): run as root, as CI does")
	}
	for _, bin := range []string{"/usr/sbin/netconfd", "/usr/sbin/netconf-subsystem", "/usr/sbin/sshd", "/usr/bin/unshare"} {
		if _, err := os.Stat(bin); err != nil {
			msg := fmt.Sprintf("%s is missing (scripts/install-deps.sh installs netconfd and openssh-server)", bin)
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
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

func writeKey(t testing.TB, path string) ssh.PublicKey {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// startLab starts netconfd and sshd; they stop when the test ends.
func startLab(t testing.TB) *lab {
	t.Helper()
	needLab(t)
	// Not under /tmp: the namespace mounts a private /tmp over it.
	dir, err := os.MkdirTemp("/var/tmp", "netmcp-netconf-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			n, _ := os.ReadFile(filepath.Join(dir, "netconfd.log"))
			b, _ := os.ReadFile(filepath.Join(dir, "lab.log"))
			t.Logf("lab.log:\n%s\nnetconfd.log tail:\n%s", tail(string(b), 30), tail(string(n), 60))
		}
		os.RemoveAll(dir)
	})
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	l := &lab{dir: dir, port: freePort(t), keyFile: filepath.Join(dir, "client_key"), knownHosts: filepath.Join(dir, "known_hosts")}
	hostPub := writeKey(t, filepath.Join(dir, "host_key"))
	clientPub := writeKey(t, l.keyFile)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "authorized_keys"), ssh.MarshalAuthorizedKey(clientPub), 0o600))
	must(os.WriteFile(l.knownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s", l.port, ssh.MarshalAuthorizedKey(hostPub))), 0o600))
	must(os.WriteFile(filepath.Join(dir, "startup.xml"), []byte(startupXML), 0o600))
	must(os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %[2]s/host_key
AuthorizedKeysFile %[2]s/authorized_keys
PidFile none
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
Subsystem netconf /usr/sbin/netconf-subsystem
`, l.port, dir)), 0o600))
	// netconfd accepts sessions only for the SSH ports it is told (--port).
	script := fmt.Sprintf(`set -e
mount -t tmpfs tmpfs /tmp
/usr/sbin/netconfd --module=ietf-interfaces --module=ietf-ip --module=iana-if-type --startup=%[1]s/startup.xml --superuser=%[3]s --port=%[2]d --log=%[1]s/netconfd.log --log-level=info &
N=$!
i=0
while [ ! -S /tmp/ncxserver.sock ]; do i=$((i+1)); [ $i -lt 300 ] || { echo "netconfd did not start" >&2; kill $N; exit 1; }; sleep 0.05; done
/usr/sbin/sshd -D -e -f %[1]s/sshd_config &
S=$!
trap 'kill $S $N 2>/dev/null; wait $S; wait $N; exit 0' TERM
wait $S
`, dir, l.port, currentUser(t))
	must(os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o700))
	logf, err := os.Create(filepath.Join(dir, "lab.log"))
	must(err)
	l.cmd = exec.Command("/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", filepath.Join(dir, "run.sh"))
	l.cmd.Stdout, l.cmd.Stderr = logf, logf
	must(l.cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- l.cmd.Wait(); logf.Close() }()
	t.Cleanup(func() {
		l.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(testwait.Timeout(20 * time.Second)):
			l.cmd.Process.Kill()
			<-exited
		}
	})
	testwait.Until(t, 30*time.Second, "sshd listens", func() (bool, string) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", l.port), time.Second)
		if err == nil {
			c.Close()
			return true, ""
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(filepath.Join(dir, "lab.log"))
			n, _ := os.ReadFile(filepath.Join(dir, "netconfd.log"))
			t.Fatalf("lab exited (%v):\n%s\nnetconfd.log tail:\n%s", err, b, tail(string(n), 20))
		default:
		}
		return false, err.Error()
	})
	return l
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func currentUser(t testing.TB) string {
	if u := os.Getenv("USER"); u != "" && os.Geteuid() != 0 {
		return u
	}
	return "root"
}

// url is the lab device's URL.
func (l *lab) url() string {
	return fmt.Sprintf("netconf://root@127.0.0.1:%d?key-file=%s&known-hosts=%s", l.port, url.QueryEscape(l.keyFile), url.QueryEscape(l.knownHosts))
}

// open opens a driver on the lab device, closed when the test ends.
func (l *lab) open(t testing.TB) *Driver {
	t.Helper()
	u, err := url.Parse(l.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(60*time.Second))
	defer cancel()
	d, err := Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open %s: %v", l.url(), err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
