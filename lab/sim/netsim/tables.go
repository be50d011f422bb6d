package netsim

import "sync"

// tables are a device's routing tables: every candidate route of each
// table, the active ones indexed for lookups, and how many routes they
// hold in all.
type tables struct {
	ribs   map[ribKey][]*route
	fibs   map[ribKey]*fib
	routes int
}

// DefaultMaxTableRoutes is how many routes the computed tables of a
// network hold at most (about 200 bytes each) unless
// Options.MaxTableRoutes says otherwise: beyond it the least recently
// used device's tables are dropped, to be computed again when next
// needed. A device's tables grow with the network (a route per subnet),
// so a network of a thousand routers would otherwise keep millions of
// routes; networks of up to a few hundred routers keep every table.
const DefaultMaxTableRoutes = 1 << 19

// tableCache keeps the computed tables of a state's devices within its
// budget of routes, dropping the tables of the device used least recently
// first (a clock: the oldest is dropped unless used since it was last
// passed over, in which case it goes to the back).
type tableCache struct {
	budget int
	mu     sync.Mutex
	queue  []cachedTables // oldest first
	routes int            // the routes of the tables queued
}

// cachedTables are tables published for a device.
type cachedTables struct {
	d *device
	t *tables
}

// tablesOf returns d's tables, computing them on first use and after the
// cache dropped them. The tables are the same whenever they are computed:
// they depend only on the state, which never changes once built. Safe
// under the Network's read lock; a caller may go on using tables the
// cache has dropped meanwhile.
func (s *state) tablesOf(d *device) *tables {
	d.tabUsed.Store(true)
	if t := d.tab.Load(); t != nil {
		return t
	}
	d.tabMu.Lock()
	t := d.tab.Load()
	if t == nil {
		t = s.computeRIBs(d)
		d.tab.Store(t)
	}
	d.tabMu.Unlock()
	if t != nil {
		s.tables.add(d, t)
	}
	return t
}

// recomputeTables computes d's tables again if they are computed (the
// state's build, when BGP installs new routes); tables not computed yet
// stay so, to be computed from the final routes on first use.
func (s *state) recomputeTables(d *device) {
	d.tabMu.Lock()
	if d.tab.Load() == nil {
		d.tabMu.Unlock()
		return
	}
	t := s.computeRIBs(d)
	d.tab.Store(t)
	d.tabMu.Unlock()
	s.tables.add(d, t)
}

// add queues tables just published for d, then drops the oldest tables
// not used since they were last passed over while the routes exceed the
// budget (d's own, just computed, are kept).
func (c *tableCache) add(d *device, t *tables) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue = append(c.queue, cachedTables{d, t})
	c.routes += t.routes
	for passes := 2 * len(c.queue); c.routes > c.budget && len(c.queue) > 1 && passes > 0; passes-- {
		e := c.queue[0]
		c.queue = c.queue[1:]
		if e.d != d && e.d.tab.Load() == e.t && e.d.tabUsed.Swap(false) {
			c.queue = append(c.queue, e) // a second chance
			continue
		}
		c.routes -= e.t.routes
		if e.d != d {
			e.d.tab.CompareAndSwap(e.t, nil)
		} else if e.t != t {
			continue // d's tables computed before: replaced by t
		} else {
			c.queue = append(c.queue, e) // d's own: kept
			c.routes += e.t.routes
		}
	}
}
