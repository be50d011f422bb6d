package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/netproto"
)

// State is the connection state of a device.
type State int

// States of a device's session.
const (
	// StateConnecting: a connection attempt is in progress.
	StateConnecting State = iota
	// StateConnected: a session is established and usable.
	StateConnected
	// StateDown: the last attempt failed or the session was lost; the
	// supervisor waits for its backoff before the next attempt.
	StateDown
	// StateClosed: the fleet was closed; the device is not used any more.
	StateClosed
	// StateReleased: the fleet does not hold the device (Fleet.Release):
	// another controller replica owns its session.
	StateReleased
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateDown:
		return "down"
	case StateClosed:
		return "closed"
	case StateReleased:
		return "released"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// ErrNotConnected is wrapped by the error of a call made while the
// device has no session (it is down, or did not connect in time).
var ErrNotConnected = errors.New("not connected")

// ErrClosed is wrapped by the error of a call made after Fleet.Close.
var ErrClosed = errors.New("fleet closed")

// ErrReleased is wrapped by the error of a call on a device the fleet
// released (Fleet.Release) when no Options.Remote takes it.
var ErrReleased = errors.New("device released: another replica holds its session")

// DeviceError is the error of an operation on one device.
type DeviceError struct {
	// Device is the device's inventory name.
	Device string
	// Op is the operation: "connect", "tools/call network.yang.get", ...
	Op string
	// Err is the cause.
	Err error
}

// Error implements the error interface.
func (e *DeviceError) Error() string { return e.Device + ": " + e.Op + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *DeviceError) Unwrap() error { return e.Err }

// ToolError is the error of a tool call whose result has isError set: the
// device ran the call and reports a failure (the text of the result).
type ToolError struct {
	// Tool is the tool's name.
	Tool string
	// Text is the result's text content.
	Text string
}

// Error implements the error interface.
func (e *ToolError) Error() string { return "tool " + e.Tool + " failed: " + e.Text }

// Device is one device of a fleet and its supervised MCP session.
// Its methods are safe for concurrent use.
type Device struct {
	inv   inventory.Device
	opts  *Options
	log   *slog.Logger
	mcp   *mcp.Client
	dial  *dialer
	fleet *Fleet

	kick      chan struct{} // cuts a backoff short (a call is waiting)
	first     chan struct{} // closed when the first attempt ended
	firstOnce sync.Once

	// The running supervisor, guarded by fleet.mu: stop cancels it,
	// stopped is closed when it ended.
	stop    context.CancelFunc
	stopped chan struct{}

	subMu sync.Mutex // serialises Subscribe/Unsubscribe with the replay after a reconnect

	mu         sync.Mutex
	state      State
	cs         *mcp.ClientSession
	err        error         // the cause of the last failure
	failures   int           // consecutive failed attempts
	sessions   int           // sessions established so far
	attemptEnd time.Time     // end of the last attempt
	change     chan struct{} // closed and replaced at every state change
	init       *mcp.InitializeResult
	rawInit    json.RawMessage // the initialize result as received
	network    *netproto.NetworkCapability
	tools      []*mcp.Tool
	subs       map[string]bool
	subErrs    map[string]error
	released   bool      // Fleet.Release: calls go to Options.Remote
	described  time.Time // when Fleet.SetDescription last described the released device
}

func newDevice(f *Fleet, inv inventory.Device) *Device {
	d := &Device{inv: inv, opts: &f.opts, fleet: f, log: f.opts.Logger.With("device", inv.Name),
		kick: make(chan struct{}, 1), first: make(chan struct{}),
		change: make(chan struct{}), subs: map[string]bool{}, subErrs: map[string]error{}}
	d.dial = &dialer{inv: inv, opts: &f.opts, onInit: d.sniffed}
	o := f.opts
	copts := &mcp.ClientOptions{
		Logger:       d.log,
		Capabilities: &mcp.ClientCapabilities{}, // no roots
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if o.OnResourceUpdated != nil {
				o.OnResourceUpdated(d, req.Params)
			}
		},
		ToolListChangedHandler: func(_ context.Context, req *mcp.ToolListChangedRequest) {
			if req.Session != nil {
				go d.refreshTools(req.Session)
			}
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if o.OnProgress != nil {
				o.OnProgress(d, req.Params)
			}
		},
		//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if o.OnLog != nil {
				o.OnLog(d, req.Params)
			}
		},
	}
	if o.Elicit != nil {
		copts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return o.Elicit(ctx, d, req.Params)
		}
	}
	if o.Sample != nil {
		//lint:ignore SA1019 MCP sampling, deprecated since 2026-07-28, brings the devices' requests to the controller's model
		copts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return o.Sample(ctx, d, req.Params)
		}
	}
	d.mcp = mcp.NewClient(&mcp.Implementation{Name: o.Name, Version: o.Version}, copts)
	d.mcp.AddSendingMiddleware(correlationMiddleware)
	return d
}

// Name returns the device's inventory name.
func (d *Device) Name() string { return d.inv.Name }

// Inventory returns the device's inventory entry.
func (d *Device) Inventory() inventory.Device { return d.inv }

// State returns the connection state and the error of the last failure
// (nil when none since the last session was established).
func (d *Device) State() (State, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state, d.err
}

// Sessions returns how many sessions were established so far: 1 after the
// first connection, one more for each reconnect.
func (d *Device) Sessions() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sessions
}

// InitializeResult returns the initialize result of the current (or last)
// session, nil before the first one.
func (d *Device) InitializeResult() *mcp.InitializeResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.init
}

// Network returns the device's MCP-NET capability (capabilities.network),
// and false when its server does not advertise one or it is not known yet.
func (d *Device) Network() (netproto.NetworkCapability, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.network == nil {
		return netproto.NetworkCapability{}, false
	}
	c := *d.network
	c.YangModules = slices.Clone(c.YangModules)
	c.ConfigDatastore = slices.Clone(c.ConfigDatastore)
	c.NotificationStream = slices.Clone(c.NotificationStream)
	return c, true
}

// Tools returns the tools the device listed (at connect, and again after
// notifications/tools/list_changed).
func (d *Device) Tools() []*mcp.Tool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.tools)
}

// HasTool tells whether the device lists the tool name.
func (d *Device) HasTool(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.ContainsFunc(d.tools, func(t *mcp.Tool) bool { return t.Name == name })
}

// Subscriptions returns the resources subscribed to, sorted.
func (d *Device) Subscriptions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Sorted(maps.Keys(d.subs))
}

// SubscriptionError returns the error of the last (re)subscription to
// uri, nil when it succeeded.
func (d *Device) SubscriptionError(uri string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.subErrs[uri]
}

// setState records a state change and wakes the waiters.
func (d *Device) setState(s State, err error) {
	d.mu.Lock()
	d.state = s
	if err != nil || s == StateConnected {
		d.err = err
	}
	close(d.change)
	d.change = make(chan struct{})
	d.mu.Unlock()
	if d.opts.OnState != nil {
		d.opts.OnState(d, s, err)
	}
}

func (d *Device) sniffed(raw json.RawMessage) {
	d.mu.Lock()
	d.rawInit = slices.Clone(raw)
	d.mu.Unlock()
}

// run is the supervisor: connect, watch the session, reconnect with
// backoff when it is lost, until ctx is done; then it closes done.
func (d *Device) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	delay := d.opts.BackoffInitial
	firstDone := false
	endFirst := func() {
		if !firstDone {
			firstDone = true
			d.firstOnce.Do(func() { close(d.first) })
		}
	}
	defer endFirst()
	for {
		d.setState(StateConnecting, nil)
		cs, err := d.connect(ctx)
		if ctx.Err() != nil {
			if cs != nil {
				_ = cs.Close()
			}
			d.setState(StateClosed, ErrClosed)
			d.dial.close()
			return
		}
		if err != nil {
			d.mu.Lock()
			d.failures++
			d.attemptEnd = time.Now()
			n := d.failures
			d.mu.Unlock()
			d.log.Debug("connect failed", "attempt", n, "error", err, "retry_in", delay)
			d.setState(StateDown, err)
			endFirst()
			wait := delay + time.Duration(rand.Int64N(int64(delay)/5+1))
			delay = min(2*delay, d.opts.BackoffMax)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				d.setState(StateClosed, ErrClosed)
				d.dial.close()
				return
			case <-t.C:
			case <-d.kick:
				t.Stop()
			}
			continue
		}
		delay = d.opts.BackoffInitial
		endFirst()
		reason := d.watch(ctx, cs)
		_ = cs.Close()
		d.mu.Lock()
		d.cs = nil
		d.attemptEnd = time.Now()
		d.mu.Unlock()
		if ctx.Err() != nil {
			d.setState(StateClosed, ErrClosed)
			d.dial.close()
			return
		}
		d.log.Info("session lost", "error", reason)
		d.setState(StateDown, fmt.Errorf("session lost: %w", reason))
	}
}

// connect makes one connection attempt: transport, initialize, tool list,
// replay of the subscriptions. On success the device is connected.
// ConnectTimeout starts once the attempt may run: a device waiting its
// turn behind Concurrency others has not begun to connect, and in a fleet
// of thousands the last ones would otherwise spend their whole time in
// that queue and fail without having tried.
func (d *Device) connect(ctx context.Context) (*mcp.ClientSession, error) {
	if err := d.fleet.acquireConnect(ctx); err != nil {
		return nil, err
	}
	defer d.fleet.releaseConnect()
	actx, cancel := context.WithTimeout(ctx, d.opts.ConnectTimeout)
	defer cancel()
	t, err := d.dial.transport(actx)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.rawInit = nil
	d.mu.Unlock()
	cs, err := d.mcp.Connect(actx, t, &mcp.ClientSessionOptions{ProtocolVersion: d.opts.ProtocolVersion})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no session within %v: %w", d.opts.ConnectTimeout, err)
		}
		return nil, err
	}
	init := cs.InitializeResult()
	var tools []*mcp.Tool
	if init.Capabilities != nil && init.Capabilities.Tools != nil {
		for t, err := range cs.Tools(actx, &mcp.ListToolsParams{}) {
			if err != nil {
				_ = cs.Close()
				return nil, fmt.Errorf("tools/list: %w", err)
			}
			tools = append(tools, t)
		}
	}
	tools = d.fleet.internTools(tools)
	d.mu.Lock()
	network := parseNetwork(d.rawInit, init)
	d.init, d.network, d.tools = init, network, tools
	d.mu.Unlock()

	// Replay the subscriptions before the session is published, holding
	// subMu so that a concurrent Subscribe waits and then subscribes on the
	// new session itself.
	d.subMu.Lock()
	defer d.subMu.Unlock()
	d.mu.Lock()
	uris := slices.Sorted(maps.Keys(d.subs))
	d.mu.Unlock()
	for _, u := range uris {
		err := cs.Subscribe(actx, &mcp.SubscribeParams{URI: u})
		if lost(err) || actx.Err() != nil {
			_ = cs.Close()
			return nil, fmt.Errorf("resources/subscribe %s: %w", u, err)
		}
		if err != nil {
			d.log.Warn("re-subscription refused", "uri", u, "error", err)
		}
		d.mu.Lock()
		d.subErrs[u] = err
		d.mu.Unlock()
	}
	d.mu.Lock()
	d.cs = cs
	d.failures = 0
	d.sessions++
	d.mu.Unlock()
	d.setState(StateConnected, nil)
	return cs, nil
}

// parseNetwork reads capabilities.network from the raw initialize result,
// or else from capabilities.extensions["ietf.org/mcp-net"].
func parseNetwork(raw json.RawMessage, init *mcp.InitializeResult) *netproto.NetworkCapability {
	if len(raw) > 0 {
		var r struct {
			Capabilities struct {
				Network *netproto.NetworkCapability `json:"network"`
			} `json:"capabilities"`
		}
		if json.Unmarshal(raw, &r) == nil && r.Capabilities.Network != nil {
			return r.Capabilities.Network
		}
	}
	if init != nil && init.Capabilities != nil {
		if ext, ok := init.Capabilities.Extensions[netproto.ExtensionID]; ok {
			b, err := json.Marshal(ext)
			var c netproto.NetworkCapability
			if err == nil && json.Unmarshal(b, &c) == nil {
				return &c
			}
		}
	}
	return nil
}

// watch returns when the session is lost: the connection closed, or
// KeepAliveFailures pings in a row failed; or when ctx is done.
func (d *Device) watch(ctx context.Context, cs *mcp.ClientSession) error {
	closed := make(chan error, 1)
	go func() { closed <- cs.Wait() }()
	var tick <-chan time.Time
	if d.opts.KeepAlive > 0 {
		t := time.NewTicker(d.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	fails := 0
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-closed:
			if err == nil {
				err = mcp.ErrConnectionClosed
			}
			return fmt.Errorf("connection closed: %w", err)
		case <-tick:
			pctx, cancel := context.WithTimeout(ctx, min(d.opts.KeepAlive, 10*time.Second))
			err := cs.Ping(pctx, &mcp.PingParams{})
			cancel()
			if err == nil {
				fails = 0
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fails++
			d.log.Debug("keepalive ping failed", "failures", fails, "error", err)
			if fails >= d.opts.KeepAliveFailures || lost(err) {
				return fmt.Errorf("keepalive ping: %w", err)
			}
		}
	}
}

// lost tells whether err means the session is gone.
func lost(err error) bool {
	return err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing))
}

func (d *Device) refreshTools(cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), d.opts.CallTimeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, &mcp.ListToolsParams{}) {
		if err != nil {
			d.log.Warn("tools/list after list_changed", "error", err)
			return
		}
		tools = append(tools, t)
	}
	tools = d.fleet.internTools(tools)
	d.mu.Lock()
	if d.cs == cs {
		d.tools = tools
	}
	d.mu.Unlock()
}

// Session returns the current session, waiting while a connection
// attempt is in progress. When the device is down it asks the supervisor
// for an attempt now (unless one ended within BackoffInitial) and waits
// for its outcome, so a call on a dead device fails fast with the cause,
// and a call on a restarted device gets the new session.
func (d *Device) Session(ctx context.Context) (*mcp.ClientSession, error) {
	kicked := false
	for {
		d.mu.Lock()
		st, cs, ch, last, fails, end := d.state, d.cs, d.change, d.err, d.failures, d.attemptEnd
		d.mu.Unlock()
		switch st {
		case StateConnected:
			return cs, nil
		case StateClosed:
			if errors.Is(last, ErrRemoved) {
				return nil, last
			}
			return nil, ErrClosed
		case StateReleased:
			return nil, ErrReleased
		case StateDown:
			if kicked || time.Since(end) < d.opts.BackoffInitial {
				return nil, notConnected(last, fails)
			}
			kicked = true
			select {
			case d.kick <- struct{}{}:
			default:
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if last != nil {
				return nil, fmt.Errorf("%w: %w (%s; last error: %v)", ErrNotConnected, ctx.Err(), st, last)
			}
			return nil, fmt.Errorf("%w: %w (%s)", ErrNotConnected, ctx.Err(), st)
		}
	}
}

func notConnected(last error, fails int) error {
	if last == nil {
		return ErrNotConnected
	}
	if fails > 0 {
		return fmt.Errorf("%w (%d failed attempts): %w", ErrNotConnected, fails, last)
	}
	return fmt.Errorf("%w: %w", ErrNotConnected, last)
}

// do runs f on the current session: it waits for a session, closes a
// session the call found lost (so the supervisor replaces it at once) and
// retries f once on the next session when the server no longer knew the
// session (it did not run the request). Errors are *DeviceError.
func (d *Device) do(ctx context.Context, op string, f func(context.Context, *mcp.ClientSession) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.opts.CallTimeout)
		defer cancel()
	}
	for try := 0; ; try++ {
		cs, err := d.Session(ctx)
		if err != nil {
			return &DeviceError{Device: d.inv.Name, Op: op, Err: err}
		}
		err = f(ctx, cs)
		if lost(err) {
			_ = cs.Close()
			if errors.Is(err, mcp.ErrSessionMissing) && try == 0 && ctx.Err() == nil {
				d.waitReplaced(ctx, cs)
				continue
			}
		}
		if err != nil {
			var te *ToolError
			if errors.As(err, &te) {
				return err
			}
			return &DeviceError{Device: d.inv.Name, Op: op, Err: err}
		}
		return nil
	}
}

// waitReplaced waits until cs is no longer the device's session.
func (d *Device) waitReplaced(ctx context.Context, cs *mcp.ClientSession) {
	for {
		d.mu.Lock()
		cur, ch := d.cs, d.change
		d.mu.Unlock()
		if cur != cs {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// CallTool calls a tool of the device. A result with isError set is
// returned together with a *ToolError; other failures are *DeviceError.
// The context's correlation id goes in _meta; a context without deadline
// gets Options.CallTimeout.
func (d *Device) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	if remote := d.remote(ctx); remote != nil {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d.opts.CallTimeout)
			defer cancel()
		}
		res, err := remote(ctx, d, name, args)
		if err != nil {
			return nil, &DeviceError{Device: d.inv.Name, Op: "tools/call " + name, Err: err}
		}
		if res != nil && res.IsError {
			return res, &ToolError{Tool: name, Text: resultText(res)}
		}
		return res, nil
	}
	var res *mcp.CallToolResult
	err := d.do(ctx, "tools/call "+name, func(ctx context.Context, cs *mcp.ClientSession) error {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return err
		}
		res = r
		if r.IsError {
			return &ToolError{Tool: name, Text: resultText(r)}
		}
		return nil
	})
	return res, err
}

// remote returns Options.Remote when the fleet released d and ctx allows
// forwarding, nil when the call is to run on this fleet's session.
func (d *Device) remote(ctx context.Context) RemoteFunc {
	if d.opts.Remote == nil || ctx.Value(localOnlyKey{}) != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.released {
		return nil
	}
	return d.opts.Remote
}

// remoteRequest returns Options.RemoteRequest when the fleet released d
// and ctx allows forwarding, nil when the request is to run on this
// fleet's session.
func (d *Device) remoteRequest(ctx context.Context) RemoteRequestFunc {
	if d.opts.RemoteRequest == nil || ctx.Value(localOnlyKey{}) != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.released {
		return nil
	}
	return d.opts.RemoteRequest
}

// callRemote runs one request through remote under the call timeout;
// its errors are *DeviceError, as a request on the device's own session.
func (d *Device) callRemote(ctx context.Context, remote RemoteRequestFunc, method, op string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.opts.CallTimeout)
		defer cancel()
	}
	if err := remote(ctx, d, method, params, result); err != nil {
		return &DeviceError{Device: d.inv.Name, Op: op, Err: err}
	}
	return nil
}

type localOnlyKey struct{}

// LocalOnly returns ctx marked so that a call made with it runs on this
// fleet's own session and is never given to Options.Remote: the call a
// replica runs for another one.
func LocalOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, localOnlyKey{}, true)
}

// resultText joins the text contents of a tool result.
func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ReadResource reads a resource of the device.
func (d *Device) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	var res *mcp.ReadResourceResult
	if remote := d.remoteRequest(ctx); remote != nil {
		err := d.callRemote(ctx, remote, MethodReadResource, "resources/read "+uri, &mcp.ReadResourceParams{URI: uri}, &res)
		return res, err
	}
	err := d.do(ctx, "resources/read "+uri, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return err
	})
	return res, err
}

// GetPrompt gets a prompt of the device (a runbook: network.troubleshoot.*).
func (d *Device) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	var res *mcp.GetPromptResult
	if remote := d.remoteRequest(ctx); remote != nil {
		err := d.callRemote(ctx, remote, MethodGetPrompt, "prompts/get "+name, &mcp.GetPromptParams{Name: name, Arguments: args}, &res)
		return res, err
	}
	err := d.do(ctx, "prompts/get "+name, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		return err
	})
	return res, err
}

// ListPrompts lists every prompt of the device (all pages).
func (d *Device) ListPrompts(ctx context.Context) ([]*mcp.Prompt, error) {
	var out []*mcp.Prompt
	if remote := d.remoteRequest(ctx); remote != nil {
		err := d.callRemote(ctx, remote, MethodListPrompts, "prompts/list", nil, &out)
		return out, err
	}
	err := d.do(ctx, "prompts/list", func(ctx context.Context, cs *mcp.ClientSession) error {
		out = nil
		for p, err := range cs.Prompts(ctx, &mcp.ListPromptsParams{}) {
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// Ping sends a ping to the device.
func (d *Device) Ping(ctx context.Context) error {
	return d.do(ctx, "ping", func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Ping(ctx, &mcp.PingParams{})
	})
}

// Subscribe subscribes to a resource; its notifications/resources/updated
// go to Options.OnResourceUpdated. The subscription is kept: it is
// replayed on every new session after a reconnect. When the device is
// connected the subscription is sent now and its error returned (the URI
// is then not kept); when it is not, the URI is kept and sent at the next
// connection (see SubscriptionError).
func (d *Device) Subscribe(ctx context.Context, uri string) error {
	d.subMu.Lock()
	defer d.subMu.Unlock()
	d.mu.Lock()
	cs := d.cs
	if d.state != StateConnected {
		cs = nil
	}
	d.mu.Unlock()
	if cs != nil {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil && !lost(err) {
			return &DeviceError{Device: d.inv.Name, Op: "resources/subscribe " + uri, Err: err}
		}
		// A lost session: the replay on the next one sends it.
	}
	d.mu.Lock()
	d.subs[uri] = true
	delete(d.subErrs, uri)
	d.mu.Unlock()
	return nil
}

// Unsubscribe ends a subscription made with Subscribe.
func (d *Device) Unsubscribe(ctx context.Context, uri string) error {
	d.subMu.Lock()
	defer d.subMu.Unlock()
	d.mu.Lock()
	had := d.subs[uri]
	delete(d.subs, uri)
	delete(d.subErrs, uri)
	cs := d.cs
	if d.state != StateConnected {
		cs = nil
	}
	d.mu.Unlock()
	if !had || cs == nil {
		return nil
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil && !lost(err) {
		return &DeviceError{Device: d.inv.Name, Op: "resources/unsubscribe " + uri, Err: err}
	}
	return nil
}
