package client

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
)

// Fleet is a set of devices, each with its supervised MCP session.
type Fleet struct {
	opts    Options
	connSem chan struct{} // bounds connection attempts in progress

	// devs and byName change with Update: read them under devMu (or
	// through devices and Device); write them under mu and devMu.
	devMu  sync.RWMutex
	devs   []*Device
	byName map[string]*Device

	toolsMu sync.Mutex
	tools   map[[32]byte][]*mcp.Tool // tool lists seen, shared by the devices that list the same

	mu      sync.Mutex
	started bool
	closed  bool
	ctx     context.Context // the supervisors' parent, cancelled by Close
	cancel  context.CancelFunc
	// view: the fleet is a View of another, whose supervisors own the
	// sessions: Start does nothing and Close ends nothing.
	view bool
}

// New returns the fleet of the inventory's devices, not yet connected
// (see Connect). The inventory is validated.
func New(inv *inventory.Inventory, opts Options) (*Fleet, error) {
	if inv == nil {
		return nil, errors.New("client: nil inventory")
	}
	if err := inv.Validate(); err != nil {
		return nil, err
	}
	f := &Fleet{opts: opts.withDefaults(), byName: map[string]*Device{}, tools: map[[32]byte][]*mcp.Tool{}}
	f.ctx, f.cancel = context.WithCancel(context.Background())
	f.connSem = make(chan struct{}, f.opts.Concurrency)
	for _, dev := range inv.Devices {
		d := newDevice(f, dev)
		f.devs = append(f.devs, d)
		f.byName[dev.Name] = d
	}
	return f, nil
}

// Start starts every device's supervisor, which connects (in parallel, at
// most Options.Concurrency attempts at once) and keeps reconnecting until
// Close. A device released (Fleet.Release) is left alone: another replica
// holds its session. It returns at once; Connect also waits for the first
// attempts.
func (f *Fleet) Start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.started || f.closed || f.view {
		return
	}
	f.started = true
	for _, d := range f.devices() {
		d.mu.Lock()
		released := d.released
		d.mu.Unlock()
		if !released {
			f.startLocked(d)
		}
	}
}

// startLocked starts d's supervisor unless it runs. f.mu is held.
func (f *Fleet) startLocked(d *Device) {
	if d.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	d.stop, d.stopped = cancel, done
	go d.run(ctx, done)
}

// Hold starts the supervisor of one device (Start starts every device's):
// a fleet shared by controller replicas holds a session only to the
// devices this replica owns. A device already held is left as it is.
func (f *Fleet) Hold(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.byName[name]
	switch {
	case d == nil:
		return fmt.Errorf("client: no device %q in the fleet", name)
	case f.view:
		return errors.New("client: Hold on a view of a fleet")
	case f.closed:
		return ErrClosed
	}
	d.mu.Lock()
	d.released = false
	d.mu.Unlock()
	if d.stop == nil {
		d.setState(StateConnecting, nil)
	}
	f.startLocked(d)
	return nil
}

// Release stops one device's supervisor and closes its session, and waits
// for them: another replica owns the device now. Until Hold, the device's
// calls go to Options.Remote, or fail with ErrReleased. Releasing a device
// that was never held marks it released.
func (f *Fleet) Release(name string) error {
	f.mu.Lock()
	d := f.byName[name]
	switch {
	case d == nil:
		f.mu.Unlock()
		return fmt.Errorf("client: no device %q in the fleet", name)
	case f.view:
		f.mu.Unlock()
		return errors.New("client: Release on a view of a fleet")
	}
	stop, stopped := d.stop, d.stopped
	d.stop, d.stopped = nil, nil
	d.mu.Lock()
	d.released = true
	d.mu.Unlock()
	f.mu.Unlock()
	if stop != nil {
		stop()
		<-stopped
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed && d.stop == nil { // not held again meanwhile
		d.setState(StateReleased, ErrReleased)
	}
	return nil
}

// Connect starts the supervisors (Start) and waits until every device has
// made its first connection attempt, or ctx is done (the released devices
// are not waited for). It returns the
// errors of the devices that are not connected, joined (each a
// *DeviceError); those devices keep being retried in the background.
func (f *Fleet) Connect(ctx context.Context) error {
	f.Start()
	var errs []error
	for _, d := range f.devices() {
		if st, _ := d.State(); st == StateReleased {
			continue
		}
		select {
		case <-d.first:
		case <-ctx.Done():
		}
		st, err := d.State()
		switch {
		case st == StateConnected:
		case err != nil:
			errs = append(errs, &DeviceError{Device: d.Name(), Op: "connect", Err: err})
		default:
			errs = append(errs, &DeviceError{Device: d.Name(), Op: "connect", Err: fmt.Errorf("%w: %s", ErrNotConnected, st)})
		}
	}
	return errors.Join(errs...)
}

// Close ends every session and supervisor and waits for them.
func (f *Fleet) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	var running []chan struct{}
	if !f.view {
		f.cancel()
		for _, d := range f.devices() {
			if d.stopped != nil {
				running = append(running, d.stopped)
			}
		}
	}
	f.mu.Unlock()
	for _, done := range running {
		<-done
	}
	return nil
}

func (f *Fleet) acquireConnect(ctx context.Context) error {
	select {
	case f.connSem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *Fleet) releaseConnect() { <-f.connSem }

// View returns a fleet of the devices of f that keep accepts, in the same
// order, sharing their sessions with f: what a caller may reach of a
// larger fleet (the controller's ask for a host limited to some devices).
// The view's Start does nothing and its Close ends no session: f's own
// supervisors keep them; its Connect waits for them as f's does.
func (f *Fleet) View(keep func(*Device) bool) *Fleet {
	v := &Fleet{opts: f.opts, byName: map[string]*Device{}, connSem: f.connSem, tools: map[[32]byte][]*mcp.Tool{}, view: true}
	for _, d := range f.devices() {
		if keep(d) {
			v.devs = append(v.devs, d)
			v.byName[d.Name()] = d
		}
	}
	return v
}

// Devices returns the devices in inventory order.
func (f *Fleet) Devices() []*Device { return f.devices() }

// devices returns a copy of the device list.
func (f *Fleet) devices() []*Device {
	f.devMu.RLock()
	defer f.devMu.RUnlock()
	return append([]*Device(nil), f.devs...)
}

// Device returns the device called name, nil when there is none.
func (f *Fleet) Device(name string) *Device {
	f.devMu.RLock()
	defer f.devMu.RUnlock()
	return f.byName[name]
}

// Select returns the devices, in inventory order, whose inventory entry
// keep accepts.
func (f *Fleet) Select(keep func(inventory.Device) bool) []*Device {
	var out []*Device
	for _, d := range f.devices() {
		if keep(d.inv) {
			out = append(out, d)
		}
	}
	return out
}

// Result is the outcome of a fan-out on one device.
type Result struct {
	// Device is the device.
	Device *Device
	// Value is the tool result of CallAll (nil for Each, and when the call
	// failed before a result; set together with a *ToolError).
	Value *mcp.CallToolResult
	// Err is nil on success; otherwise a *DeviceError, a *ToolError or
	// the function's own error, always naming the device.
	Err error
	// Elapsed is the time spent on the device (from the start of its work,
	// not counting the wait for a concurrency slot).
	Elapsed time.Duration
}

// Each runs fn on every device of devs (every device of the fleet when
// devs is nil), at most Options.Concurrency at once, each under a context
// with Options.CallTimeout. It returns one Result per device, in the order
// of devs, once every device is done or timed out: a function that does
// not return in time is abandoned (its context is cancelled) and reported
// as timed out, so no device can hang the run.
func (f *Fleet) Each(ctx context.Context, devs []*Device, fn func(ctx context.Context, d *Device) error) []Result {
	return f.each(ctx, devs, func(ctx context.Context, d *Device, r *Result) error { return fn(ctx, d) })
}

// CallAll calls the tool with args on every device of devs (every device
// when nil), as Each does, and returns the results in the order of devs.
func (f *Fleet) CallAll(ctx context.Context, devs []*Device, tool string, args any) []Result {
	return f.each(ctx, devs, func(ctx context.Context, d *Device, r *Result) error {
		res, err := d.CallTool(ctx, tool, args)
		r.Value = res
		return err
	})
}

func (f *Fleet) each(ctx context.Context, devs []*Device, fn func(context.Context, *Device, *Result) error) []Result {
	if devs == nil {
		devs = f.devices()
	}
	results := make([]Result, len(devs))
	sem := make(chan struct{}, f.opts.Concurrency)
	timeout := f.opts.CallTimeout
	var wg sync.WaitGroup
	for i, d := range devs {
		results[i].Device = d
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i].Err = &DeviceError{Device: d.Name(), Op: "fan-out", Err: fmt.Errorf("not started: %w", ctx.Err())}
				return
			}
			defer func() { <-sem }()
			results[i] = runOne(ctx, d, timeout, fn)
		}()
	}
	wg.Wait()
	return results
}

// runOne runs fn on d with a timeout; a function still running at the
// deadline is left behind (its context cancelled) and reported.
func runOne(ctx context.Context, d *Device, timeout time.Duration, fn func(context.Context, *Device, *Result) error) Result {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	type outcome struct {
		r   Result
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.err = fmt.Errorf("panic: %v", p)
			}
			ch <- o
		}()
		o.err = fn(dctx, d, &o.r)
	}()
	var o outcome
	select {
	case o = <-ch:
	case <-dctx.Done():
		select {
		case o = <-ch: // it returned just in time
		case <-time.After(100 * time.Millisecond): // grace for a function that honours its context
			o.err = dctx.Err()
		}
	}
	r := Result{Device: d, Value: o.r.Value, Elapsed: time.Since(start)}
	if o.err != nil {
		var de *DeviceError
		var te *ToolError
		switch {
		case errors.As(o.err, &te):
			r.Err = &DeviceError{Device: d.Name(), Op: "tools/call " + te.Tool, Err: o.err}
		case errors.As(o.err, &de) && de.Device == d.Name():
			r.Err = o.err
		default:
			r.Err = &DeviceError{Device: d.Name(), Op: "fan-out", Err: o.err}
		}
		if dctx.Err() != nil && ctx.Err() == nil && errors.Is(o.err, context.DeadlineExceeded) {
			r.Err = &DeviceError{Device: d.Name(), Op: "fan-out", Err: fmt.Errorf("timed out after %v: %w", timeout, o.err)}
		}
	}
	return r
}

// Errors joins the errors of results (nil when every device succeeded).
func Errors(results []Result) error {
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

// internTools returns the fleet's copy of a tool list equal to tools, so
// that a thousand devices of the same kind hold their (large) schemas
// once; the SDK's decoded list is then garbage. Callers must not modify
// the tools.
func (f *Fleet) internTools(tools []*mcp.Tool) []*mcp.Tool {
	b, err := json.Marshal(tools)
	if err != nil {
		return tools
	}
	key := sha256.Sum256(b)
	f.toolsMu.Lock()
	defer f.toolsMu.Unlock()
	if t, ok := f.tools[key]; ok {
		return t
	}
	f.tools[key] = tools
	return tools
}
