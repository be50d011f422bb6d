package gnmiserver

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/yang"
)

// change is one leaf that changed between two readings: a new value, or
// deleted.
type change struct {
	leaf    wire.Leaf
	deleted bool
}

// watcherBuffer is how many batches of changes a subscription may lag
// behind before it is ended as too slow.
const watcherBuffer = 256

// watcher is one ON_CHANGE subscription path fed by a poller.
type watcher struct {
	pattern yang.Path
	ch      chan []change
	// slow is closed when the watcher fell watcherBuffer batches behind.
	slow     chan struct{}
	slowOnce sync.Once
}

func (w *watcher) deliver(cs []change) {
	var mine []change
	for _, c := range cs {
		if wire.Match(w.pattern, c.leaf.Path) {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return
	}
	select {
	case w.ch <- mine:
	default:
		w.slowOnce.Do(func() { close(w.slow) })
	}
}

// poller reads one top-level node (or the root) of the operational
// datastore, keeps its leaves, and sends what changed to its watchers.
type poller struct {
	s    *Server
	key  string
	path yang.Path

	mu     sync.Mutex // the reading and the watchers
	leaves map[string]wire.Leaf
	read   bool // leaves hold a reading
	subs   map[*watcher]bool

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

// pollLocked reads the node and delivers the changes since the last
// reading; p.mu is held. A node with no data has no leaves.
func (p *poller) pollLocked(ctx context.Context) error {
	v, err := p.s.drv.Get(ctx, device.Operational, p.path.String())
	switch {
	case errors.Is(err, device.ErrNotFound):
		v = nil
	case err != nil:
		return err
	}
	next := make(map[string]wire.Leaf, len(p.leaves))
	if v != nil {
		wire.Flatten(p.path, v, p.s.schema, func(l wire.Leaf) { next[l.Path.String()] = l })
	}
	if p.read && len(p.subs) > 0 {
		var cs []change
		for k, l := range next {
			if old, ok := p.leaves[k]; !ok || !equalValue(old.Value, l.Value) {
				cs = append(cs, change{leaf: l})
			}
		}
		for k, l := range p.leaves {
			if _, ok := next[k]; !ok {
				cs = append(cs, change{leaf: l, deleted: true})
			}
		}
		if len(cs) > 0 {
			for w := range p.subs {
				w.deliver(cs)
			}
		}
	}
	p.leaves, p.read = next, true
	return nil
}

// loop polls every interval and on every kick until stopped.
func (p *poller) loop(interval time.Duration) {
	defer close(p.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		case <-p.kick:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		p.mu.Lock()
		if err := p.pollLocked(ctx); err != nil {
			p.s.log.Warn("gnmi: reading for ON_CHANGE subscriptions failed", "path", p.key, "err", err)
		}
		p.mu.Unlock()
		cancel()
	}
}

// hub keeps one poller per subscribed node, and kicks them all when the
// driver reports an event.
type hub struct {
	s       *Server
	mu      sync.Mutex
	pollers map[string]*poller
	refs    map[string]int
	unsub   func() // the driver's event subscription, while pollers run
}

func newHub(s *Server) *hub {
	return &hub{s: s, pollers: map[string]*poller{}, refs: map[string]int{}}
}

// watch adds a watcher of pattern, which lies below top, and returns it
// with the leaves matching pattern now (read now); release ends it.
func (h *hub) watch(ctx context.Context, top, pattern yang.Path) (w *watcher, now []wire.Leaf, release func(), err error) {
	key := top.String()
	h.mu.Lock()
	p := h.pollers[key]
	if p == nil {
		p = &poller{s: h.s, key: key, path: top, subs: map[*watcher]bool{},
			kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
		h.pollers[key] = p
		go p.loop(h.s.opts.PollInterval)
		if tel, ok := h.s.drv.(device.Telemetry); ok && h.unsub == nil {
			h.unsub = tel.Subscribe(func(device.Event) { h.kickAll() })
		}
	}
	h.refs[key]++
	h.mu.Unlock()
	release = func() {
		p.mu.Lock()
		delete(p.subs, w)
		p.mu.Unlock()
		h.release(key)
	}
	w = &watcher{pattern: pattern, ch: make(chan []change, watcherBuffer), slow: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.pollLocked(ctx); err != nil {
		go release()
		return nil, nil, nil, err
	}
	p.subs[w] = true
	for _, l := range p.leaves {
		if wire.Match(pattern, l.Path) {
			now = append(now, l)
		}
	}
	return w, now, release, nil
}

func (h *hub) release(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.refs[key]--; h.refs[key] > 0 {
		return
	}
	delete(h.refs, key)
	if p := h.pollers[key]; p != nil {
		close(p.stop)
		delete(h.pollers, key)
	}
	if len(h.pollers) == 0 && h.unsub != nil {
		h.unsub()
		h.unsub = nil
	}
}

// kickAll asks every poller to read now; it never blocks.
func (h *hub) kickAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.pollers {
		select {
		case p.kick <- struct{}{}:
		default:
		}
	}
}

// stopAll stops every poller (the server stopped).
func (h *hub) stopAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, p := range h.pollers {
		close(p.stop)
		delete(h.pollers, k)
		delete(h.refs, k)
	}
	if h.unsub != nil {
		h.unsub()
		h.unsub = nil
	}
}

// equalValue reports whether two leaf values are equal.
func equalValue(a, b any) bool { return reflect.DeepEqual(a, b) }
