//go:build linux

package real

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/netmcp/netmcp/lab/topology"
)

// FRRDir is where FRR's daemons live (Debian's frr package).
var FRRDir = "/usr/lib/frr"

// FRRRunDir holds each namespace's FRR sockets and PID files
// (FRRRunDir/NS, FRR's -N pathspace).
var FRRRunDir = "/run/frr"

// frrDaemons are started on every router, in this order after zebra.
var frrDaemons = []string{"staticd", "ospfd", "bgpd"}

// ErrNotRoot is returned by Up when the process is not root.
var ErrNotRoot = errors.New("the real lab needs root: it creates network namespaces and runs FRR, lldpd and unbound in them (run as root, or use the simulated lab: netmcp lab up)")

// Options tune Up.
type Options struct {
	// Prefix is prepended to every namespace name ("" : the device names
	// themselves, so linux://r1 is router r1).
	Prefix string
	// Dir holds the configurations and logs (default: a new temporary
	// directory, removed by Close).
	Dir string
	// Logger receives the lab's notes and progress (default: discarded).
	Logger *slog.Logger
	// ConvergeTimeout bounds the wait for OSPF and BGP (default 60 s);
	// negative skips the wait.
	ConvergeTimeout time.Duration
}

// Lab is a topology running as network namespaces with FRR.
type Lab struct {
	plan    *plan
	opts    Options
	dir     string
	ownDir  bool
	handles nsHandles
	logger  *slog.Logger

	mu      sync.Mutex
	procs   []*proc
	byName  map[string]*proc // "r1/zebra" -> process
	nsMade  []string
	etcMade []string
	runMade []string
	closed  bool
	flaps   map[string]*flapper // link_flap faults under way, by target
	loads   map[string]*proc    // link_bandwidth_throttling's background traffic, by sending "device:interface"
	crash   crashState          // host_crash: crashed hosts, OnDeviceState's subscribers

	delays   map[string]*delayer // link_high_latency's delayers, by sending "device:interface"
	queueSeq uint16              // the last NFQUEUE number given to a delayer

	detached  map[*planLink]*detachedLink // link_detach faults under way
	detachSeq int                         // the last stub peer number given to a detached end

	// Converged is how long Up took from start to convergence (0 when
	// the wait was skipped).
	Converged time.Duration
	// Phases are the steps of Up and how long each took, in order.
	Phases     []Phase
	phaseStart time.Time
}

// Phase is one step of Up.
type Phase struct {
	Name string
	Took time.Duration
}

// phase ends the step under way, naming it.
func (l *Lab) phase(name string) {
	now := time.Now()
	l.Phases = append(l.Phases, Phase{Name: name, Took: now.Sub(l.phaseStart)})
	l.phaseStart = now
	l.logger.Debug("real lab: "+name, "seconds", fmt.Sprintf("%.2f", l.Phases[len(l.Phases)-1].Took.Seconds()))
}

// Up builds topo as a real lab and waits for it to converge. On error
// everything built so far is torn down.
func Up(ctx context.Context, topo topology.Topology, opts Options) (*Lab, error) {
	start := time.Now()
	if os.Geteuid() != 0 {
		return nil, ErrNotRoot
	}
	if err := checkTools(); err != nil {
		return nil, err
	}
	p, err := newPlan(topo, opts.Prefix)
	if err != nil {
		return nil, err
	}
	l := &Lab{plan: p, opts: opts, logger: opts.Logger, byName: map[string]*proc{}, phaseStart: start,
		handles: nsHandles{ns: map[string]netns.NsHandle{}, nl: map[string]*netlink.Handle{}}}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	for _, n := range p.Notes {
		l.logger.Info("real lab: " + n)
	}
	if err := l.build(ctx); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	if opts.ConvergeTimeout >= 0 {
		timeout := opts.ConvergeTimeout
		if timeout == 0 {
			timeout = 60 * time.Second
		}
		if err := l.WaitConverged(ctx, timeout); err != nil {
			return nil, errors.Join(err, l.Close())
		}
		l.phase("OSPF and BGP converged")
		l.Converged = time.Since(start)
	}
	return l, nil
}

// checkTools reports the missing programs in one error.
func checkTools() error {
	var missing []string
	for _, t := range []string{"ip", "vtysh", "lldpd", "lldpcli", "unbound", "unshare", "nft"} {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	for _, d := range append([]string{"zebra"}, frrDaemons...) {
		if _, err := os.Stat(filepath.Join(FRRDir, d)); err != nil {
			missing = append(missing, filepath.Join(FRRDir, d))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the real lab needs %s (apt-get install frr lldpd unbound iproute2; scripts/install-deps.sh)", strings.Join(missing, ", "))
	}
	return nil
}

// build creates the namespaces, the network and the daemons.
func (l *Lab) build(ctx context.Context) error {
	p := l.plan
	l.dir = l.opts.Dir
	if l.dir == "" {
		d, err := os.MkdirTemp("", "netmcp-reallab-")
		if err != nil {
			return err
		}
		l.dir, l.ownDir = d, true
	}
	names := []string{}
	for _, d := range p.Devices {
		names = append(names, d.NS)
	}
	if l.needStub() {
		names = append(names, p.StubNS)
	}
	for _, name := range names {
		h, err := newNamedNS(name)
		if err != nil {
			return err
		}
		l.mu.Lock()
		l.nsMade = append(l.nsMade, name)
		l.mu.Unlock()
		l.handles.ns[name] = h
		if err := setSysctls(h, nsSysctls); err != nil {
			return fmt.Errorf("namespace %s: %w", name, err)
		}
	}
	for _, d := range p.Devices {
		if d.Router() {
			if err := setSysctls(l.handles.ns[d.NS], routerSysctls); err != nil {
				return fmt.Errorf("namespace %s: %w", d.NS, err)
			}
		}
	}
	l.phase("namespaces")
	if err := buildNetwork(p, &l.handles); err != nil {
		return err
	}
	l.phase("links and addresses")
	for _, d := range p.Devices {
		if err := l.writeResolvConf(d); err != nil {
			return err
		}
	}
	if err := l.startFRR(ctx); err != nil {
		return err
	}
	l.phase("OSPF adjacencies (1 s hellos)")
	var pending []func() error
	for _, d := range p.Devices {
		configure, err := l.startLLDP(ctx, d)
		if err != nil {
			return err
		}
		if configure != nil {
			pending = append(pending, configure)
		}
		if d.Dev.DNS != nil && !d.Dev.DNS.Disabled {
			if err := l.startUnbound(d); err != nil {
				return err
			}
		}
	}
	l.phase("lldpd and unbound started")
	if err := parallel(pending); err != nil {
		return err
	}
	l.phase("lldpd configured and checked")
	return nil
}

// parallel runs fns at once and joins their errors.
func parallel(fns []func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for k, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = fn()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// needStub tells whether an interface has no cable.
func (l *Lab) needStub() bool {
	for _, d := range l.plan.Devices {
		for _, i := range d.Ifaces {
			if i.Kind == ifUnplugged {
				return true
			}
		}
	}
	return false
}

// writeResolvConf writes /etc/netns/NS/resolv.conf and hosts, which "ip
// netns exec" mounts over /etc's for the device's processes: the
// device's resolvers, and its own name in hosts. lldpd looks its host
// name up (getaddrinfo) before every LLDPDU: without the hosts entry the
// lookup goes to the lab's DNS server, which answers nothing until the
// routing has converged, and every lookup waits for the resolver's
// timeout (lldpd's log: "unable to get system name").
func (l *Lab) writeResolvConf(d *planDevice) error {
	dir := filepath.Join("/etc/netns", d.NS)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	l.mu.Lock()
	l.etcMade = append(l.etcMade, dir)
	l.mu.Unlock()
	hosts := fmt.Sprintf("127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t%s\n", d.Dev.Name)
	if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	if len(d.Dev.DNSServers) == 0 {
		// No resolver, as the topology says: not the machine's own, which
		// the namespace would see without this file (and which answers
		// nothing from inside the lab).
		fmt.Fprintf(&b, "# the topology gives %s no DNS server\n", d.Dev.Name)
		return os.WriteFile(filepath.Join(dir, "resolv.conf"), []byte(b.String()), 0o644)
	}
	for _, s := range d.Dev.DNSServers {
		fmt.Fprintf(&b, "nameserver %s\n", s)
	}
	b.WriteString("options timeout:2 attempts:1\n")
	return os.WriteFile(filepath.Join(dir, "resolv.conf"), []byte(b.String()), 0o644)
}

// startFRR starts zebra on every router, then staticd, ospfd and bgpd,
// and loads each router's frr.conf through vtysh.
func (l *Lab) startFRR(ctx context.Context) error {
	var routers []*planDevice
	for _, d := range l.plan.Devices {
		if d.Router() {
			routers = append(routers, d)
		}
	}
	for _, d := range routers {
		conf, err := frrConfig(d)
		if err != nil {
			return fmt.Errorf("%s: FRR configuration: %w", d.Dev.Name, err)
		}
		cdir := filepath.Join(l.dir, "frr", d.NS)
		run := filepath.Join(FRRRunDir, d.NS)
		for _, dir := range []string{cdir, run} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		l.mu.Lock()
		l.runMade = append(l.runMade, run)
		l.mu.Unlock()
		if err := os.WriteFile(filepath.Join(cdir, "frr.conf"), []byte(conf), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(cdir, "vtysh.conf"), nil, 0o644); err != nil {
			return err
		}
		// The daemons drop to the frr user: it writes the sockets and logs.
		for _, dir := range []string{cdir, run} {
			if err := chownFRR(dir); err != nil {
				return err
			}
		}
	}
	for _, daemons := range [][]string{{"zebra"}, frrDaemons} {
		var started []*proc
		var paths []string
		for _, d := range routers {
			for _, dm := range daemons {
				pr, err := l.startFRRDaemon(d, dm)
				if err != nil {
					return err
				}
				started = append(started, pr)
				paths = append(paths, filepath.Join(FRRRunDir, d.NS, dm+".vty"))
			}
		}
		for k, pr := range started {
			if err := waitFile(ctx, pr, paths[k], 15*time.Second); err != nil {
				return err
			}
		}
	}
	errs := make([]error, len(routers))
	var wg sync.WaitGroup
	for k, d := range routers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := run(ctx, d.NS, "vtysh", "-N", d.NS, "--config_dir", filepath.Join(l.dir, "frr"), "-b")
			if err != nil {
				errs[k] = fmt.Errorf("%s: loading frr.conf: %w %s", d.Dev.Name, err, strings.TrimSpace(string(out)))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	l.phase("FRR started and configured")
	return l.fastAdjacencies(ctx, 20*time.Second)
}

// startFRRDaemon starts one FRR daemon of router d in the foreground.
func (l *Lab) startFRRDaemon(d *planDevice, daemon string) (*proc, error) {
	logf := filepath.Join(l.dir, "frr", d.NS, daemon+".log")
	argv := []string{filepath.Join(FRRDir, daemon), "-N", d.NS, "-P", "0",
		"-i", filepath.Join(FRRRunDir, d.NS, daemon+".pid"), "--log", "file:" + logf, "--log-level", "informational"}
	pr, err := startProc(d.Dev.Name+"/"+daemon, d.NS, argv, filepath.Join(l.dir, "frr", d.NS, daemon+".out"))
	if err != nil {
		return nil, err
	}
	l.addProc(pr)
	return pr, nil
}

// startLLDP starts lldpd in the device's namespace on its links, and
// returns the function that configures it (nil when the device runs no
// lldpd).
func (l *Lab) startLLDP(ctx context.Context, d *planDevice) (func() error, error) {
	if d.Dev.LLDP != nil && d.Dev.LLDP.Disabled {
		return nil, nil
	}
	ifs := lldpInterfaces(d)
	if ifs == "" {
		return nil, nil
	}
	conf, err := lldpdConfig(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Dev.Name, err)
	}
	dir := filepath.Join(l.dir, "lldpd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll("/run/lldpd", 0o755); err != nil { // lldpd's privilege-separation chroot
		return nil, err
	}
	cf := filepath.Join(dir, d.NS+".conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	sock := LLDPSocket(d.NS)
	_ = os.Remove(sock) // a socket left by a killed lldpd would pass for this one's
	// lldpd runs in its own UTS namespace named after the device, so that
	// even its first LLDPDU carries the device's name (a namespace of "ip
	// netns" shares the host's name, "vm"), and it does not run lldpcli
	// itself (-L ""): that run could not read the configuration (see
	// configureLLDP) and lldpd does not check it; configureLLDP configures
	// it and checks the result.
	argv := append(utsExec(d.Dev.Name), "lldpd", "-d", "-L", "", "-u", sock,
		"-p", filepath.Join(dir, d.NS+".pid"), "-I", ifs, "-k")
	pr, err := startProc(d.Dev.Name+"/lldpd", d.NS, argv, filepath.Join(dir, d.NS+".log"))
	if err != nil {
		return nil, err
	}
	l.addProc(pr)
	return func() error { return configureLLDP(ctx, d, pr, sock, cf) }, nil
}

// utsExec is the argv prefix that runs a program in a new UTS namespace
// whose host name is name (unshare execs sh, which sets it and execs the
// program: the daemon stays the direct child).
func utsExec(name string) []string {
	return []string{"unshare", "--uts", "sh", "-c", `hostname "$0" && exec "$@"`, name}
}

// configureLLDP loads lldpd's configuration through its socket once
// lldpd listens and has found every port it is to run on, and checks that
// every port then carries the device's name and custom TLVs. lldpd
// applies "configure lldp custom-tlv" to the ports it knows at that
// moment: configured before it has found its ports, a custom TLV is
// silently lost (the neighbour without its custom TLV seen before).
func configureLLDP(ctx context.Context, d *planDevice, pr *proc, sock, conf string) error {
	if err := waitFile(ctx, pr, sock, 10*time.Second); err != nil {
		return err
	}
	want := strings.Split(lldpInterfaces(d), ",")
	ntlv := 0
	if d.Dev.LLDP != nil {
		ntlv = len(d.Dev.LLDP.CustomTLVs)
	}
	// ready reports what the ports lack ("" when every port is there, and
	// with configured, has the name and the custom TLVs).
	ready := func(configured bool) string {
		out, err := run(ctx, d.NS, "lldpcli", "-u", sock, "-f", "json0", "show", "interfaces")
		if err != nil {
			return err.Error()
		}
		var v struct {
			LLDP []struct {
				Interface []struct {
					Name    string `json:"name"`
					Chassis []struct {
						Name []struct {
							Value string `json:"value"`
						} `json:"name"`
					} `json:"chassis"`
					Unknown []struct {
						TLV []json.RawMessage `json:"unknown-tlv"`
					} `json:"unknown-tlvs"`
				} `json:"interface"`
			} `json:"lldp"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			return "lldpcli show interfaces: " + err.Error()
		}
		seen := map[string]string{}
		for _, l := range v.LLDP {
			for _, i := range l.Interface {
				n := 0
				for _, u := range i.Unknown {
					n += len(u.TLV)
				}
				name := ""
				if len(i.Chassis) > 0 && len(i.Chassis[0].Name) > 0 {
					name = i.Chassis[0].Name[0].Value
				}
				switch {
				case !configured:
					seen[i.Name] = ""
				case name != d.Dev.Name:
					seen[i.Name] = fmt.Sprintf("%s: system name %q", i.Name, name)
				case n != ntlv:
					seen[i.Name] = fmt.Sprintf("%s: %d custom TLVs, want %d", i.Name, n, ntlv)
				default:
					seen[i.Name] = ""
				}
			}
		}
		var missing []string
		for _, w := range want {
			m, ok := seen[w]
			switch {
			case !ok:
				missing = append(missing, w+": not a port of lldpd yet")
			case m != "":
				missing = append(missing, m)
			}
		}
		return strings.Join(missing, "; ")
	}
	wait := func(configured bool) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			m := ready(configured)
			if m == "" {
				return nil
			}
			if time.Now().After(deadline) || !pr.alive() {
				return fmt.Errorf("%s: lldpd: %s (log %s)", d.Dev.Name, m, pr.log)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if err := wait(false); err != nil {
		return err
	}
	// The commands go on standard input: lldpcli is set-user-ID _lldpd
	// and cannot read a file of the lab's directory (mode 0700), which it
	// only warns about, exiting 0 (lldpd -O had the same fate: the stale
	// neighbour named after the host, without its custom TLV).
	commands, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	if out, err := runInput(ctx, d.NS, commands, "lldpcli", "-u", sock); err != nil {
		return fmt.Errorf("%s: configuring lldpd: %w %s", d.Dev.Name, err, strings.TrimSpace(string(out)))
	}
	return wait(true)
}

// LLDPSocket is the control socket of the lldpd of namespace ns, which
// the linux driver reads with lldpcli -u.
func LLDPSocket(ns string) string { return "/run/lldpd-" + ns + ".socket" }

// startUnbound starts unbound for the device's DNS service.
func (l *Lab) startUnbound(d *planDevice) error {
	dir := filepath.Join(l.dir, "unbound", d.NS)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	conf, err := unboundConfig(d, dir)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Dev.Name, err)
	}
	cf := filepath.Join(dir, "unbound.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		return err
	}
	logf := filepath.Join(dir, "unbound.log")
	var from int64 // the log is appended to: a restart's own lines start here
	if fi, err := os.Stat(logf); err == nil {
		from = fi.Size()
	}
	pr, err := startProc(d.Dev.Name+"/unbound", d.NS, []string{"unbound", "-d", "-c", cf}, logf)
	if err != nil {
		return err
	}
	l.addProc(pr)
	return waitUnbound(pr, logf, from, unboundReadyTimeout)
}

// unboundReadyTimeout bounds the wait for unbound to serve; it takes a few
// milliseconds on an idle machine.
const unboundReadyTimeout = 20 * time.Second

// waitUnbound waits until unbound logs "start of service" after offset
// from of its log (its sockets are bound and it answers), so that the lab
// is not reported ready, nor a DNS fault cleared, while its DNS service
// still drops queries. It fails when unbound exits first
// or does not start within timeout, with the end of its log.
func waitUnbound(pr *proc, logf string, from int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		b, _ := os.ReadFile(logf)
		if int64(len(b)) >= from && bytes.Contains(b[from:], []byte("start of service")) {
			return nil
		}
		if !pr.alive() || time.Now().After(deadline) {
			why := "did not start serving within " + timeout.String()
			if !pr.alive() {
				why = "exited"
			}
			return fmt.Errorf("%s %s: %s", pr.name, why, tail(logf))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (l *Lab) addProc(p *proc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.procs = append(l.procs, p)
	l.byName[p.name] = p
}

// Namespace returns the namespace of a device ("" when unknown).
func (l *Lab) Namespace(device string) string {
	if d, ok := l.plan.Device(device); ok {
		return d.NS
	}
	return ""
}

// Routers lists the routers in topology order.
func (l *Lab) Routers() []string {
	var out []string
	for _, d := range l.plan.Devices {
		if d.Router() {
			out = append(out, d.Dev.Name)
		}
	}
	return out
}

// Devices lists every device in topology order.
func (l *Lab) Devices() []string {
	var out []string
	for _, d := range l.plan.Devices {
		out = append(out, d.Dev.Name)
	}
	return out
}

// Topology returns the topology the lab was built from.
func (l *Lab) Topology() topology.Topology { return l.plan.Topology }

// Notes lists how the lab differs from the topology (VRFs, delays, ...).
func (l *Lab) Notes() []string { return slices.Clone(l.plan.Notes) }

// Dir is the directory of configurations and logs.
func (l *Lab) Dir() string { return l.dir }

// LinuxName returns the Linux name of a device's topology interface.
func (l *Lab) LinuxName(device, iface string) (string, bool) {
	d, ok := l.plan.Device(device)
	if !ok {
		return "", false
	}
	i, ok := d.Iface(iface)
	if !ok {
		return "", false
	}
	return i.Linux, true
}

// TopologyName returns the topology's name of a device's Linux
// interface ("gi0-0-0" -> "GigabitEthernet0/0/0"; "lo" -> the first
// loopback), or the Linux name itself when the topology has none.
func (l *Lab) TopologyName(device, linuxName string) string {
	d, ok := l.plan.Device(device)
	if !ok {
		return linuxName
	}
	for _, i := range d.Ifaces {
		if i.Linux == linuxName {
			return i.Topo
		}
	}
	return linuxName
}

// Exec runs argv in a device's namespace and returns its standard output.
func (l *Lab) Exec(ctx context.Context, device string, argv ...string) ([]byte, error) {
	ns := l.Namespace(device)
	if ns == "" {
		return nil, fmt.Errorf("no device %s in the lab", device)
	}
	return run(ctx, ns, argv...)
}

// Vtysh runs vtysh commands on a router.
func (l *Lab) Vtysh(ctx context.Context, device string, commands ...string) ([]byte, error) {
	ns := l.Namespace(device)
	if ns == "" {
		return nil, fmt.Errorf("no device %s in the lab", device)
	}
	argv := []string{"vtysh", "-N", ns, "--config_dir", filepath.Join(l.dir, "frr")}
	for _, c := range commands {
		argv = append(argv, "-c", c)
	}
	return run(ctx, ns, argv...)
}

// Close stops every daemon (SIGTERM, then SIGKILL) and waits for it,
// deletes the namespaces, and removes the files the lab made. It is safe
// to call more than once.
func (l *Lab) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	procs := slices.Clone(l.procs)
	l.mu.Unlock()
	l.stopFlaps()
	l.stopLoads()
	l.stopDelays()
	var errs []error
	var wg sync.WaitGroup
	errc := make([]error, len(procs))
	for k, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errc[k] = p.stop(3 * time.Second)
		}()
	}
	wg.Wait()
	errs = append(errs, errc...)
	l.handles.close()
	for _, ns := range l.nsMade {
		if err := deleteNamedNS(ns); err != nil {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", ns, err))
		}
	}
	for _, d := range append(l.etcMade, l.runMade...) {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range l.plan.Devices {
		_ = os.Remove(LLDPSocket(d.NS))
	}
	if l.ownDir {
		if err := os.RemoveAll(l.dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// chownFRR gives dir to the frr user and group, which FRR's daemons run as.
func chownFRR(dir string) error {
	u, err := user.Lookup("frr")
	if err != nil {
		return fmt.Errorf("FRR's user: %w (is the frr package installed?)", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}
