package gnmi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

func init() { device.Register(Scheme, open) }

func open(ctx context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
	cfg, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	cfg.StateDir = opts.StateDir
	return Open(ctx, cfg, nil)
}

// Capabilities is what the target's Capabilities RPC reported.
type Capabilities struct {
	// Version is the target's gNMI version.
	Version string
	// Models are the names of its YANG modules.
	Models []string
	// Encodings are the encodings it supports ("JSON_IETF", "JSON", ...).
	Encodings []string
	// CommitExtension: confirmed commits use the target's Commit extension.
	CommitExtension bool
}

// Driver is a device reached over gNMI (see the package documentation).
type Driver struct {
	cfg    *Config
	log    *slog.Logger
	conn   *grpc.ClientConn
	client gpb.GNMIClient
	caps   Capabilities
	enc    gpb.Encoding // JSON_IETF, or JSON where the target lacks it

	topMu sync.Mutex
	tops  map[string]string // bare top-level node name -> module, as the target wrote them

	// Configuration (config.go).
	store *configstore.Store
	cfgMu sync.Mutex // one configuration operation at a time
	cc    commitState

	tel *telemetry // telemetry.go

	closeOnce sync.Once
	closeErr  error
}

var (
	_ device.Driver     = (*Driver)(nil)
	_ device.Configurer = (*Driver)(nil)
	_ device.Telemetry  = (*Driver)(nil)
	_ device.Watcher    = (*Driver)(nil)
)

// Open connects to the target described by cfg: it reads its
// capabilities, finds whether it has the Commit extension (unless
// cfg.CommitConfirmed says), and reads its configuration into the
// driver's candidate store. log may be nil (slog.Default()).
func Open(ctx context.Context, cfg *Config, log *slog.Logger) (*Driver, error) {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Insecure {
		warn := "gnmi: TLS is OFF (insecure=1): anyone on the path can read and change what is sent"
		if cfg.password != "" {
			warn += ", including the password"
		}
		log.Warn(warn, "device", cfg.Address())
	}
	conn, err := dial(cfg)
	if err != nil {
		return nil, err
	}
	d := &Driver{cfg: cfg, log: log, conn: conn, client: gpb.NewGNMIClient(conn), tops: map[string]string{}}
	d.tel = newTelemetry(d)
	if err := d.start(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// start reads the capabilities and the configuration.
func (d *Driver) start(ctx context.Context) error {
	cctx, cancel := d.callCtx(ctx)
	resp, err := d.client.Capabilities(cctx, &gpb.CapabilityRequest{})
	cancel()
	if err != nil {
		if status.Code(err) == codes.Unavailable && ctx.Err() == nil {
			if terr := diagnoseTLS(ctx, d.cfg); terr != nil {
				return netproto.Errorf(netproto.CodeAccessDenied, "gnmi %s: Capabilities: TLS with the target failed: %v (check ?ca-file=, ?server-name= and the client certificate)", d.cfg.Address(), terr)
			}
		}
		return d.fail(ctx, "Capabilities", err)
	}
	d.caps.Version = resp.GetGNMIVersion()
	for _, m := range resp.GetSupportedModels() {
		if m.GetName() != "" {
			d.caps.Models = append(d.caps.Models, m.GetName())
		}
	}
	slices.Sort(d.caps.Models)
	d.caps.Models = slices.Compact(d.caps.Models)
	d.enc = gpb.Encoding_JSON_IETF
	hasIETF, hasJSON := false, false
	for _, e := range resp.GetSupportedEncodings() {
		d.caps.Encodings = append(d.caps.Encodings, e.String())
		hasIETF = hasIETF || e == gpb.Encoding_JSON_IETF
		hasJSON = hasJSON || e == gpb.Encoding_JSON
	}
	switch {
	case hasIETF:
	case hasJSON:
		d.enc = gpb.Encoding_JSON
	default:
		return netproto.Errorf(netproto.CodeConfigIncompatible,
			"gnmi %s: the target supports neither JSON_IETF nor JSON (it lists %v): netmcp reads RFC 7951 trees", d.cfg.Address(), d.caps.Encodings)
	}
	switch d.cfg.CommitConfirmed {
	case CommitExtension:
		d.caps.CommitExtension = true
	case CommitAuto:
		d.caps.CommitExtension = d.probeCommit(ctx)
	}
	return d.openStore(ctx)
}

// Capabilities returns what the target reported when the driver opened.
func (d *Driver) Capabilities() Capabilities {
	c := d.caps
	c.Models = slices.Clone(c.Models)
	c.Encodings = slices.Clone(c.Encodings)
	return c
}

// Info describes the device: the target's YANG modules; its gNMI version
// and encodings in Platform (the capability object has no other place
// for them); datastores running, candidate (netmcp's) and operational.
func (d *Driver) Info() device.Info {
	platform := "gNMI"
	if d.caps.Version != "" {
		platform += " " + d.caps.Version
	}
	if len(d.caps.Encodings) > 0 {
		platform += " (" + strings.Join(d.caps.Encodings, ", ") + ")"
	}
	_, rollback := d.storeLimits()
	return device.Info{
		Name:                d.cfg.Name,
		Platform:            platform,
		CLIDialect:          "gnmi",
		YangModules:         append([]string{}, d.caps.Models...),
		Datastores:          []device.Datastore{device.Running, device.Candidate, device.Operational},
		NotificationStreams: []string{netproto.StreamSyslog},
		MaxBulkEdit:         maxBulkEdit,
		SupportsRollback:    true,
		RollbackTimeout:     rollback,
	}
}

// Get returns the subtree at path: running is the target's configuration
// (a gNMI Get of type CONFIG), operational (and "") all its data (type
// ALL), candidate netmcp's candidate. A path the target does not model
// gives -32084 with its words; one without data device.ErrNotFound.
func (d *Driver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var typ gpb.GetRequest_DataType
	switch ds {
	case device.Operational, "":
		typ = gpb.GetRequest_ALL
	case device.Running:
		typ = gpb.GetRequest_CONFIG
	case device.Candidate:
		return d.candidateGet(p)
	default:
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi: datastore %q is not served (have running, candidate, operational)", ds)
	}
	return d.get(ctx, typ, p)
}

// get reads p from the target.
func (d *Driver) get(ctx context.Context, typ gpb.GetRequest_DataType, p yang.Path) (any, error) {
	req := &gpb.GetRequest{Path: []*gpb.Path{wire.ToGNMI(p, wire.OriginStyle)}, Type: typ, Encoding: d.enc}
	cctx, cancel := d.callCtx(ctx)
	defer cancel()
	resp, err := d.client.Get(cctx, req)
	if err != nil {
		return nil, d.fail(ctx, "Get "+p.String(), err)
	}
	return d.valueAt(p, resp.GetNotification())
}

// valueAt assembles the notifications of a reply into a tree and returns
// the value at p. The usual reply, one update at p itself, is returned
// as decoded.
func (d *Driver) valueAt(p yang.Path, ns []*gpb.Notification) (any, error) {
	resolve := d.resolver(p)
	if len(ns) == 1 && len(ns[0].GetUpdate()) == 1 && len(ns[0].GetDelete()) == 0 {
		u := ns[0].GetUpdate()[0]
		yp, _, err := wire.FromGNMI(wire.Join(ns[0].GetPrefix(), u.GetPath()), resolve)
		if err == nil && yp.String() == p.String() {
			v, err := wire.Decode(u.GetVal())
			if err != nil {
				return nil, err
			}
			if len(p) == 0 {
				return d.qualifyRoot(u.GetPath().GetOrigin(), v), nil
			}
			return wire.Unqualify(v, wire.Module(p)), nil
		}
	}
	tree := map[string]any{}
	for _, n := range ns {
		for _, u := range n.GetUpdate() {
			full := wire.Join(n.GetPrefix(), u.GetPath())
			yp, _, err := wire.FromGNMI(full, resolve)
			if err != nil {
				return nil, err
			}
			v, err := wire.Decode(u.GetVal())
			if err != nil {
				return nil, err
			}
			if len(yp) == 0 {
				v = d.qualifyRoot(full.GetOrigin(), v)
			} else {
				v = wire.Unqualify(v, wire.Module(yp))
			}
			if tree, err = yang.Apply(tree, yang.OpMerge, yp, v, nil); err != nil {
				return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi %s: the reply's update at %s does not fit a tree: %v", d.cfg.Address(), yp, err)
			}
		}
	}
	v, err := yang.Get(tree, p)
	if errors.Is(err, yang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", device.ErrNotFound, p)
	}
	return v, err
}

// qualifyRoot writes the members of a root value with their modules
// (some targets answer a root Get of an origin with bare names), and
// learns the modules of the qualified ones.
func (d *Driver) qualifyRoot(origin string, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	d.topMu.Lock()
	defer d.topMu.Unlock()
	var out map[string]any
	for k, x := range m {
		mod, local, ok := strings.Cut(k, ":")
		if ok {
			d.tops[local] = mod
			continue
		}
		if out == nil {
			out = make(map[string]any, len(m))
			for k2, x2 := range m {
				if strings.Contains(k2, ":") {
					out[k2] = x2
				}
			}
		}
		if mod, ok := d.resolveLocked(origin, k); ok {
			out[mod+":"+k] = x
		} else {
			out[k] = x
		}
	}
	if out == nil {
		return v
	}
	return out
}

// resolver names the module of a bare top-level name in a reply: the
// module of the request's own top-level node, one the target wrote with
// its module before, or the OpenConfig module of that name.
func (d *Driver) resolver(p yang.Path) wire.Resolver {
	return func(origin, name string) (string, bool) {
		if len(p) > 0 && p[0].Name == name && (origin == "" || origin == wire.OriginOpenConfig || origin == p[0].Module) {
			return p[0].Module, true
		}
		d.topMu.Lock()
		defer d.topMu.Unlock()
		return d.resolveLocked(origin, name)
	}
}

// wellKnown are OpenConfig top-level nodes whose module is not
// "openconfig-" + their name.
var wellKnown = map[string]string{
	"network-instances": "openconfig-network-instance", "vlans": "openconfig-vlan",
	"components": "openconfig-platform", "routing-policy": "openconfig-routing-policy",
	"qos": "openconfig-qos", "lacp": "openconfig-lacp", "keychains": "openconfig-keychain",
	"sampling": "openconfig-sampling", "defined-sets": "openconfig-defined-sets",
}

func (d *Driver) resolveLocked(origin, name string) (string, bool) {
	if m, ok := d.tops[name]; ok {
		return m, true
	}
	if origin != "" && origin != wire.OriginOpenConfig {
		return origin, true
	}
	if m, ok := wellKnown[name]; ok {
		return m, true
	}
	for _, m := range []string{"openconfig-" + name, "openconfig-" + strings.TrimSuffix(name, "s")} {
		if slices.Contains(d.caps.Models, m) {
			return m, true
		}
	}
	return "", false
}

// Exec refuses every command: gNMI has no CLI.
func (d *Driver) Exec(ctx context.Context, command string) (string, error) {
	return "", netproto.Errorf(netproto.CodeConfigIncompatible, "gnmi: %s serves no CLI (command %q): read its YANG data with network.yang.get", d.cfg.Name, command)
}

// Close stops the telemetry stream, closes the candidate store and the
// connection. A pending confirmed commit is left to the target's timer
// (and to the store's, when the driver opens again on its state
// directory).
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		d.tel.stop()
		if d.store != nil {
			d.closeErr = d.store.Close()
		}
		if err := d.conn.Close(); err != nil && d.closeErr == nil {
			d.closeErr = err
		}
	})
	return d.closeErr
}
