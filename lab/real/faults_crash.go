//go:build linux

package real

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// host_crash on the real lab: the host's namespace goes dark as a machine
// that has lost power. Its interfaces go down (the router's end of its veth
// loses its carrier: admin up, oper down, as the simulator shows it), its
// daemons stop (unbound on a DNS host, lldpd), and the owner of its MCP
// server is told to stop answering (OnDeviceState: `lab up --real` closes
// the host's listener and its open connections). Clearing boots it again:
// the interfaces up with the plan's addresses, the routes the lab set up
// (hostRoutes: the kernel flushed the default routes with the links), the
// daemons that ran, then the MCP server on the same address.

// registerCrashFaults binds the crash faults: host_crash (a router's
// routing daemons stopping is frr_service_down, faults_routing.go).
func registerCrashFaults(b *fault.Backend[*Lab]) {
	b.Register("host_crash", onOff((*Lab).hostCrash))
}

// DeviceStateFunc is told that a fault took a whole device down (down
// true: it must answer nothing, as a dead machine) or brought it back
// (down false: it must answer again, on the same address). It runs
// synchronously inside InjectFault and ClearFault: when InjectFault
// returns, the device's server no longer answers; an error fails the
// injection or the clearing.
type DeviceStateFunc func(ctx context.Context, device string, down bool) error

// crashState is the lab's crashed hosts and the subscribers to device
// state changes.
type crashState struct {
	mu      sync.Mutex
	hooks   []DeviceStateFunc
	crashed map[string][]string // host -> the names of the daemons it ran ("h3/unbound")
}

// OnDeviceState subscribes fn to the devices a fault takes down or brings
// back (host_crash). The server of each device (cmd/netmcp's lab) uses it
// to stop and restart that device's MCP endpoint.
func (l *Lab) OnDeviceState(fn DeviceStateFunc) {
	l.crash.mu.Lock()
	defer l.crash.mu.Unlock()
	l.crash.hooks = append(l.crash.hooks, fn)
}

// DeviceDown tells whether a fault has taken the device down (host_crash).
func (l *Lab) DeviceDown(device string) bool {
	l.crash.mu.Lock()
	defer l.crash.mu.Unlock()
	_, ok := l.crash.crashed[device]
	return ok
}

// notify tells every subscriber of device's new state.
func (l *Lab) notify(ctx context.Context, device string, down bool) error {
	l.crash.mu.Lock()
	hooks := slices.Clone(l.crash.hooks)
	l.crash.mu.Unlock()
	var errs []error
	for _, h := range hooks {
		errs = append(errs, h(ctx, device, down))
	}
	return errors.Join(errs...)
}

// crashTarget resolves host_crash's target: a host of the lab.
func (l *Lab) crashTarget(f topology.Fault) (*planDevice, error) {
	d, err := l.device(f)
	if err != nil {
		return nil, err
	}
	if d.Router() {
		return nil, fmt.Errorf("%s: %s is a router, not a host (for a router's routing daemons, use frr_service_down)", f.Name, f.Target)
	}
	return d, nil
}

// hostCrash crashes the host (on) or boots it again.
func (l *Lab) hostCrash(ctx context.Context, f topology.Fault, on bool) error {
	d, err := l.crashTarget(f)
	if err != nil {
		return err
	}
	name := d.Dev.Name
	l.crash.mu.Lock()
	daemons, down := l.crash.crashed[name]
	if on && !down {
		if l.crash.crashed == nil {
			l.crash.crashed = map[string][]string{}
		}
		l.crash.crashed[name] = nil // taken: a second crash is refused while this one runs
	}
	l.crash.mu.Unlock()
	switch {
	case on && down:
		return fmt.Errorf("%s: %s is down already", f.Name, name)
	case !on && !down:
		return fmt.Errorf("%s: %s is not down", f.Name, name)
	}
	if on {
		daemons, err = l.crashHost(ctx, d)
		if err == nil {
			l.setCrashed(name, daemons, true)
			return nil
		}
		// A failed injection is not recorded by its caller: boot the host
		// again rather than leave it half down with no fault to clear.
	}
	if berr := l.bootHost(ctx, d, daemons); berr != nil {
		return errors.Join(err, berr)
	}
	l.setCrashed(name, nil, false)
	return err
}

// setCrashed records host name as down with the daemons it ran, or
// forgets it (down false).
func (l *Lab) setCrashed(name string, daemons []string, down bool) {
	l.crash.mu.Lock()
	defer l.crash.mu.Unlock()
	if down {
		l.crash.crashed[name] = daemons
	} else {
		delete(l.crash.crashed, name)
	}
}

// crashHost takes host d down: its MCP server first (a dead machine
// answers nothing), then its daemons and its interfaces. It returns the
// daemons it stopped ("h3/unbound"), also when it fails, for bootHost.
func (l *Lab) crashHost(ctx context.Context, d *planDevice) ([]string, error) {
	var errs []error
	errs = append(errs, l.notify(ctx, d.Dev.Name, true))
	prefix := d.Dev.Name + "/"
	l.mu.Lock()
	var running []*proc
	for n, p := range l.byName {
		if strings.HasPrefix(n, prefix) && p.alive() {
			running = append(running, p)
		}
	}
	l.mu.Unlock()
	var names []string
	for _, p := range running {
		names = append(names, p.name)
		// SIGKILL at once: a machine losing power does not shut down.
		errs = append(errs, p.stop(0))
	}
	slices.Sort(names)
	errs = append(errs, l.inNetlink(d, func(nl *netlink.Handle) error {
		links, err := nl.LinkList()
		if err != nil {
			return err
		}
		var errs []error
		for _, link := range links {
			if err := nl.LinkSetDown(link); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", link.Attrs().Name, err))
			}
		}
		return errors.Join(errs...)
	}))
	if err := errors.Join(errs...); err != nil {
		return names, fmt.Errorf("host_crash %s: %w", d.Dev.Name, err)
	}
	return names, nil
}

// bootHost brings host d back as Up built it: lo and its interfaces up
// with their planned addresses and its routes (configureDevice, as Up),
// the daemons it ran (daemons: "h3/unbound", "h3/lldpd"), then its MCP
// server (the subscribers).
func (l *Lab) bootHost(ctx context.Context, d *planDevice, daemons []string) error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return fmt.Errorf("host_crash %s: the lab is closed", d.Dev.Name)
	}
	err := l.inNetlink(d, func(nl *netlink.Handle) error { return configureDevice(nl, d) })
	if err != nil {
		return fmt.Errorf("host_crash %s: %w", d.Dev.Name, err)
	}
	if err := l.waitPeersUp(ctx, d, 5*time.Second); err != nil {
		return fmt.Errorf("host_crash %s: %w", d.Dev.Name, err)
	}
	for _, n := range daemons {
		var err error
		switch strings.TrimPrefix(n, d.Dev.Name+"/") {
		case "unbound":
			err = l.startUnbound(d) // returns once it serves
		case "lldpd":
			var configure func() error
			if configure, err = l.startLLDP(ctx, d); err == nil && configure != nil {
				err = configure()
			}
		default:
			err = fmt.Errorf("no way to restart %s", n)
		}
		if err != nil {
			return fmt.Errorf("host_crash %s: restarting %s: %w", d.Dev.Name, n, err)
		}
	}
	return l.notify(ctx, d.Dev.Name, false)
}

// waitPeersUp waits until the far end of each of d's links has its
// carrier again (operationally up), so that the host is reachable when
// the clearing returns. It polls netlink in the far end's namespace.
func (l *Lab) waitPeersUp(ctx context.Context, d *planDevice, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, i := range d.Ifaces {
		if i.Kind != ifVeth || i.Down {
			continue
		}
		far, err := l.peerOf(linkEnd{d, i})
		if err != nil || far.i.Down {
			continue
		}
		err = l.inNetlink(far.d, func(nl *netlink.Handle) error {
			for {
				link, err := nl.LinkByName(far.i.Linux)
				state := ""
				if err == nil {
					state = link.Attrs().OperState.String()
					if link.Attrs().OperState == netlink.OperUp {
						return nil
					}
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("%s:%s is not up after %s (%s %v)", far.d.Dev.Name, far.i.Topo, timeout, state, err)
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// inNetlink runs fn with a netlink handle in d's namespace, its own (the
// lab's handles are Up's, and Close releases them).
func (l *Lab) inNetlink(d *planDevice, fn func(*netlink.Handle) error) error {
	ns, err := netns.GetFromPath(filepath.Join(netnsDir, d.NS))
	if err != nil {
		return fmt.Errorf("namespace %s: %w", d.NS, err)
	}
	defer ns.Close()
	nl, err := netlink.NewHandleAt(ns)
	if err != nil {
		return fmt.Errorf("netlink in %s: %w", d.NS, err)
	}
	defer nl.Close()
	return fn(nl)
}
