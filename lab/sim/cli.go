package sim

import (
	"context"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/clipipe"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/netproto"
)

// Exec runs one operational command of the device's dialect. No command
// ever reaches a shell: each is parsed here and rendered from the model.
func (d *Driver) Exec(ctx context.Context, command string) (string, error) {
	if strings.ContainsAny(command, "\r\n;") {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "one command per call (%s)", d.dialect)
	}
	cmd, filter, err := clipipe.Split(command)
	if err != nil {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "%v (%s)", err, d.dialect)
	}
	words := strings.Fields(cmd)
	if len(words) == 0 {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "empty command (%s)", d.dialect)
	}
	c, args := dialect.Match(d.cli.Commands(), words)
	if c == nil {
		if d.isConfigCommand(cmd) {
			return "", netproto.Errorf(netproto.CodeConfigIncompatible,
				"%q is a configuration command of %s: use network.cli.configure", cmd, d.dialect)
		}
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unknown command %q for CLI dialect %s", cmd, d.dialect)
	}
	d.tel.addLoad(d.lab.opts.Now(), loadExec)
	out, err := c.Run(d.view(ctx), args)
	if err != nil {
		return "", err
	}
	return filter.Apply(out), nil
}

// isConfigCommand reports whether command parses as a configuration line.
func (d *Driver) isConfigCommand(command string) bool {
	switch strings.ToLower(strings.Fields(command)[0]) {
	case "configure", "conf", "system-view", "sys", "commit", "config":
		return true
	}
	scratch := d.config().clone()
	return applyLines(&scratch, d.dialect, []string{command}) == nil
}

// resolveHost turns an address or a lab name (r3, r3.lab.example) into an address.
func (d *Driver) resolveHost(s string, v6 bool) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a, true
	}
	name := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(s), "."), "."+labDomain)
	for _, dev := range d.lab.devicesNamed(name) {
		if a, ok := deviceAddress(dev, v6); ok {
			return a, true
		}
	}
	a, _ := resolveViaDNS(d.lab.net, d.name, "", d.config().dev.DNSServers, s, v6)
	return a, a.IsValid()
}

// view is what a command of the device's dialect reads now.
func (d *Driver) view(ctx context.Context) *dialect.View {
	return &dialect.View{Ctx: ctx, Name: d.name, Dialect: d.dialect, Config: d.config().public(),
		Now: d.lab.opts.Now(), Net: d.lab.net, Device: cliDevice{d}}
}

// cliDevice is what a dialect's commands read from the driver.
type cliDevice struct{ d *Driver }

var _ dialect.Device = cliDevice{}

// Started is when the device booted.
func (c cliDevice) Started() time.Time { return c.d.started }

// LastChange is when an interface last changed state.
func (c cliDevice) LastChange(ifn string) time.Time { return c.d.lastChangeOf(ifn) }

// LastCommit is when and by whom running last changed.
func (c cliDevice) LastCommit() (time.Time, string) { return c.d.lastChange() }

// StartupText is the startup configuration as the dialect prints it.
func (c cliDevice) StartupText() (string, error) {
	b, err := c.d.treeText(c.d.store.Startup())
	return string(b), err
}

// Log is the device's log buffer.
func (c cliDevice) Log() dialect.LogBuffer {
	n, over := c.d.log.stats()
	return dialect.LogBuffer{Entries: c.d.log.last(0), Count: n, Overwritten: over, Capacity: syslogCapacity}
}

// Slots are the device's slots.
func (c cliDevice) Slots() []string { return c.d.tel.slots }

// CPU is a slot's CPU figures.
func (c cliDevice) CPU(slot string) (device.CPUStats, error) { return c.d.tel.cpu(slot) }

// Memory is a slot's memory figures.
func (c cliDevice) Memory(slot string) (device.MemoryStats, error) { return c.d.tel.memory(slot) }

// ResolveHost turns an address or a lab name into an address.
func (c cliDevice) ResolveHost(host string, v6 bool) (netip.Addr, bool) {
	return c.d.resolveHost(host, v6)
}

// Probing adds the CPU load of a probe sent at t.
func (c cliDevice) Probing(t time.Time) { c.d.tel.addLoad(t, loadProbe) }

// ClearCounters resets counters and logs it.
func (c cliDevice) ClearCounters(ctx context.Context, ifname string) error {
	return c.d.ClearCounters(ctx, ifname)
}
