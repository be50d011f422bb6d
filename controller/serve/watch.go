package serve

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// DefaultPollInterval is the period of the reads that feed a subscription
// to a device without a change stream, unless WatchOptions says another.
const DefaultPollInterval = 10 * time.Second

// _meta keys of the controller's notifications/resources/updated.
const (
	// MetaSource says what told the controller of the change:
	// SourceOnChange (the device's change stream) or SourcePoll.
	MetaSource = "source"
	// MetaChanged lists the instance paths of the leaves that changed
	// (SourceOnChange; at most maxChangedMeta of them).
	MetaChanged = "changed"
)

// Values of MetaSource.
const (
	SourceOnChange = "on-change"
	SourcePoll     = "poll"
)

// maxChangedMeta bounds the paths listed in one notification.
const maxChangedMeta = 32

// WatchOptions configure how the controller learns that a subscribed
// device resource (mcp://<device>/<module>:<path>) changed. A device whose
// inventory entry gives a gNMI URL (`gnmi:`, as `netmcp lab up --gnmi`
// writes it), opened with a driver that implements device.Watcher, feeds
// its subscriptions from its ON_CHANGE stream: no polling. Any other is
// read through its MCP server every PollInterval and compared.
type WatchOptions struct {
	// PollInterval is the period of the reads of a device without a
	// change stream (0: DefaultPollInterval; negative: none, and a
	// subscription to such a device is refused).
	PollInterval time.Duration
	// Open opens a device's driver from its inventory's gNMI URL
	// (default: device.Open, with the drivers the program registered).
	Open func(ctx context.Context, rawURL string) (device.Driver, error)
	// SyncTimeout bounds the wait of resources/subscribe for the device's
	// stream to be in step with the device (default 10 s); past it the
	// subscription stands and the stream keeps trying.
	SyncTimeout time.Duration
	// Log receives what goes wrong with the streams (default: none).
	Log *slog.Logger
}

// watches feeds the host sessions' resource subscriptions: one feed per
// subscribed URI, whoever subscribed to it, and one driver per device
// with a change stream, whatever its URIs.
type watches struct {
	s    *Server
	opts WatchOptions
	ctx  context.Context // the feeds' context, cancelled by close
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu       sync.Mutex
	feeds    map[string]*feed            // by URI
	sessions map[*mcp.ServerSession]bool // whose end is watched
	drivers  map[string]*streamDriver    // by device name
	closed   bool
}

// feed is what tells the subscribers of one URI of its changes.
type feed struct {
	uri, device, path string
	subs              map[*mcp.ServerSession]bool
	source            string // SourceOnChange or SourcePoll
	cancel            context.CancelFunc
}

// streamDriver is a device's driver opened for its change stream.
type streamDriver struct {
	mu  sync.Mutex // held while opening
	drv device.Driver
}

func newWatches(s *Server, o WatchOptions) *watches {
	if o.PollInterval == 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Open == nil {
		o.Open = func(ctx context.Context, u string) (device.Driver, error) {
			return device.Open(ctx, u, device.Options{})
		}
	}
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = 10 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ctx, stop := context.WithCancel(context.Background())
	return &watches{s: s, opts: o, ctx: ctx, stop: stop, feeds: map[string]*feed{},
		sessions: map[*mcp.ServerSession]bool{}, drivers: map[string]*streamDriver{}}
}

// SetWatch sets how subscribed device resources are followed (see
// WatchOptions); call it before serving.
func (s *Server) SetWatch(o WatchOptions) {
	old := s.watch
	s.watch = newWatches(s, o)
	old.close()
}

// Close ends the feeds of the resource subscriptions, closes the drivers
// opened for the devices' change streams, and ends this process's run in
// the task store (KeepTasks).
func (s *Server) Close() error {
	s.tasks.Close() // tasks.go: the task store no longer written
	return s.watch.close()
}

// subscribeResource is resources/subscribe: a device resource the host
// may read, fed by the device's change stream or by polling.
func (s *Server) subscribeResource(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	dev, path, err := ParseDeviceURI(uri)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/subscribe: " + err.Error() + " (only device resources can be subscribed to)"}
	}
	d := s.ctl.Fleet.Device(dev)
	if d == nil {
		return mcp.ResourceNotFoundError(uri)
	}
	if err := s.authorizeDeviceRead(s.hostIdentity(ctx), d, uri, path); err != nil {
		return rpcError(err)
	}
	return s.watch.add(ctx, req.Session, d, uri, path)
}

// unsubscribeResource is resources/unsubscribe.
func (s *Server) unsubscribeResource(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.watch.remove(req.Session, req.Params.URI)
	return nil
}

// add subscribes session ss to uri, starting its feed if it has none.
func (ws *watches) add(ctx context.Context, ss *mcp.ServerSession, d *client.Device, uri, path string) error {
	ws.mu.Lock()
	if ws.closed {
		ws.mu.Unlock()
		return errors.New("resources/subscribe: the controller is closing")
	}
	if ss != nil && !ws.sessions[ss] {
		ws.sessions[ss] = true
		go func() { // a session that ends drops its subscriptions
			_ = ss.Wait()
			ws.dropSession(ss)
		}()
	}
	if f := ws.feeds[uri]; f != nil {
		f.subs[ss] = true
		ws.mu.Unlock()
		return nil
	}
	ws.mu.Unlock()

	f := &feed{uri: uri, device: d.Name(), path: path, subs: map[*mcp.ServerSession]bool{ss: true}}
	if err := ws.start(ctx, f, d); err != nil {
		return err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if other := ws.feeds[uri]; other != nil || ws.closed { // another subscriber started one meanwhile
		f.cancel()
		if other != nil {
			other.subs[ss] = true
		}
		return nil
	}
	ws.feeds[uri] = f
	return nil
}

// remove ends session ss's subscription to uri, and the feed with the
// last one.
func (ws *watches) remove(ss *mcp.ServerSession, uri string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	f := ws.feeds[uri]
	if f == nil {
		return
	}
	delete(f.subs, ss)
	if len(f.subs) == 0 {
		f.cancel()
		delete(ws.feeds, uri)
	}
}

// dropSession ends every subscription of a session that ended.
func (ws *watches) dropSession(ss *mcp.ServerSession) {
	ws.mu.Lock()
	delete(ws.sessions, ss)
	var uris []string
	for u, f := range ws.feeds {
		if f.subs[ss] {
			uris = append(uris, u)
		}
	}
	ws.mu.Unlock()
	for _, u := range uris {
		ws.remove(ss, u)
	}
}

// start starts f's feed: the device's change stream when it has one that
// comes in step, else polling (when allowed).
func (ws *watches) start(ctx context.Context, f *feed, d *client.Device) error {
	fctx, cancel := context.WithCancel(ws.ctx)
	f.cancel = cancel
	var streamErr error
	if w, err := ws.watcher(ctx, d); err != nil {
		streamErr = err
	} else if w != nil {
		synced := make(chan error, 1)
		var once sync.Once
		signal := func(err error) { once.Do(func() { synced <- err }) }
		ws.wg.Add(1)
		go func() {
			defer ws.wg.Done()
			err := w.WatchChanges(fctx, []string{f.path}, func(c device.Changes) {
				if c.Synced {
					signal(nil)
					return
				}
				ws.notify(f, SourceOnChange, c.Paths)
			})
			signal(err)
			if fctx.Err() == nil {
				ws.opts.Log.Warn("controller: change stream ended", "device", f.device, "path", f.path, "error", err)
			}
		}()
		select {
		case err := <-synced:
			if err == nil {
				f.source = SourceOnChange
				return nil
			}
			streamErr = err
		case <-time.After(ws.opts.SyncTimeout):
			ws.opts.Log.Warn("controller: change stream not in step yet; it keeps trying", "device", f.device, "path", f.path)
			f.source = SourceOnChange
			return nil
		case <-ctx.Done():
			cancel()
			return ctx.Err()
		}
	}
	if ws.opts.PollInterval < 0 {
		cancel()
		why := "no change stream (no gnmi: URL in the inventory)"
		if streamErr != nil {
			why = "its change stream failed: " + streamErr.Error()
		}
		return rpcError(netproto.Errorf(netproto.CodeConfigIncompatible, "resources/subscribe %s: device %s has %s, and polling is off", f.uri, f.device, why))
	}
	if streamErr != nil {
		ws.opts.Log.Warn("controller: polling instead of the change stream", "device", f.device, "path", f.path, "error", streamErr)
	}
	f.source = SourcePoll
	last, have := ws.read(ctx, f, d) // the reading changes are told from
	ws.wg.Add(1)
	go func() {
		defer ws.wg.Done()
		ws.poll(fctx, f, d, last, have)
	}()
	return nil
}

// watcher returns the change stream of device d: its driver opened from
// the inventory's gNMI URL, once, when that driver is a device.Watcher;
// nil when the device has none.
func (ws *watches) watcher(ctx context.Context, d *client.Device) (device.Watcher, error) {
	u := d.Inventory().GNMI
	if u == "" {
		return nil, nil
	}
	ws.mu.Lock()
	sd := ws.drivers[d.Name()]
	if sd == nil {
		sd = &streamDriver{}
		ws.drivers[d.Name()] = sd
	}
	ws.mu.Unlock()
	sd.mu.Lock()
	defer sd.mu.Unlock()
	if sd.drv == nil {
		drv, err := ws.opts.Open(ctx, u)
		if err != nil {
			return nil, err // tried again by the next subscription
		}
		ws.mu.Lock()
		closed := ws.closed
		if !closed {
			sd.drv = drv
		}
		ws.mu.Unlock()
		if closed {
			_ = drv.Close()
			return nil, errors.New("the controller is closing")
		}
	}
	w, _ := sd.drv.(device.Watcher)
	return w, nil
}

// streaming reports whether the controller holds a change stream to
// device name.
func (ws *watches) streaming(name string) bool {
	ws.mu.Lock()
	sd := ws.drivers[name]
	ws.mu.Unlock()
	if sd == nil {
		return false
	}
	sd.mu.Lock()
	defer sd.mu.Unlock()
	_, ok := sd.drv.(device.Watcher)
	return ok
}

// poll reads f's resource every PollInterval through the device's MCP
// server and notifies when it differs from the previous reading (last,
// when have).
func (ws *watches) poll(ctx context.Context, f *feed, d *client.Device, last [32]byte, have bool) {
	t := time.NewTicker(ws.opts.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sum, ok := ws.read(ctx, f, d)
		if !ok {
			continue // unreadable now: compared with the next reading
		}
		if have && sum != last {
			ws.notify(f, SourcePoll, nil)
		}
		last, have = sum, true
	}
}

// read reads f's resource through the device's MCP server and returns
// the digest of what it answered; ok is false when it answered an error.
func (ws *watches) read(ctx context.Context, f *feed, d *client.Device) (sum [32]byte, ok bool) {
	rctx, cancel := context.WithTimeout(ctx, max(ws.opts.PollInterval, 5*time.Second))
	defer cancel()
	res, err := d.CallTool(rctx, netproto.ToolYangGet, map[string]any{"path": f.path})
	if err != nil {
		return sum, false
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return sum, false
	}
	return sha256.Sum256(b), true
}

// notify sends notifications/resources/updated for f's URI to its
// subscribers, saying what told of the change and, from a stream, which
// leaves changed.
func (ws *watches) notify(f *feed, source string, changed []string) {
	meta := mcp.Meta{MetaSource: source}
	if len(changed) > 0 {
		meta[MetaChanged] = changed[:min(len(changed), maxChangedMeta)]
	}
	ctx, cancel := context.WithTimeout(ws.ctx, 10*time.Second)
	defer cancel()
	if err := ws.s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: f.uri, Meta: meta}); err != nil {
		ws.opts.Log.Warn("controller: resource updated notification", "uri", f.uri, "error", err)
	}
}

// close ends every feed and closes the drivers. A nil watches is none.
func (ws *watches) close() error {
	if ws == nil {
		return nil
	}
	ws.mu.Lock()
	if ws.closed {
		ws.mu.Unlock()
		return nil
	}
	ws.closed = true
	ws.mu.Unlock()
	ws.stop()
	ws.wg.Wait()
	var errs []error
	for name, sd := range ws.drivers {
		sd.mu.Lock()
		if sd.drv != nil {
			if err := sd.drv.Close(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
			}
		}
		sd.mu.Unlock()
	}
	return errors.Join(errs...)
}
