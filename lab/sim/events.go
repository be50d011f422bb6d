package sim

import (
	"maps"
	"slices"
	"sync"

	"github.com/netmcp/netmcp/device"
)

// maxQueuedEvents bounds the events waiting for delivery; beyond it the
// oldest are dropped (a subscriber that stalls must not stall the device).
const maxQueuedEvents = 10000

// eventBus delivers a device's events to its subscribers from one
// goroutine, in order, outside every lock of the device.
type eventBus struct {
	mu      sync.Mutex
	cond    *sync.Cond
	subs    map[int]func(device.Event)
	next    int
	q       []device.Event
	started bool
	closed  bool
	done    chan struct{}
}

func newEventBus() *eventBus {
	b := &eventBus{subs: map[int]func(device.Event){}, done: make(chan struct{})}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *eventBus) start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || b.closed {
		return
	}
	b.started = true
	go b.loop()
}

func (b *eventBus) loop() {
	defer close(b.done)
	for {
		b.mu.Lock()
		for len(b.q) == 0 && !b.closed {
			b.cond.Wait()
		}
		if b.closed {
			b.mu.Unlock()
			return
		}
		batch := b.q
		b.q = nil
		fns := make([]func(device.Event), 0, len(b.subs))
		for _, id := range slices.Sorted(maps.Keys(b.subs)) { // in subscription order
			fns = append(fns, b.subs[id])
		}
		b.mu.Unlock()
		for _, e := range batch {
			for _, fn := range fns {
				fn(e)
			}
		}
	}
}

// publish queues an event; it never blocks.
func (b *eventBus) publish(e device.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || len(b.subs) == 0 {
		return
	}
	if len(b.q) >= maxQueuedEvents {
		b.q = b.q[1:]
	}
	b.q = append(b.q, e)
	b.cond.Signal()
}

// subscribe registers fn until the returned function is called.
func (b *eventBus) subscribe(fn func(device.Event)) func() {
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = fn
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			b.mu.Unlock()
		})
	}
}

func (b *eventBus) stop() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	started := b.started
	b.cond.Broadcast()
	b.mu.Unlock()
	if started {
		<-b.done
	}
}
