package snmp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Scheme is the URL scheme of the driver.
const Scheme = "snmp"

// Dialect is the CLI dialect the driver advertises: Exec takes the
// driver's own read-only commands (see ExecCommands).
const Dialect = "snmp"

func init() { device.Register(Scheme, open) }

// Driver is a device read through its SNMP agent. It implements
// device.Driver and device.Telemetry, not device.Configurer: SNMP SET is
// not used, so the MCP server reports the configuration tools as
// unavailable. All methods are safe for concurrent use; requests to the
// agent are serialised on one session.
type Driver struct {
	cfg    *Config
	c      *client
	info   device.Info
	schema *yang.Schema
	tel    *poller

	closeOnce sync.Once
	closeErr  error
}

var (
	_ device.Driver    = (*Driver)(nil)
	_ device.Telemetry = (*Driver)(nil)
)

// open is the registry's OpenFunc.
func open(ctx context.Context, u *url.URL, _ device.Options) (device.Driver, error) {
	cfg, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Open connects to the agent and reads its system group, so that wrong
// credentials or an absent agent are reported now, with the hint, rather
// than at the first call.
func Open(ctx context.Context, cfg *Config) (*Driver, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	sys, err := fetchSystem(ctx, c)
	if err != nil {
		c.close()
		return nil, err
	}
	name := sys.Name
	if name == "" {
		name = cfg.Host
	}
	d := &Driver{cfg: cfg, c: c, schema: yang.DefaultSchema()}
	d.info = device.Info{
		Name:                name,
		Vendor:              vendorOf(sys.ObjectID),
		Platform:            firstLine(sys.Descr),
		CLIDialect:          Dialect,
		YangModules:         append([]string(nil), yangModules...),
		Datastores:          []device.Datastore{device.Operational},
		NotificationStreams: []string{},
	}
	d.tel = newPoller(d)
	return d, nil
}

// vendorOf names the vendor of a sysObjectID's enterprise number, for the
// few common ones; "" otherwise.
func vendorOf(oid string) string {
	ent := map[string]string{"9": "Cisco", "2011": "Huawei", "2636": "Juniper", "8072": "Net-SNMP",
		"6527": "Nokia", "30065": "Arista", "25506": "H3C", "14988": "MikroTik"}
	rest, ok := strings.CutPrefix(oid, ".1.3.6.1.4.1.")
	if !ok {
		return ""
	}
	n, _, _ := strings.Cut(rest, ".")
	return ent[n]
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// Config returns the device's configuration (without secrets).
func (d *Driver) Config() *Config { return d.cfg }

// Info describes the device: its sysName, the vendor of its sysObjectID,
// its sysDescr as platform, and the operational datastore only.
func (d *Driver) Info() device.Info {
	i := d.info
	i.YangModules = append([]string(nil), i.YangModules...)
	i.Datastores = append([]device.Datastore(nil), i.Datastores...)
	return i
}

// Get polls the agent for what path needs and returns the subtree at path
// of the operational datastore ("" means operational: SNMP reads state
// and has no configuration datastores).
func (d *Driver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	if ds != "" && ds != device.Operational {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible,
			"the snmp driver serves only the operational datastore, not %q: SNMP reads state and has no configuration datastores", ds).WithPath(path)
	}
	member := ""
	if len(p) > 0 {
		member = p[0].Module + ":" + p[0].Name
		if p[0].Module == "" {
			member = p[0].Name
		}
	}
	want, ok := partsFor(member)
	if !ok {
		if cerr := d.schema.Check(p[:1]); cerr != nil {
			return nil, cerr
		}
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible,
			"%s is not served by the snmp driver (it serves %s)", member, members()).WithPath(path)
	}
	snap, err := collect(ctx, d.c, want)
	if err != nil {
		return nil, err
	}
	tree := buildTree(snap, want)
	v, err := yang.Get(tree, p)
	if errors.Is(err, yang.ErrNotFound) {
		if cerr := d.schema.Check(p); cerr != nil && !stateNode(p) {
			return nil, cerr
		}
		return nil, fmt.Errorf("%w: %s in %s", device.ErrNotFound, p.String(), device.Operational)
	}
	return v, err
}

// stateNode reports whether a path reaches into nodes the configuration
// schema does not model but the operational trees do (state containers,
// ribs, the ietf-interfaces statistics).
func stateNode(p yang.Path) bool {
	for _, e := range p {
		switch e.Name {
		case "state", "ribs", "statistics", "memory", "cpus", "counters":
			return true
		}
	}
	return false
}

// Close closes the session and stops telemetry. Idempotent.
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		d.tel.stop()
		d.closeErr = d.c.close()
	})
	return d.closeErr
}
