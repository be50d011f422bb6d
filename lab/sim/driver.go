package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// Limits advertised in the MCP-NET capability object.
const (
	maxBulkEdit     = 1000
	rollbackTimeout = 300
)

// Driver is one simulated router or switch of a Lab. It implements
// device.Driver, device.Configurer, device.FileStore, device.Telemetry and
// device.Diagnoser. All methods are safe for concurrent use.
type Driver struct {
	lab     *Lab
	name    string
	dialect string          // the name of cli
	cli     dialect.Dialect // the CLI the device speaks
	schema  *yang.Schema
	store   *configstore.Store
	tel     *telemetry
	log     *syslogRing
	ev      *eventBus

	applyMu  sync.Mutex           // one change of the model's configuration at a time
	mu       sync.Mutex           // guards cur and ifChange
	cur      devConfig            // configuration the model runs (from running)
	ifChange map[string]time.Time // last state change per interface
	started  time.Time

	closeOnce sync.Once
	closeErr  error
}

var (
	_ device.Driver     = (*Driver)(nil)
	_ device.Configurer = (*Driver)(nil)
	_ device.FileStore  = (*Driver)(nil)
	_ device.Telemetry  = (*Driver)(nil)
	_ device.Diagnoser  = (*Driver)(nil)
	_ device.Syncer     = (*Driver)(nil)
)

func newDriver(l *Lab, d topology.Device, dir string) (*Driver, error) {
	name := cmp.Or(d.Dialect, DialectXR)
	cli, ok := dialects[name]
	if !ok {
		return nil, fmt.Errorf("sim: device %s: unknown dialect %q (want %s or %s)", d.Name, name, DialectVRP, DialectXR)
	}
	drv := &Driver{lab: l, name: d.Name, dialect: name, cli: cli, schema: yang.DefaultSchema(),
		cur: devConfig{dev: d, hostname: d.Name}, ifChange: map[string]time.Time{}, started: l.opts.Now()}
	drv.ev = newEventBus()
	drv.log = newSyslogRing(syslogCapacity)
	drv.tel = newTelemetry(d, l.opts.Now)
	st, err := configstore.Open(DeviceToTree(d), configstore.Options{
		Dir: dir, Schema: drv.schema, MaxBulkEdit: maxBulkEdit, DefaultConfirmTimeout: rollbackTimeout,
		Now: l.opts.Now, Apply: drv.applyCommit, Reload: drv.applyRunning, Log: drv.storeLogged,
	})
	if err != nil {
		return nil, fmt.Errorf("sim: device %s: %w", d.Name, err)
	}
	drv.store = st
	return drv, nil
}

// runningDevice turns the store's running configuration into the
// device's topology, the configuration the model starts with, and makes it
// the device's current one.
func (d *Driver) runningDevice() (topology.Device, error) {
	running := d.store.Running()
	dev, err := TreeToDevice(running, d.cur.dev)
	if err != nil {
		return topology.Device{}, fmt.Errorf("sim: device %s: saved running configuration: %w", d.name, err)
	}
	d.mu.Lock()
	d.cur = devConfig{dev: dev, hostname: Hostname(running, d.name)}
	d.mu.Unlock()
	return dev, nil
}

// applyCommit is the store's Apply hook: applyRunning, after the lab's
// CommitDelay.
func (d *Driver) applyCommit(running map[string]any) error {
	if delay := d.lab.opts.CommitDelay; delay > 0 {
		time.Sleep(delay)
	}
	return d.applyRunning(running)
}

// applyRunning is the store's Reload hook (and, through applyCommit, its
// Apply hook): it turns the new running
// configuration into the device's topology and reconfigures the model.
func (d *Driver) applyRunning(running map[string]any) error {
	d.applyMu.Lock()
	defer d.applyMu.Unlock()
	d.mu.Lock()
	base := d.cur.dev
	d.mu.Unlock()
	dev, err := TreeToDevice(running, base)
	if err != nil {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", d.name, err)
	}
	if err := d.lab.applyDevice(dev); err != nil {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: the network model refuses the configuration: %v", d.name, err)
	}
	d.mu.Lock()
	d.cur = devConfig{dev: dev, hostname: Hostname(running, d.name)}
	d.mu.Unlock()
	return nil
}

// config returns the configuration the model currently runs.
func (d *Driver) config() devConfig {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cur
}

// start launches the periodic telemetry.
func (d *Driver) start() {
	d.ev.start()
	go d.telemetryLoop(d.lab.opts.TelemetryInterval)
	d.bootLog()
}

// Name returns the device's name in the lab.
func (d *Driver) Name() string { return d.name }

// Info describes the device for the MCP-NET capability object.
func (d *Driver) Info() device.Info {
	c := d.config()
	return device.Info{
		Name: d.name, Vendor: c.dev.Vendor, Platform: c.dev.Platform, SoftwareVersion: c.dev.SoftwareVersion,
		CLIDialect:          d.dialect,
		YangModules:         d.schema.Modules(),
		Datastores:          []device.Datastore{device.Running, device.Candidate, device.Operational},
		NotificationStreams: []string{netproto.StreamSyslog, netproto.StreamNetconfStream},
		MaxBulkEdit:         maxBulkEdit,
		SupportsRollback:    true,
		RollbackTimeout:     rollbackTimeout,
	}
}

// Get returns the subtree at path of datastore ds.
func (d *Driver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	switch ds {
	case device.Running, "":
		tree = d.store.RunningView() // shared, read only (device.Driver.Get)
	case device.Candidate:
		owner, _ := d.store.LockHolder()
		tree = d.store.CandidateView(owner)
	case device.Startup:
		tree = d.store.Startup()
	case device.Operational:
		top := "" // the whole tree
		if len(p) > 0 && p[0].Module != "" {
			top = p[0].Module + ":" + p[0].Name
		}
		tree = d.operationalOf(top)
	default:
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "unknown datastore %q (have running, candidate, startup, operational)", ds)
	}
	if len(p) > 0 {
		if cerr := d.schema.Check(p); cerr != nil {
			// State nodes of the operational datastore are modelled here
			// even where the configuration schema stops.
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

// Sync implements device.Syncer: the device's configuration store is
// shared by the processes serving its state directory, but the network
// model runs in each of them; a commit made through another process is
// taken into this process's model (Options.Reload) before a request
// reads it.
func (d *Driver) Sync() error { return d.store.Sync() }

// Close shuts the device down; a Lab's devices are closed by Lab.Close.
func (d *Driver) Close() error { return d.shutdown() }

func (d *Driver) shutdown() error {
	d.closeOnce.Do(func() {
		d.ev.stop()
		d.tel.stop()
		d.closeErr = d.store.Close()
	})
	return d.closeErr
}

// Edit applies YANG edits to the candidate.
func (d *Driver) Edit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	return d.store.Edit(ctx, owner, edits)
}

// Diff compares the candidate with running.
func (d *Driver) Diff(ctx context.Context, owner device.Owner) (device.Diff, error) {
	return d.store.Diff(ctx, owner)
}

// PlanRollback implements device.RollbackPlanner.
func (d *Driver) PlanRollback(ctx context.Context, id string) (device.Diff, error) {
	return d.store.PlanRollback(ctx, id)
}

// CommitDiff implements device.CommitDiffer.
func (d *Driver) CommitDiff(ctx context.Context, id string) (device.Diff, error) {
	return d.store.CommitDiff(ctx, id)
}

// Validate checks the candidate.
func (d *Driver) Validate(ctx context.Context, owner device.Owner) error {
	return d.store.Validate(ctx, owner)
}

// Commit copies the candidate to running and reconfigures the model.
func (d *Driver) Commit(ctx context.Context, owner device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	r, err := d.store.Commit(ctx, owner, opts)
	if err == nil && !opts.DryRun {
		d.tel.addLoad(d.lab.opts.Now(), loadCommit)
	}
	return r, err
}

// Confirm makes a pending confirmed commit permanent.
func (d *Driver) Confirm(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	return d.store.Confirm(ctx, owner)
}

// CancelCommit rolls a pending confirmed commit back.
func (d *Driver) CancelCommit(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	return d.store.CancelCommit(ctx, owner)
}

// Discard drops the candidate.
func (d *Driver) Discard(ctx context.Context, owner device.Owner) error {
	return d.store.Discard(ctx, owner)
}

// Rollback makes running the configuration of an earlier commit.
func (d *Driver) Rollback(ctx context.Context, owner device.Owner, id string) (device.CommitResult, error) {
	return d.store.Rollback(ctx, owner, id)
}

// History lists the commits, newest first.
func (d *Driver) History(ctx context.Context) ([]device.CommitInfo, error) {
	return d.store.History(ctx)
}

// Release drops the owner's locks.
func (d *Driver) Release(owner device.Owner) { d.store.Release(owner) }

// lastChange returns when and by whom running last changed.
func (d *Driver) lastChange() (time.Time, string) {
	h, err := d.store.History(context.Background())
	if err != nil || len(h) == 0 {
		return time.Time{}, ""
	}
	return h[0].Time, h[0].User
}

// lastChangeOf returns when an interface last changed state.
func (d *Driver) lastChangeOf(ifn string) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t, ok := d.ifChange[ifn]; ok {
		return t
	}
	return d.started
}
