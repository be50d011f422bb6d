package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/proccpu"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/server"
)

// Options configure Up.
type Options struct {
	// Topology is the lab's network.
	Topology topology.Topology
	// Real builds it as a real network, Linux namespaces with FRR, lldpd
	// and unbound (needs root), each device served through linux://,
	// instead of simulating it.
	Real bool
	// Faults are injected at start: the simulated lab boots with them, the
	// real one injects them once it has converged. ParseFaults checks
	// them against the topology first.
	Faults []topology.Fault
	// BasePort is the first device's TCP port: device i (routers, then
	// hosts) listens on BasePort+i; 0 picks free ports.
	BasePort int
	// StateDir, when set, is the lab's state directory (see StateDir): the
	// lab writes the inventory of its devices there (inventory.yaml) and
	// serves its control endpoint, whose address and token it writes to
	// control.json. Empty: neither, as for a lab run inside a program.
	StateDir string
	// Inventory, when set, is one more file the inventory is written to.
	Inventory string
	// SSH also serves every simulated router's CLI over SSH; its keys go
	// to StateDir/ssh, or to a temporary directory removed by Close.
	SSH bool
	// GNMI also serves every simulated router over gNMI on its own
	// 127.0.0.1 port, over TLS with a certificate of the lab's CA
	// (StateDir/gnmi/ca.pem, or a temporary directory removed by Close);
	// the inventory gives each router's gnmi:// URL.
	GNMI bool
	// DeviceStateDir holds the simulated devices' persistent state (one
	// directory per device); "" keeps it in memory.
	DeviceStateDir string
	// Realtime paces the simulated diagnostics like the real tools (ping:
	// one request per second); otherwise they answer at once.
	Realtime bool
	// TelemetryInterval is the period of the simulated devices' CPU and
	// memory telemetry (0: the simulator's default).
	TelemetryInterval time.Duration
	// NetnsPrefix prefixes the real lab's namespace names (router r1 is
	// linux://PREFIXr1).
	NetnsPrefix string
	// Report adds to Notes what the lab costs: the time to ready and the
	// memory per router (simulated), the daemons' memory (real).
	Report bool
	// Notes, when set, is told where the inventory and the control
	// endpoint are, the faults injected at start and, with Report, the
	// figures.
	Notes io.Writer
	// Logger receives the servers' (and the real lab's) log; nil: none.
	Logger *slog.Logger
	// Version is the version the devices' MCP servers announce.
	Version string
	// Role is the role of the lab token's holder on every device (see
	// TokenFile): RoleLab when empty; policy.RoleAdmin also sees secrets.
	Role string
	// AuditLog, when set, returns the audit log of device name's server
	// (called once, when the server is built); nil: no audit log.
	AuditLog func(device string) (*audit.Log, error)
}

// Lab is a running lab: its devices' MCP servers, and with a state
// directory its inventory and control endpoint. It is safe for concurrent
// use.
type Lab struct {
	labServers
	topo    topology.Topology
	sim     *sim.Lab // the simulated lab, or
	real    realLab  // the real one (lab/real, Linux only)
	faults  faultLab // sim, or the real lab's fault list
	devs    []*labDevice
	byName  map[string]*labDevice
	routers int // devs[:routers] are the routers, the rest hosts
	ssh     *labSSH
	gnmi    *labGNMI
	auth    *Auth
	ctl     *labControl
	invFile []string        // where the inventory was written
	srvCtx  context.Context // the servers' context, cancelled by Close
	cancel  context.CancelFunc

	closeOnce sync.Once
	closeErr  error
}

// Device is one device of a running lab as `netmcp lab up` lists it.
type Device struct {
	Name    string
	Dialect string // its CLI dialect (linux for a host)
	URL     string // its MCP endpoint (Streamable HTTP)
	// SSH is its CLI's ssh:// URL for the ssh driver, with the lab's key
	// and known_hosts (Options.SSH; routers only).
	SSH string
	// GNMI is its gnmi:// URL for the gNMI driver, naming the lab's CA
	// file (Options.GNMI; routers only).
	GNMI string
	// Host tells an end host (role host in the inventory) from a router.
	Host bool
}

// ActiveFault is a fault injected into a running lab, with its id.
type ActiveFault = sim.ActiveFault

// realLab is what the code for both kinds of lab needs of a real lab
// (*lab/real.Lab, built on Linux only).
type realLab interface {
	// Namespace is a device's network namespace.
	Namespace(device string) string
	// Close tears the lab down.
	Close() error
}

// Up starts the lab of o and returns once every device is served (the
// real lab: once it has converged). Stop it with Close, or serve it until
// a context ends with Wait.
//
// Every device's server has the security layer of `netmcp serve`
// (server.Secure): it answers only requests that carry the lab's bearer
// token, minted at start and written 0600 to StateDir/token (TokenFile),
// or without a state directory to a private temporary directory that
// Close removes. The inventory names that file; Lab.HTTPClient sends it.
func Up(ctx context.Context, o Options) (*Lab, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	auth, err := newLabAuth(o.StateDir, o.Role, o.AuditLog)
	if err != nil {
		return nil, err
	}
	var l *Lab
	if o.Real {
		l, err = upReal(ctx, o, auth)
	} else {
		l, err = upSim(ctx, o, auth)
	}
	if err != nil {
		return nil, errors.Join(err, auth.Close())
	}
	return l, nil
}

// upSim starts a simulated lab: every router and host of the topology
// served as its own MCP server, the first router's built at once (an error
// in building one shows at start, not on first use), then SSH, inventory
// and control endpoint as o asks.
func upSim(ctx context.Context, o Options, auth *Auth) (*Lab, error) {
	start, cpu0 := time.Now(), proccpu.Used()
	topo := o.Topology
	topo.Faults = append(slices.Clone(topo.Faults), o.Faults...)
	lab, err := sim.NewLab(topo, sim.LabOptions{StateDir: o.DeviceStateDir, Realtime: o.Realtime, TelemetryInterval: o.TelemetryInterval})
	if err != nil {
		return nil, err
	}
	l := newLab(ctx, topo, auth)
	l.sim, l.faults = lab, lab
	for _, name := range lab.Routers() {
		drv, err := lab.Device(name)
		if err == nil {
			err = l.serve(name, drv, o)
		}
		if err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	l.routers = len(l.devs)
	// The hosts too (dialect linux, read-only), after the routers' ports.
	for _, name := range lab.Hosts() {
		drv, err := lab.Host(name)
		if err == nil {
			err = l.serve(name, drv, o)
		}
		if err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	if len(l.devs) > 0 {
		if _, _, err := l.devs[0].server(); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	if o.SSH {
		if err := l.startSSH(o.StateDir); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	if o.GNMI {
		if err := l.startGNMI(o.StateDir, o); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	ready, cpu := time.Since(start), proccpu.Used()-cpu0
	if o.StateDir != "" {
		// The inventory first: a control file tells a lab is up and complete.
		if err := l.writeInventory(o); err != nil {
			return nil, errors.Join(err, l.Close())
		}
		if err := l.serveControl(o.StateDir); err != nil {
			return nil, errors.Join(err, l.Close())
		}
		if o.Notes != nil {
			for _, f := range l.invFile {
				fmt.Fprintf(o.Notes, "netmcp lab: inventory %s\n", f)
			}
			l.noteToken(o)
			l.noteControl(o)
			if l.gnmi != nil {
				fmt.Fprintf(o.Notes, "netmcp lab: gNMI on every router, mutual TLS from the CA %s (gnmi:// URLs with the lab's client certificate in the inventory)\n", l.gnmi.caPEM)
			}
			for _, f := range lab.Faults() {
				noteFault(o.Notes, f)
			}
		}
	}
	if o.Report && o.Notes != nil {
		fmt.Fprintln(o.Notes, measureLab(len(lab.Routers()), ready, cpu))
	}
	return l, nil
}

// newLab returns a lab of topo whose servers, secured by auth, run until
// ctx ends or Close.
func newLab(ctx context.Context, topo topology.Topology, auth *Auth) *Lab {
	l := &Lab{topo: topo, byName: map[string]*labDevice{}, auth: auth}
	l.srvCtx, l.cancel = context.WithCancel(ctx)
	l.init()
	return l
}

// serve starts the HTTP listener of one device (a router or a host), the
// next port after the devices already served.
func (l *Lab) serve(name string, drv device.Driver, o Options) error {
	d := &labDevice{name: name, drv: drv, logger: o.Logger, version: o.Version, secure: l.auth.Secure}
	l.devs = append(l.devs, d)
	l.byName[name] = d
	return l.listen(l.srvCtx, name, len(l.devs)-1, o.BasePort, d.endpoint)
}

// serveControl starts the lab's control endpoint, its control file in dir.
func (l *Lab) serveControl(dir string) error {
	ctl, err := startControl(l.faults, dir)
	if err != nil {
		return err
	}
	l.ctl = ctl
	return nil
}

// noteControl tells o.Notes where the control endpoint is.
func (l *Lab) noteControl(o Options) {
	if o.Notes != nil && l.ctl != nil {
		fmt.Fprintf(o.Notes, "netmcp lab: control endpoint %s (netmcp lab fault --state-dir %s)\n", l.ctl.addr, o.StateDir)
	}
}

// noteToken tells o.Notes where the devices' bearer token is (never the
// token itself).
func (l *Lab) noteToken(o Options) {
	if o.Notes != nil {
		fmt.Fprintf(o.Notes, "netmcp lab: the devices answer only requests with the bearer token in %s (the inventory names it)\n", l.auth.file)
	}
}

// noteFault tells w of a fault injected at start.
func noteFault(w io.Writer, f ActiveFault) {
	fmt.Fprintf(w, "netmcp lab: fault %s: %s (%s on %s)\n", f.ID, f.Words, f.Kind, strings.Join(f.Devices, ","))
}

// Devices lists the lab's devices, routers then hosts, as served.
func (l *Lab) Devices() []Device {
	out := make([]Device, len(l.devs))
	for i, d := range l.devs {
		out[i] = Device{Name: d.name, Dialect: d.drv.Info().CLIDialect, URL: l.URL(d.name), Host: i >= l.routers}
		if l.ssh != nil {
			out[i].SSH = l.ssh.urls[d.name]
		}
		if l.gnmi != nil {
			out[i].GNMI = l.gnmi.urls[d.name]
		}
	}
	return out
}

// Routers lists the lab's routers (and switches), in topology order.
func (l *Lab) Routers() []string {
	out := make([]string, l.routers)
	for i, d := range l.devs[:l.routers] {
		out[i] = d.name
	}
	return out
}

// URL returns device name's MCP endpoint ("" for a device it lacks).
func (l *Lab) URL(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.urls[name]
}

// Topology returns the lab's topology (with the faults it booted with).
func (l *Lab) Topology() topology.Topology { return l.topo }

// Driver returns device name's driver.
func (l *Lab) Driver(name string) (device.Driver, error) {
	d, ok := l.byName[name]
	if !ok {
		return nil, fmt.Errorf("the lab has no device %q", name)
	}
	return d.drv, nil
}

// Server returns device name's MCP server, building it if no request has
// yet.
func (l *Lab) Server(name string) (*server.Server, error) {
	d, ok := l.byName[name]
	if !ok {
		return nil, fmt.Errorf("the lab has no device %q", name)
	}
	srv, _, err := d.server()
	return srv, err
}

// Kill stops device name's MCP endpoint at once, as when a machine loses
// power: a new connection is refused, every open one is closed.
func (l *Lab) Kill(name string) error { return l.kill(name) }

// Revive serves device name's MCP endpoint again on the address it had,
// with none of the sessions of before the kill, as after a reboot.
func (l *Lab) Revive(name string) error { return l.revive(name) }

// TokenFile is the file holding the lab's bearer token (StateDir/token,
// or a temporary file): what the inventory's credentials name.
func (l *Lab) TokenFile() string { return l.auth.TokenFile() }

// HTTPClient returns a new HTTP client, with connections of its own, that
// sends the lab's token to its devices (and refuses any other host than
// loopback): for a Streamable HTTP client transport of a device's URL.
func (l *Lab) HTTPClient() *http.Client { return l.auth.HTTPClient() }

// Sim returns the simulated lab (nil for a real one).
func (l *Lab) Sim() *sim.Lab { return l.sim }

// Inject adds a fault to the running lab and returns it with its id.
func (l *Lab) Inject(f topology.Fault) (ActiveFault, error) { return l.faults.Inject(f) }

// ClearFault removes the fault with that id or those words.
func (l *Lab) ClearFault(idOrWords string) (ActiveFault, error) {
	return l.faults.ClearFault(idOrWords)
}

// ClearFaults removes every fault.
func (l *Lab) ClearFaults() { l.faults.ClearFaults() }

// Faults lists the injected faults, oldest first.
func (l *Lab) Faults() []ActiveFault { return l.faults.Faults() }

// InventoryFiles are the files the lab wrote its inventory to (none
// without a state directory).
func (l *Lab) InventoryFiles() []string { return slices.Clone(l.invFile) }

// Failed is closed when a device's HTTP server fails.
func (l *Lab) Failed() <-chan struct{} { return l.failed }

// Wait serves the lab until ctx ends or a device's server fails, then
// closes it and returns Close's error (with the failure's).
func (l *Lab) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
	case <-l.failed:
	}
	return l.Close()
}

// Close stops the control endpoint (removing the control file), shuts the
// servers down, waits for them and stops the lab (the real one's
// namespaces and daemons). It returns the errors the servers failed with;
// a second call returns the first's error.
func (l *Lab) Close() error {
	l.closeOnce.Do(func() {
		if l.ctl != nil {
			l.ctl.stop()
		}
		l.cancel()
		errs := l.wait()
		errs = append(errs, l.ssh.close(), l.gnmi.close())
		for _, d := range l.devs {
			d.close()
		}
		switch {
		case l.sim != nil:
			errs = append(errs, l.sim.Close())
		case l.real != nil:
			errs = append(errs, l.real.Close())
		}
		errs = append(errs, l.auth.Close())
		l.closeErr = errors.Join(errs...)
	})
	return l.closeErr
}
