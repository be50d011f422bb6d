//go:build linux

// Package snmptest runs a real net-snmp agent (snmpd) in a network
// namespace for tests: the namespace is linked to the test's own by a veth
// pair with IPv6 documentation addresses (2001:db8::/32, so parallel test
// processes do not collide), and has a second, quiet link to a peer
// namespace carrying IPv4 and IPv6 addresses whose counters only move when
// a test sends traffic over it.
//
// It needs root, iproute2 and snmpd (apt-get install snmpd iproute2).
// Without them Start skips the test, or fails it when the environment
// variable CI is set and the process is root, so that CI cannot pass by
// skipping.
package snmptest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Credentials the agent is configured with.
const (
	Community = "n3tmcp-ro-c0mmunity"
	User      = "netmcp"
	AuthPass  = "auth-pass-phrase-1"
	PrivPass  = "priv-pass-phrase-1"
)

// Names and addresses inside the namespaces.
const (
	UplinkIf = "up0" // the agent's end of the link the test talks over
	QuietIf  = "q0"  // the agent's end of the quiet link
	PeerIf   = "q1"  // the peer's end of the quiet link
	QuietV4  = "192.0.2.1/30"
	PeerV4   = "192.0.2.2"
	QuietV6  = "2001:db8:5f::1/64"
)

// Agent is a running snmpd in its namespace.
type Agent struct {
	NS, PeerNS string // the agent's and the peer's namespace
	Host       string // the agent's address, reachable from the test
	Port       int
	Dir        string // config, log, credential files

	CommunityFile, AuthFile, PrivFile string

	cmd      *exec.Cmd
	waitErr  chan error
	stopOnce sync.Once
}

// Need skips (or, under CI as root, fails) the test unless it can run
// snmpd in a namespace.
func Need(t testing.TB) {
	t.Helper()
	ci := os.Getenv("CI") != ""
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces for snmpd (run the tests as root, as CI does)")
	}
	for _, bin := range []string{"ip", "snmpd"} {
		if _, err := lookPath(bin); err != nil {
			if ci {
				t.Fatalf("CI is set and we are root, but %s is missing (scripts/install-deps.sh installs snmpd and iproute2)", bin)
			}
			t.Skipf("needs %s (apt-get install snmpd iproute2)", bin)
		}
	}
}

func lookPath(bin string) (string, error) {
	if p, err := exec.LookPath(bin); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(d, bin); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in PATH, /usr/sbin or /sbin", bin)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// Start creates the namespaces and starts snmpd; everything is removed
// when the test ends.
func Start(t testing.TB) *Agent {
	t.Helper()
	Need(t)
	var rb [3]byte
	rand.Read(rb[:])
	id := hex.EncodeToString(rb[:])
	a := &Agent{NS: "nmsnmp-" + id, PeerNS: "nmsnmpp-" + id, Port: 161, Dir: t.TempDir()}
	// A /64 of 2001:db8:5e::/48 chosen at random per agent.
	sub := fmt.Sprintf("2001:db8:5e:%s%s", id[:2], id[2:4])
	a.Host = sub + "::2"
	rootIf := "nmsn" + id

	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if out, err := exec.Command("ip", "netns", "add", a.NS).CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ip netns add: %v: %s", err, out)
		}
		t.Skipf("ip netns add failed (no namespace support?): %v: %s", err, out)
	}
	t.Cleanup(func() {
		a.Stop()
		exec.Command("ip", "netns", "del", a.NS).Run()
		exec.Command("ip", "netns", "del", a.PeerNS).Run()
		exec.Command("ip", "link", "del", rootIf).Run()
	})
	run("ip", "netns", "add", a.PeerNS)
	for _, ns := range []string{a.NS, a.PeerNS} {
		run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0")
		run("ip", "-n", ns, "link", "set", "lo", "up")
	}
	run("ip", "link", "add", rootIf, "type", "veth", "peer", "name", UplinkIf, "netns", a.NS)
	run("ip", "-6", "addr", "add", sub+"::1/64", "dev", rootIf, "nodad")
	run("ip", "link", "set", rootIf, "up")
	run("ip", "-n", a.NS, "-6", "addr", "add", a.Host+"/64", "dev", UplinkIf, "nodad")
	run("ip", "-n", a.NS, "link", "set", UplinkIf, "up")
	run("ip", "-n", a.NS, "link", "add", QuietIf, "type", "veth", "peer", "name", PeerIf, "netns", a.PeerNS)
	run("ip", "-n", a.NS, "addr", "add", QuietV4, "dev", QuietIf)
	run("ip", "-n", a.NS, "-6", "addr", "add", QuietV6, "dev", QuietIf, "nodad")
	run("ip", "-n", a.NS, "link", "set", QuietIf, "up")
	run("ip", "-n", a.PeerNS, "addr", "add", PeerV4+"/30", "dev", PeerIf)
	run("ip", "-n", a.PeerNS, "link", "set", PeerIf, "up")

	a.CommunityFile = a.write("community", Community+"\n")
	a.AuthFile = a.write("auth", AuthPass+"\n")
	a.PrivFile = a.write("priv", PrivPass+"\n")
	conf := a.write("snmpd.conf", fmt.Sprintf(`agentAddress udp6:[%s]:%d
rocommunity6 %s default
rocommunity %s default
createUser %s SHA %s AES %s
rouser %s priv
`, a.Host, a.Port, Community, Community, User, AuthPass, PrivPass, User))
	snmpd, _ := lookPath("snmpd")
	a.cmd = exec.Command("ip", "netns", "exec", a.NS, snmpd, "-f", "-C", "-c", conf,
		"-Lf", filepath.Join(a.Dir, "snmpd.log"), "-p", filepath.Join(a.Dir, "snmpd.pid"),
		"--persistentDir="+filepath.Join(a.Dir, "persist"))
	a.cmd.Env = append(os.Environ(), "MIBS=")
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("start snmpd: %v", err)
	}
	a.waitErr = make(chan error, 1)
	go func() { a.waitErr <- a.cmd.Wait() }()
	if err := a.waitReady(15 * time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(a.Dir, "snmpd.log"))
		t.Fatalf("snmpd did not come up: %v\nlog tail:\n%s", err, tail(string(log), 2000))
	}
	return a
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (a *Agent) write(name, content string) string {
	p := filepath.Join(a.Dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		panic(err)
	}
	return p
}

// waitReady waits until the agent answers a GET of sysName (a minimal
// SNMPv2c request built by hand, so the harness does not depend on the
// driver under test).
func (a *Agent) waitReady(d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case err := <-a.waitErr:
			a.waitErr <- err
			return fmt.Errorf("snmpd exited: %v", err)
		default:
		}
		if ping(a.Addr(), Community, 300*time.Millisecond) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no answer from %s within %s", a.Addr(), d)
}

// ping sends an SNMPv2c GET of sysUpTime.0 and reports whether any answer
// came back.
func ping(addr, community string, timeout time.Duration) bool {
	c, err := net.DialTimeout("udp", addr, timeout)
	if err != nil {
		return false
	}
	defer c.Close()
	oid := []byte{0x06, 0x08, 0x2b, 6, 1, 2, 1, 1, 3, 0}
	vb := tlv(0x30, append(oid, 0x05, 0x00))
	pdu := tlv(0xa0, concat([]byte{0x02, 0x01, 0x01, 0x02, 0x01, 0x00, 0x02, 0x01, 0x00}, tlv(0x30, vb)))
	msg := tlv(0x30, concat([]byte{0x02, 0x01, 0x01}, tlv(0x04, []byte(community)), pdu))
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write(msg); err != nil {
		return false
	}
	buf := make([]byte, 1500)
	n, err := c.Read(buf)
	return err == nil && n > 0
}

func tlv(tag byte, v []byte) []byte { return concat([]byte{tag, byte(len(v))}, v) }

func concat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// Addr is the agent's host:port.
func (a *Agent) Addr() string { return net.JoinHostPort(a.Host, fmt.Sprint(a.Port)) }

// URLv2c is the SNMPv2c device URL with the community by reference.
func (a *Agent) URLv2c() string {
	return fmt.Sprintf("snmp://%s?version=2c&community-file=%s", a.Addr(), url.QueryEscape(a.CommunityFile))
}

// URLv3 is the SNMPv3 authPriv (SHA/AES) device URL with the keys by
// reference.
func (a *Agent) URLv3() string {
	return fmt.Sprintf("snmp://%s@%s?version=3&auth=SHA&auth-file=%s&priv=AES&priv-file=%s",
		User, a.Addr(), url.QueryEscape(a.AuthFile), url.QueryEscape(a.PrivFile))
}

// Stop kills snmpd (idempotent), e.g. to test an agent that is down.
func (a *Agent) Stop() {
	a.stopOnce.Do(func() {
		if a.cmd == nil || a.cmd.Process == nil {
			return
		}
		a.cmd.Process.Kill()
		select {
		case <-a.waitErr:
		case <-time.After(10 * time.Second):
		}
	})
}

// Pause stops snmpd with SIGSTOP: requests reach it and get no answer,
// as with a wrong community. Stop still ends it.
func (a *Agent) Pause() {
	if a.cmd != nil && a.cmd.Process != nil {
		a.cmd.Process.Signal(syscall.SIGSTOP)
	}
}

// Exec runs a command in the agent's namespace and returns its output.
func (a *Agent) Exec(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", a.NS}, args...)...).CombinedOutput()
	return string(out), err
}

// PingFromPeer sends count pings of size bytes from the peer over the
// quiet link, to move its counters.
func (a *Agent) PingFromPeer(ctx context.Context, count, size int) error {
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", a.PeerNS, "ping", "-q", "-c", fmt.Sprint(count),
		"-i", "0.01", "-s", fmt.Sprint(size), "-W", "2", strings.Split(QuietV4, "/")[0]).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ping: %v: %s", err, out)
	}
	return nil
}
