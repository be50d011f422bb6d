package agent

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/linux" // linux://NETNS
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/server"
)

// needTools skips the test when not root or a tool is missing, and fails
// it when CI is set and a tool is missing.
func needTools(t *testing.T, bins ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces (run the tests as root, as CI does)")
	}
	for _, bin := range bins {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI is set but %s is not installed (scripts/install-deps.sh installs it)", bin)
			}
			t.Skipf("%s not installed", bin)
		}
	}
}

// realLine is three network namespaces r1 - r2 - r3 joined by veth pairs,
// r2 forwarding between them, each with its lldpd and its agent inside.
type realLine struct {
	t      *testing.T
	tag    string
	dir    string
	ca     *pki.CA
	agents map[string]*Agent
	// ifs[i] are the kernel names of link i's two ends (link 0 is r1-r2).
	ifs [2][2]string
	// addr is each router's D2D address (its LLDP management address,
	// where its agent listens inside its namespace).
	addr map[string]string
}

func (l *realLine) ns(n string) string { return "d2w" + l.tag + n }

func (l *realLine) run(args ...string) {
	l.t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		l.t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// newRealLine builds the namespaces and links, an agent per namespace
// (device linux://NETNS, listening inside the namespace on its own
// address, calling out from inside it), and an lldpd per namespace
// advertising its agent's D2D TLV; it returns once r1 and r3 hear r2 and
// r2 hears both.
func newRealLine(t *testing.T) *realLine {
	l := &realLine{t: t, tag: fmt.Sprint(os.Getpid() % 100000), dir: t.TempDir(), agents: map[string]*Agent{}, addr: map[string]string{}}
	// lldpd and lldpcli drop privileges: the socket's directory must be
	// searchable by their user.
	for _, p := range []string{l.dir, filepath.Dir(l.dir)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"r1", "r2", "r3"}
	for _, n := range names {
		l.run("ip", "netns", "add", l.ns(n))
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", l.ns(n)).Run() })
		l.run("ip", "-n", l.ns(n), "link", "set", "lo", "up")
	}
	for i, pair := range [][2]string{{"r1", "r2"}, {"r2", "r3"}} {
		a, b := fmt.Sprintf("w%s%da", l.tag, i), fmt.Sprintf("w%s%db", l.tag, i)
		l.ifs[i] = [2]string{a, b}
		l.run("ip", "link", "add", a, "netns", l.ns(pair[0]), "type", "veth", "peer", "name", b, "netns", l.ns(pair[1]))
		l.run("ip", "-n", l.ns(pair[0]), "addr", "add", fmt.Sprintf("10.97.%d.1/30", i), "dev", a)
		l.run("ip", "-n", l.ns(pair[1]), "addr", "add", fmt.Sprintf("10.97.%d.2/30", i), "dev", b)
		l.run("ip", "-n", l.ns(pair[0]), "link", "set", a, "up")
		l.run("ip", "-n", l.ns(pair[1]), "link", "set", b, "up")
	}
	l.run("ip", "netns", "exec", l.ns("r2"), "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
	l.run("ip", "-n", l.ns("r1"), "route", "add", "default", "via", "10.97.0.2")
	l.run("ip", "-n", l.ns("r3"), "route", "add", "default", "via", "10.97.1.1")
	l.addr = map[string]string{"r1": "10.97.0.1", "r2": "10.97.0.2", "r3": "10.97.1.2"}

	ca, err := pki.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	l.ca = ca
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, n := range names {
		l.agents[n] = l.newAgent(ctx, n)
	}
	for _, n := range names {
		conf := fmt.Sprintf("configure system hostname %s\nconfigure lldp tx-interval 1\nconfigure system ip management pattern %s\n%s\n",
			n, l.addr[n], l.agents[n].Advert().LLDPDConfig())
		cf := filepath.Join(l.dir, n+".conf")
		if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil { // lldpd reads it unprivileged
			t.Fatal(err)
		}
		// In the foreground, as this process's child: killed and reaped
		// at the end (PID 1 here reaps no orphan).
		cmd := exec.Command("ip", "netns", "exec", l.ns(n), "lldpd", "-d", "-u", filepath.Join(l.dir, n+".sock"),
			"-p", filepath.Join(l.dir, n+".pid"), "-O", cf, "-I", "w"+l.tag+"*")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
	deadline := time.Now().Add(20 * time.Second)
	want := map[string]int{"r1": 1, "r2": 2, "r3": 1}
	for _, n := range names {
		for {
			got, err := l.agents[n].Discover(ctx)
			if err == nil && len(got) == want[n] {
				for _, nb := range got {
					if nb.Advert != l.agents[nb.Name].Advert() {
						t.Fatalf("%s's TLV heard by %s through lldpd differs from its agent's", nb.Name, n)
					}
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s heard %+v (%v) through lldpd, want %d neighbours", n, got, err, want[n])
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return l
}

// newAgent builds router n's agent: device linux://NETNS behind a
// read-only device server, its listener inside the namespace on its own
// address, its outbound calls made from inside the namespace, its
// neighbours read from its lldpd.
func (l *realLine) newAgent(ctx context.Context, n string) *Agent {
	t := l.t
	drv, err := device.Open(ctx, "linux://"+l.ns(n), device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(drv, server.Options{ReadOnly: true, User: "d2d-agent", DiagLimiter: DeviceDiagLimiter()})
	if err != nil {
		t.Fatal(err)
	}
	local, err := LocalSession(ctx, srv.MCP(), nil)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := l.ca.Issue(n, pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := sign.OpenSigner(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, Config{CertPEM: certPEM, KeyPEM: keyPEM, CAPEM: l.ca.CertPEM, Local: local, Signer: signer,
		Discoverer: discover.LLDPCli{Run: discover.LLDPCliCommand(filepath.Join(l.dir, n+".sock"), l.ns(n))},
		Dial:       DialInNetns(l.ns(n))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ln, err := ListenInNetns(l.ns(n), "tcp", net.JoinHostPort(l.addr[n], fmt.Sprint(DefaultPort)))
	if err != nil {
		t.Fatal(err)
	}
	go a.Serve(ctx, ln)
	return a
}

// verify checks every signature of a report against the CA, as netmcp
// report verify does.
func (l *realLine) verify(rep report.Report) {
	l.t.Helper()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(l.ca.CertPEM)
	if _, err := report.Verify(rep, func(b sign.Binding) (ed25519.PublicKey, error) { return b.Verify(roots, time.Now()) }); err != nil {
		l.t.Fatalf("report does not verify: %v", err)
	}
	if len(rep.Signatures) != 3 || len(rep.Untrusted) != 0 {
		l.t.Fatalf("report signed by %v, untrusted %v; want r1, r2 and r3, none untrusted", rep.Signatures, rep.Untrusted)
	}
}

// TestRealNamespaceWorkflow is the CI check of the whole workflow on real
// network namespaces r1 - r2 - r3 (root; lldpd, nftables, tcpdump, ping):
// each agent's
// device is linux://NETNS (netlink counters, ping and tcpdump in the
// namespace); each listens inside its namespace on its own address and
// calls out from inside it; they discover each other through real
// lldpd custom TLVs and call each other over mTLS pinned to the
// thumbprints lldpd carried. A healthy path gives no finding; then an
// nftables filter drops the ICMP echo requests leaving r2 toward r3 (one
// way, invisible in every interface counter), and the report, every
// signature verified, blames r2's egress on that interface, r2->r3.
func TestRealNamespaceWorkflow(t *testing.T) {
	needTools(t, "ip", "lldpd", "lldpcli", "nft", "tcpdump", "ping", "sysctl")
	start := time.Now()
	l := newRealLine(t)
	t.Logf("namespaces, agents and LLDP discovery: %s", time.Since(start))
	ctx := context.Background()

	healthyStart := time.Now()
	rep, err := l.agents["r1"].Ask(ctx, pathIntent)
	if err != nil {
		t.Fatal(err)
	}
	l.verify(rep)
	if rep.Hypothesis != nil || len(rep.Findings) != 0 {
		t.Fatalf("healthy namespaces: findings %s", findingsJSON(rep))
	}
	caps := 0
	for _, e := range rep.Evidence {
		if e.Tool == netproto.ToolCapture {
			caps++
			var body struct {
				Packets []capturedPkt `json:"packets"`
			}
			if err := json.Unmarshal(e.Body, &body); err != nil || len(body.Packets) == 0 {
				t.Fatalf("capture by %s %s holds no packet (%v): it did not run across the probes", e.Signer, e.Args, err)
			}
		}
	}
	if caps != 4 {
		t.Fatalf("%d captures in the evidence, want one per path interface (4)", caps)
	}
	t.Logf("healthy run: %s, %d signed results", time.Since(healthyStart), len(rep.Evidence))

	// The fault: r2 drops ICMP echo requests leaving toward r3, its own
	// and the ones it forwards; echo replies (r3's pings) pass.
	r2r3 := l.ifs[1][0]
	rules := fmt.Sprintf("table inet d2dfault {\n chain post {\n  type filter hook postrouting priority 0; policy accept;\n  oifname %q icmp type echo-request drop\n }\n}\n", r2r3)
	nf := filepath.Join(l.dir, "fault.nft")
	if err := os.WriteFile(nf, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	l.run("ip", "netns", "exec", l.ns("r2"), "nft", "-f", nf)
	t.Cleanup(func() {
		_ = exec.Command("ip", "netns", "exec", l.ns("r2"), "nft", "delete", "table", "inet", "d2dfault").Run()
	})

	faultStart := time.Now()
	rep, err = l.agents["r1"].Ask(ctx, pathIntent)
	if err != nil {
		t.Fatal(err)
	}
	l.verify(rep)
	h := rep.Hypothesis
	if h == nil || h.Device != "r2" || h.Interface != r2r3 || h.Direction != "r2->r3" || h.Cause != "egress-filter" {
		t.Fatalf("hypothesis %+v; findings %s", h, findingsJSON(rep))
	}
	for _, f := range rep.Findings {
		if f.Direction != "r2->r3" {
			t.Errorf("a clean direction blamed: %+v", f)
		}
	}
	t.Logf("faulty run: %s; %s", time.Since(faultStart), h.Statement)
}
