package sim

import (
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/vrp"
	"github.com/netmcp/netmcp/lab/sim/xr"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// Dialects the simulator speaks.
const (
	DialectVRP = vrp.Name
	DialectXR  = xr.Name
)

// dialects are the CLI dialects of the simulator's routers, by name; a
// device whose topology names none speaks DialectXR.
var dialects = map[string]dialect.Dialect{vrp.Name: vrp.Dialect, xr.Name: xr.Dialect}

// dialectOf returns the dialect named name.
func dialectOf(name string) (dialect.Dialect, error) {
	if d, ok := dialects[name]; ok {
		return d, nil
	}
	return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "CLI dialect %q has no configuration parser", name)
}

// devConfig is a device's configuration as the CLI parsers edit it: the
// topology device plus the hostname (which may differ from the lab name).
type devConfig struct {
	dev      topology.Device
	hostname string
}

// public is c as the dialects see it.
func (c devConfig) public() dialect.Config { return dialect.Config{Dev: c.dev, Hostname: c.hostname} }

// fromPublic is the configuration a dialect edited.
func fromPublic(c dialect.Config) devConfig { return devConfig{dev: c.Dev, hostname: c.Hostname} }

// iface returns the interface named name, creating it if create is set.
func (c *devConfig) iface(name string, create bool) *topology.Interface {
	return dialect.Interface(&c.dev, name, create)
}

// clone deep-copies the slices a parser edits.
func (c devConfig) clone() devConfig { return fromPublic(c.public().Clone()) }

// applyLines parses configuration lines of the dialect named dialectName
// into c (see dialect.Session).
func applyLines(c *devConfig, dialectName string, lines []string) error {
	d, err := dialectOf(dialectName)
	if err != nil {
		return err
	}
	pc := c.public()
	err = dialect.NewSession(&pc, d.Parser()).Apply(lines)
	*c = fromPublic(pc)
	return err
}
