package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"iter"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// batch bounds the asynchronous publishes in flight per round.
const batch = 256

// perRound bounds the claims and the hand-backs of one rebalance round,
// so that the sessions of a large fleet open in steps and a round's
// acknowledgements come back well within half a TTL.
const perRound = batch

// handBackParallel is the number of devices handed back at once (each
// waits for its session to close).
const handBackParallel = 16

var plainKeyRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// deviceKey is the lease key of a device: its name when that is a plain
// token, otherwise "=" and the name in hex (a plain key never holds "=").
func deviceKey(device string) string {
	if plainKeyRE.MatchString(device) {
		return device
	}
	return "=" + hex.EncodeToString([]byte(device))
}

// keyDevice inverts deviceKey.
func keyDevice(key string) (string, bool) {
	if h, ok := strings.CutPrefix(key, "="); ok {
		b, err := hex.DecodeString(h)
		return string(b), err == nil
	}
	return key, true
}

// score ranks instance for device in rendezvous hashing: the live instance
// with the highest score is the device's preferred owner, so a replica
// joining or leaving moves only its own share of the devices.
func score(instance, device string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(instance))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(device))
	x := h.Sum64()
	// splitmix64 finaliser: FNV alone mixes the last bytes poorly.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// preferred is device's owner by rendezvous hashing over members.
func preferred(members []string, device string) string {
	var best string
	var bestScore uint64
	for _, m := range members {
		if s := score(m, device); best == "" || s > bestScore {
			best, bestScore = m, s
		}
	}
	return best
}

// watchLeases keeps the view of the lease bucket current.
func (r *Replica) watchLeases(ctx context.Context, w jetstream.KeyWatcher) {
	defer r.wg.Done()
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			if e == nil { // end of the initial values
				r.leasesReady.Do(func() { close(r.leasesSeen) })
				r.poke()
				continue
			}
			d, ok := keyDevice(e.Key())
			if !ok {
				continue
			}
			o := owner{rev: e.Revision()}
			switch e.Operation() {
			case jetstream.KeyValuePut:
				o.instance = string(e.Value())
			case jetstream.KeyValueDelete:
				o.handedBack = true
			}
			r.mu.Lock()
			if cur, seen := r.view[d]; !seen || cur.rev <= o.rev {
				r.view[d] = o
			}
			r.mu.Unlock()
			if o.instance == "" {
				r.poke()
			}
		}
	}
}

// watchMembers keeps the set of live replicas current.
func (r *Replica) watchMembers(ctx context.Context, w jetstream.KeyWatcher) {
	defer r.wg.Done()
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			if e == nil { // end of the initial values
				r.membersReady.Do(func() { close(r.membersSeen) })
				continue
			}
			r.mu.Lock()
			changed := false
			if e.Operation() == jetstream.KeyValuePut {
				changed = !r.live[e.Key()]
				r.live[e.Key()] = true
			} else {
				changed = r.live[e.Key()]
				delete(r.live, e.Key())
			}
			r.mu.Unlock()
			if changed {
				r.poke()
			}
		}
	}
}

// closeSessions closes the sessions of devices, handBackParallel at a
// time (each Close waits for its session to end), and returns when all
// are closed.
func (r *Replica) closeSessions(devices []string) {
	forEachDevice(slices.Values(devices), r.cfg.Sessions.Close)
}

// forEachDevice runs fn for every device, handBackParallel at a time, and
// returns when all have returned.
func forEachDevice(devices iter.Seq[string], fn func(device string)) {
	sem := make(chan struct{}, handBackParallel)
	var wg sync.WaitGroup
	for d := range devices {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(d)
		}()
	}
	wg.Wait()
}

// watchdog stops serving every device whose lease has gone half a TTL
// without a successful renewal, well before the server can expire it, and
// opens the sessions of the leases ready to serve.
//
// A stale lease is kept, and renewed on, for the rest of its TTL: a
// renewal acknowledged late (the server or this process starved of CPU)
// that went through shows the compare-and-set chain unbroken, nobody else
// wrote the key, so the device is served again from that renewal, without
// waiting for the lease to expire and claiming it again. One refused means
// the lease is lost (recheck). After a whole TTL without a renewal the
// lease is forgotten: the server expires it.
func (r *Replica) watchdog(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(r.ttl / 20)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var stale, ready []string
		now := time.Now()
		r.mu.Lock()
		for d, l := range r.mine {
			age := now.Sub(l.renewed)
			switch {
			case age >= r.ttl:
				delete(r.mine, d)
			case age >= r.serveFor:
				if !l.stale {
					l.stale = true
					r.lapses.Add(1)
				}
				if l.opened {
					l.opened = false
					stale = append(stale, d)
				}
			case !l.opened && !now.Before(l.from):
				l.opened = true
				ready = append(ready, d)
			}
		}
		r.mu.Unlock()
		for _, d := range stale {
			r.log.Debug("cluster: lease not renewed, stop serving", "replica", r.self, "device", d)
		}
		r.closeSessions(stale)
		for _, d := range ready {
			r.log.Debug("cluster: lease taken", "replica", r.self, "device", d)
			r.cfg.Sessions.Open(d)
		}
	}
}

// Renewal timing, as fractions of the TTL. A lease is served for half a
// TTL after its last successful renewal was sent; each lease is renewed
// on its own schedule, at an age drawn from [renewAfterMin,
// renewAfterMax), so the writes spread evenly over time instead of coming
// in one burst of every lease, and at least a fifth of a TTL is left for
// a renewal's acknowledgement (or a second attempt) before the lease
// would go stale. A new lease's first renewal comes earlier, from
// [firstRenewalMin, renewAfterMax), which spreads a burst of claims over
// the period at once.
const (
	renewAfterMin   = 0.25
	renewAfterMax   = 0.30
	firstRenewalMin = 0.10
	// renewTicks is the number of times per TTL the renewer looks for
	// leases due.
	renewTicks = 40
	// maxRenewing bounds the lease writes in flight, below asyncPending,
	// the client's bound on unacknowledged asynchronous publishes, past
	// which a publish would stall (each for 200 ms): a replica whose
	// server is slow or gone does not pile up writes.
	maxRenewing  = 2048
	asyncPending = 4096
)

// nextRenewal is when a lease written at sent is next due for renewal.
func (r *Replica) nextRenewal(sent time.Time, first bool) time.Time {
	lo := renewAfterMin
	if first {
		lo = firstRenewalMin
	}
	f := lo + rand.Float64()*(renewAfterMax-lo)
	return sent.Add(time.Duration(f * float64(r.ttl)))
}

// loop renews the presence every quarter TTL, and rebalances after each
// renewal and whenever a lease or member changes. The leases are renewed
// by renewer, so that a long round never delays them.
func (r *Replica) loop(ctx context.Context) {
	defer r.wg.Done()
	presence := time.NewTicker(r.ttl / 4)
	defer presence.Stop()
	// The first round waits for the buckets' current contents: without
	// the other members a replica would claim their devices too, and
	// without the leases it would claim owned devices, each refused and
	// read again.
	for _, seen := range []chan struct{}{r.membersSeen, r.leasesSeen} {
		select {
		case <-ctx.Done():
			return
		case <-seen:
		}
	}
	for {
		r.rebalance(ctx)
		r.announceIfChanged(ctx)
		select {
		case <-ctx.Done():
			return
		case <-presence.C:
			pctx, cancel := context.WithTimeout(ctx, r.serveFor)
			err := r.announce(pctx)
			cancel()
			if err != nil {
				r.log.Debug("cluster: presence not renewed", "replica", r.self, "err", err)
			}
		case <-r.kick:
			// Let a burst of changes settle into one round.
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// pending is one asynchronous lease write.
type pending struct {
	device string
	sent   time.Time
	ack    jetstream.PubAckFuture
	err    error
	// lease and rev are the lease a renewal rewrites and the revision it
	// expects (nil for a claim).
	lease *lease
	rev   uint64
}

// publish writes device's lease with the TTL, expecting revision expect,
// without waiting for the acknowledgement.
func (r *Replica) publish(device string, expect uint64) pending {
	p := pending{device: device, sent: time.Now(), rev: expect}
	m := &nats.Msg{Subject: kvSubject(r.leases, deviceKey(device)), Data: []byte(r.self)}
	p.ack, p.err = r.leaseJS.PublishMsgAsync(m,
		jetstream.WithMsgTTL(r.ttl),
		jetstream.WithExpectLastSequencePerSubject(expect))
	return p
}

// wait collects the acknowledgements of ps, calling done for each, and
// gives up on those still unacknowledged after timeout.
func (r *Replica) wait(ctx context.Context, ps []pending, timeout time.Duration, done func(p pending, seq uint64, err error)) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, p := range ps {
		if p.err != nil {
			done(p, 0, p.err)
			continue
		}
		select {
		case a := <-p.ack.Ok():
			done(p, a.Sequence, nil)
		case err := <-p.ack.Err():
			done(p, 0, err)
		case <-t.C:
			done(p, 0, context.DeadlineExceeded)
			t.Reset(0)
		case <-ctx.Done():
			return
		}
	}
}

// renewer renews each lease held when it is due, several times a TTL.
func (r *Replica) renewer(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(r.ttl / renewTicks)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.renewDue(ctx)
	}
}

// renewDue rewrites every lease whose renewal is due and not already in
// flight, each on the revision held, without waiting: the
// acknowledgements are collected apart. A lease whose revision moved was
// lost: its session is closed at once. A renewal that failed otherwise
// is tried again at the next tick.
func (r *Replica) renewDue(ctx context.Context) {
	now := time.Now()
	var due []pending
	// The client's count, claims and renewals given up on but not yet
	// timed out included.
	inFlight := r.leaseJS.PublishAsyncPending()
	r.mu.Lock()
	for d, l := range r.mine {
		if inFlight+len(due) >= maxRenewing {
			break
		}
		if !l.renewing && !now.Before(l.due) {
			l.renewing = true
			due = append(due, pending{device: d, lease: l, rev: l.rev})
		}
	}
	r.mu.Unlock()
	if len(due) == 0 {
		return
	}
	ps := make([]pending, 0, len(due))
	for _, x := range due {
		p := r.publish(x.device, x.rev)
		p.lease = x.lease
		ps = append(ps, p)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		// A lease not renewed within half a TTL is no longer served: an
		// acknowledgement later than that cannot help.
		var lost []string
		r.wait(ctx, ps, r.serveFor, func(p pending, seq uint64, err error) {
			if r.renewed(p, seq, err) {
				lost = append(lost, p.device)
			}
		})
		// Closed once the batch is applied: a slow close must not hold
		// up the acknowledgements behind it.
		r.closeSessions(lost)
	}()
}

// renewed applies one renewal's outcome and reports whether the lease
// was lost with its session open: the caller closes it.
func (r *Replica) renewed(p pending, seq uint64, err error) bool {
	r.mu.Lock()
	l := p.lease
	switch {
	case r.mine[p.device] != l || l.rev != p.rev:
		// Handed back or dropped meanwhile.
		l.renewing = false
	case err == nil:
		l.rev, l.renewed, l.due = seq, p.sent, r.nextRenewal(p.sent, false)
		l.renewing, l.stale = false, false
	case isWrongSeq(err):
		r.mu.Unlock()
		return r.recheck(p.device, l, p.rev)
	default:
		// Not written, or not known to be: tried again at the next tick.
		l.renewing = false
	}
	r.mu.Unlock()
	return false
}

// recheck decides on a lease whose renewal expecting revision rev was
// refused, from the lease bucket as the watch shows it (no round trip: a
// batch of refusals must not hold up the acknowledgements behind it). If
// the key's latest write is this replica's own, past rev (an earlier
// renewal whose acknowledgement was lost, as on a reconnect, went
// through), the lease is still held: it is renewed at once on that
// revision, and served meanwhile from its last acknowledged renewal, which
// was sent earlier. Otherwise the lease is taken as lost (expired, taken
// after its expiry, or not seen yet); recheck reports whether its session
// is open, to be closed at once.
func (r *Replica) recheck(device string, l *lease, rev uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	l.renewing = false
	if r.mine[device] != l || l.rev != rev {
		return false
	}
	if o := r.view[device]; o.instance == r.self && o.rev > rev {
		l.rev, l.due = o.rev, time.Now()
		return false
	}
	r.lapses.Add(1)
	delete(r.mine, device)
	if l.opened {
		r.log.Debug("cluster: lease lost", "replica", r.self, "device", device)
	}
	return l.opened
}

// rebalance hands back the devices this replica is no longer preferred
// for and claims the unowned ones it is preferred for, and any device left
// unowned for a whole TTL whatever its preferred owner.
func (r *Replica) rebalance(ctx context.Context) {
	now := time.Now()
	type claim struct {
		device     string
		rev        uint64
		handedBack bool
	}
	var claims []claim
	giveBack := map[string]*lease{}
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	members := r.membersLocked()
	more := false
	for d, l := range r.mine {
		if len(giveBack) == perRound {
			more = true
			break
		}
		if p := preferred(members, d); r.inventory[d] && (p == r.self || !r.live[p]) {
			continue
		}
		if l.renewing {
			// Its revision is about to move: hand it back next round.
			more = true
			continue
		}
		giveBack[d] = l
	}
	for d := range giveBack {
		delete(r.mine, d)
	}
	for d := range r.inventory {
		o := r.view[d]
		if o.instance != "" || r.mine[d] != nil {
			delete(r.absent, d)
			continue
		}
		since, seen := r.absent[d]
		if !seen {
			since = now
			r.absent[d] = now
		}
		if preferred(members, d) == r.self || now.Sub(since) >= r.ttl {
			if len(claims) == perRound {
				more = true
				continue
			}
			claims = append(claims, claim{d, o.rev, o.handedBack})
		}
	}
	r.mu.Unlock()
	if more {
		defer r.poke() // the rest at the next round
	}

	forEachDevice(maps.Keys(giveBack), func(d string) {
		l := giveBack[d]
		if l.opened {
			r.cfg.Sessions.Close(d)
		}
		if err := r.leases.Delete(ctx, deviceKey(d), jetstream.LastRevision(l.rev)); err != nil {
			r.log.Debug("cluster: hand back", "replica", r.self, "device", d, "err", err)
		}
	})

	handedBack := map[string]bool{}
	for _, c := range claims {
		if c.handedBack {
			handedBack[c.device] = true
		}
	}
	var ps []pending
	var refused []string
	flush := func() {
		// A claim acknowledged late still counts: its lease runs from
		// when it was sent, so only one that cannot be served any more
		// is given up on.
		r.wait(ctx, ps, r.serveFor, func(p pending, seq uint64, err error) {
			if err != nil {
				if isWrongSeq(err) {
					refused = append(refused, p.device)
				}
				return
			}
			r.mu.Lock()
			if r.stopped {
				r.mu.Unlock()
				return
			}
			l := &lease{rev: seq, renewed: p.sent, due: r.nextRenewal(p.sent, true),
				from: p.sent.Add(r.serveFor), opened: handedBack[p.device]}
			r.mine[p.device] = l
			if cur := r.view[p.device]; cur.rev <= seq {
				r.view[p.device] = owner{instance: r.self, rev: seq}
			}
			delete(r.absent, p.device)
			r.mu.Unlock()
			if l.opened {
				r.log.Debug("cluster: lease taken", "replica", r.self, "device", p.device)
				r.cfg.Sessions.Open(p.device)
			}
		})
		ps = ps[:0]
	}
	for _, c := range claims {
		ps = append(ps, r.publish(c.device, c.rev))
		if len(ps) == batch {
			flush()
		}
	}
	flush()
	// Read the refused ones again once the claims taken are recorded: a
	// read in the middle would delay the acknowledgements behind it, and
	// the leases they carry could go stale before being recorded.
	forEachDevice(slices.Values(refused), func(d string) { r.refresh(ctx, d) })
}

// refresh reads device's lease again after a claim on a stale revision
// (an expired delete marker leaves no message and so no watch event).
func (r *Replica) refresh(ctx context.Context, device string) {
	gctx, cancel := context.WithTimeout(ctx, r.serveFor)
	defer cancel()
	e, err := r.leases.Get(gctx, deviceKey(device))
	o := owner{}
	switch {
	case err == nil:
		o = owner{instance: string(e.Value()), rev: e.Revision()}
	case errors.Is(err, jetstream.ErrKeyDeleted) && e != nil:
		o.rev = e.Revision()
		o.handedBack = e.Operation() == jetstream.KeyValueDelete
	case errors.Is(err, jetstream.ErrKeyNotFound):
	default:
		return
	}
	r.mu.Lock()
	r.view[device] = o
	r.mu.Unlock()
}

// isWrongSeq reports a compare-and-set failure: the key's revision was not
// the one expected.
func isWrongSeq(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}
