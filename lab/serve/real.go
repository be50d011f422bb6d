//go:build linux

package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/linux"
	reallab "github.com/netmcp/netmcp/lab/real"
	"github.com/netmcp/netmcp/lab/topology"
)

// RealFaults are the fault names the real lab builds.
var RealFaults = reallab.RealFaults

// ErrNoRealLab is why this system cannot build the real lab; nil on
// Linux, where it can.
var ErrNoRealLab error

// checkRealFault refuses, naming those it builds, a fault the real lab
// does not build.
func checkRealFault(f topology.Fault) error {
	if !slices.Contains(reallab.RealFaults, f.Name) {
		return fmt.Errorf("--fault %q: fault %s is not built on the real lab yet (it builds %s)", f.String(), f.Name, strings.Join(reallab.RealFaults, ", "))
	}
	return nil
}

// Real returns the real lab (nil for a simulated one).
func (l *Lab) Real() *reallab.Lab {
	r, _ := l.real.(*reallab.Lab)
	return r
}

// upReal builds the topology as a real lab, serves every router and host
// through the linux driver as its own MCP server, then writes the
// inventory, injects the start faults and starts the control endpoint as
// o asks.
func upReal(ctx context.Context, o Options, auth *Auth) (*Lab, error) {
	if os.Geteuid() != 0 {
		return nil, reallab.ErrNotRoot
	}
	rlab, err := reallab.Up(ctx, o.Topology, reallab.Options{Prefix: o.NetnsPrefix, Logger: o.Logger})
	if err != nil {
		return nil, err
	}
	l := newLab(ctx, rlab.Topology(), auth)
	l.real = rlab
	fl := &realFaultLab{lab: rlab}
	l.faults = fl
	// The hosts too (dialect linux, read-only), after the routers' ports,
	// as the simulated lab serves them.
	routers := rlab.Routers()
	for _, name := range append(routers, realHosts(rlab)...) {
		if err := l.serveReal(ctx, name, o); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	l.routers = len(routers)
	// A device a fault takes down (host_crash) answers nothing: its
	// endpoint is killed, and revived on the same address when the fault
	// is cleared.
	rlab.OnDeviceState(func(_ context.Context, name string, down bool) error {
		if down {
			return l.kill(name)
		}
		return l.revive(name)
	})
	if o.StateDir != "" {
		if err := l.writeInventory(o); err != nil {
			return nil, errors.Join(err, l.Close())
		}
	}
	if o.Notes != nil {
		inv := ""
		if len(l.invFile) > 0 {
			inv = "; inventory in " + strings.Join(l.invFile, " and ")
		}
		fmt.Fprintf(o.Notes, "lab: %d routers converged in %.2f s (real: namespaces and FRR)%s\n", len(routers), rlab.Converged.Seconds(), inv)
		l.noteToken(o)
		if o.Report {
			if u, err := rlab.Usage(); err != nil {
				fmt.Fprintf(o.Notes, "lab: memory: %v\n", err)
			} else {
				fmt.Fprintf(o.Notes, "lab: memory of the daemons: %s\n", u)
			}
		}
	}
	// The start faults, then the control endpoint (the same control file
	// and protocol as the simulated lab, so `netmcp lab fault` works
	// unchanged).
	for _, f := range o.Faults {
		a, err := fl.Inject(f)
		if err != nil {
			fl.ClearFaults()
			return nil, errors.Join(err, l.Close())
		}
		if o.Notes != nil {
			noteFault(o.Notes, a)
		}
	}
	if o.StateDir != "" {
		if err := l.serveControl(o.StateDir); err != nil {
			fl.ClearFaults()
			return nil, errors.Join(err, l.Close())
		}
		l.noteControl(o)
	}
	return l, nil
}

// serveReal starts the MCP server of one device of the real lab. Its
// configuration (FRR's and the interfaces') goes through the linux
// driver's configstore, with its state in the lab's own directory:
// crash-safe for the lab's life, and gone with the lab, whose next build
// starts from the topology. The server is built at once.
func (l *Lab) serveReal(ctx context.Context, name string, o Options) error {
	rl := l.Real()
	drv, err := linux.OpenConfig(ctx, rl.Namespace(name), device.Options{StateDir: filepath.Join(rl.Dir(), "config", name)})
	if err != nil {
		return fmt.Errorf("device %s: %w", name, err)
	}
	if err := l.serve(name, drv, o); err != nil {
		return err
	}
	_, _, err = l.byName[name].server()
	return err
}

// realHosts lists the real lab's devices that are not routers, in
// topology order.
func realHosts(rl *reallab.Lab) []string {
	var out []string
	routers := rl.Routers()
	for _, name := range rl.Devices() {
		if !slices.Contains(routers, name) {
			out = append(out, name)
		}
	}
	return out
}
