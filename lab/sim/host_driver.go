package sim

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// DialectLinux is the CLI dialect of a simulated host: the Linux shell
// commands an operator types on a host (iproute2, iputils, dig), as the
// linux:// driver names it.
const DialectLinux = "linux"

// HostDriver is one simulated Linux host of a Lab, inspectable as an MCP
// device the way a shell shows a host: read-only CLI (ip addr, ip route,
// ip neigh, cat /etc/resolv.conf, ping, traceroute, tracepath, dig; see
// HostCommands), the openconfig-interfaces and ietf-routing views in the
// running and operational datastores, diagnostics through the network
// model. It is read-only: it implements no device.Configurer, so
// configuration tools answer that the device cannot be configured; a
// host's configuration changes through the lab (its topology and faults,
// e.g. host_incorrect_ip). Everything it shows is read from the model at
// the time of the call, so a fault applied to the host shows at once. A
// crashed host (host_crash) answers nothing: every call fails as an
// unreachable device would.
type HostDriver struct {
	lab     *Lab
	name    string
	schema  *yang.Schema
	started time.Time
	// perm is each interface's permanent (hardware) MAC: the one it had
	// when the lab started, which a MAC set later does not change.
	perm map[string]string
}

var (
	_ device.Driver    = (*HostDriver)(nil)
	_ device.Diagnoser = (*HostDriver)(nil)
)

// newHostDrivers makes the driver of every host of the lab's model.
func newHostDrivers(l *Lab) (map[string]*HostDriver, []string) {
	hosts := map[string]*HostDriver{}
	var names []string
	for _, d := range l.net.DevicesOfKind(topology.KindHost) {
		perm := map[string]string{}
		for _, it := range d.Interfaces {
			if st, err := l.net.InterfaceState(d.Name, it.Name); err == nil {
				perm[it.Name] = strings.ToLower(st.MAC)
			}
		}
		hosts[d.Name] = &HostDriver{lab: l, name: d.Name, schema: yang.DefaultSchema(), started: l.opts.Now(), perm: perm}
		names = append(names, d.Name)
	}
	return hosts, names
}

// Host returns the driver of a host of the lab.
func (l *Lab) Host(name string) (*HostDriver, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.hosts[name]; ok {
		return h, nil
	}
	return nil, fmt.Errorf("sim: no host %q in the lab (have %v)", name, l.hostNames)
}

// Hosts lists the lab's hosts, each serving a read-only "linux" device,
// in topology order.
func (l *Lab) Hosts() []string { return slices.Clone(l.hostNames) }

// Name returns the host's name in the lab.
func (h *HostDriver) Name() string { return h.name }

// Info describes the host: dialect linux, the running and operational
// datastores, no rollback (the host takes no configuration over MCP).
func (h *HostDriver) Info() device.Info {
	return device.Info{
		Name: h.name, Vendor: "Linux", Platform: "netmcp simulated host", SoftwareVersion: hostKernel,
		CLIDialect:          DialectLinux,
		YangModules:         h.schema.Modules(),
		Datastores:          []device.Datastore{device.Running, device.Operational},
		NotificationStreams: []string{},
	}
}

// hostKernel is the kernel release a simulated host reports.
const hostKernel = "6.8.0-netmcp"

// config returns the host's configuration as the model runs it, or the
// error of a host that is down or gone.
func (h *HostDriver) config() (topology.Device, error) {
	down, err := h.lab.net.DeviceDown(h.name)
	if err != nil {
		return topology.Device{}, err
	}
	if down {
		return topology.Device{}, netproto.Errorf(netproto.CodeUnreachable, "host %s is down (host_crash): it answers nothing", h.name).Retryable()
	}
	d, ok := h.lab.net.Device(h.name)
	if !ok {
		return topology.Device{}, fmt.Errorf("sim: host %s is no longer in the model", h.name)
	}
	return d, nil
}

// Get returns the subtree at path of the running configuration (the
// host's interfaces, addresses and static routes, its gateway as the
// default route) or of the operational datastore (plus interface state,
// counters, ARP neighbours and the RIBs).
func (h *HostDriver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	dev, err := h.config()
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	switch ds {
	case device.Running, "":
		tree = hostTree(dev)
	case device.Operational:
		tree = h.operational(dev)
	case device.Candidate, device.Startup:
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "host %s has no %s datastore: a simulated host is read-only (running, operational)", h.name, ds)
	default:
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "unknown datastore %q (have running, operational)", ds)
	}
	if len(p) > 0 {
		if cerr := h.schema.Check(p); cerr != nil {
			if ds != device.Operational {
				return nil, cerr
			}
			v, gerr := yang.Get(tree, p)
			if gerr != nil {
				return nil, cerr
			}
			return v, nil
		}
	}
	v, err := yang.Get(tree, p)
	if errors.Is(err, yang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s in %s", device.ErrNotFound, p.String(), ds)
	}
	return v, err
}

// Close releases nothing: a host driver holds no resources (the lab owns
// the model).
func (h *HostDriver) Close() error { return nil }

// hostWithGateway returns the host's configuration with its gateway
// written as the default static route it is.
func hostWithGateway(d topology.Device) topology.Device {
	if d.Gateway == "" {
		return d
	}
	def := "0.0.0.0/0"
	if a, err := netip.ParseAddr(d.Gateway); err == nil && a.Is6() {
		def = "::/0"
	}
	d.Routes = append([]topology.StaticRoute{{Prefix: def, NextHop: d.Gateway}}, d.Routes...)
	return d
}

// hostTree is the host's running configuration tree.
func hostTree(d topology.Device) map[string]any {
	return DeviceToTree(hostWithGateway(d))
}

// operational is the host's operational tree: running plus interface
// state and counters, ARP neighbours, the ietf-interfaces view and RIBs.
func (h *HostDriver) operational(dev topology.Device) map[string]any {
	tree := hostTree(dev)
	v := h.routerView()
	v.addInterfaceState(tree, dev)
	routing, _ := tree[memRouting].(map[string]any)
	if routing == nil {
		routing = obj{}
	}
	routing["ribs"] = obj{"rib": v.ribs(dev)}
	tree[memRouting] = routing
	return tree
}

// routerView is a Driver value for the operational helpers routers and
// hosts share (ribs, interface state, neighbours): they read only the
// lab, the name and the start time.
func (h *HostDriver) routerView() *Driver {
	return &Driver{lab: h.lab, name: h.name, started: h.started, ifChange: map[string]time.Time{}}
}

// Exec runs one of the host's read-only commands (HostCommands).
func (h *HostDriver) Exec(ctx context.Context, command string) (string, error) {
	dev, err := h.config()
	if err != nil {
		return "", err
	}
	return h.exec(ctx, dev, strings.Fields(command), command)
}

// neighborsOf returns the host's ARP/ND entries.
func (h *HostDriver) neighborsOf() []netsim.Neighbor {
	nb, _ := h.lab.net.Neighbors(h.name)
	return nb
}

// openedHost is a host obtained from device.Open ("sim://h3"): closing it
// releases the shared lab as a router's opened does.
type openedHost struct {
	*HostDriver
	rel opened
}

// Close releases the host; the lab closes with its last device.
func (o *openedHost) Close() error { return o.rel.Close() }
