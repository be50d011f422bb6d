package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// batch bounds the asynchronous publishes in flight per round.
const batch = 256

// perRound bounds the claims and the hand-backs of one rebalance round.
// The loop renews the leases between rounds, and a lease not renewed
// within half a TTL of its claim is dropped: a round that claimed (or
// handed back) thousands of devices on a loaded machine could outlast
// that and drop every lease it took, again and again.
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
			if e == nil {
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

// watchdog stops serving every device whose lease has gone half a TTL
// without a successful renewal, well before the server can expire it.
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
			switch {
			case now.Sub(l.renewed) >= r.serveFor:
				if l.opened {
					stale = append(stale, d)
				}
				delete(r.mine, d)
			case !l.opened && !now.Before(l.from):
				l.opened = true
				ready = append(ready, d)
			}
		}
		r.mu.Unlock()
		for _, d := range stale {
			r.log.Debug("cluster: lease not renewed, stop serving", "replica", r.self, "device", d)
			r.cfg.Sessions.Close(d)
		}
		for _, d := range ready {
			r.log.Debug("cluster: lease taken", "replica", r.self, "device", d)
			r.cfg.Sessions.Open(d)
		}
	}
}

// loop renews the presence and the leases every quarter TTL, and
// rebalances after each renewal and whenever a lease or member changes.
func (r *Replica) loop(ctx context.Context) {
	defer r.wg.Done()
	renew := time.NewTicker(r.ttl / 4)
	defer renew.Stop()
	for {
		r.rebalance(ctx)
		r.announceIfChanged(ctx)
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			r.renew(ctx)
		case <-r.kick:
			// Let a burst of changes settle into one round.
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			// A renewal due goes before the next round.
			select {
			case <-renew.C:
				r.renew(ctx)
			default:
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
}

// publish writes device's lease with the TTL, expecting revision expect,
// without waiting for the acknowledgement.
func (r *Replica) publish(device string, expect uint64) pending {
	p := pending{device: device, sent: time.Now()}
	m := &nats.Msg{Subject: kvSubject(r.leases, deviceKey(device)), Data: []byte(r.self)}
	p.ack, p.err = r.js.PublishMsgAsync(m,
		jetstream.WithMsgTTL(r.ttl),
		jetstream.WithExpectLastSequencePerSubject(expect))
	return p
}

// wait collects the acknowledgements of ps, calling done for each.
func (r *Replica) wait(ctx context.Context, ps []pending, done func(p pending, seq uint64, err error)) {
	// A write acknowledged late still counts: its lease runs from when it
	// was sent, so only one that cannot help any more is given up on.
	timeout := time.NewTimer(r.ttl)
	defer timeout.Stop()
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
		case <-timeout.C:
			done(p, 0, context.DeadlineExceeded)
			timeout.Reset(0)
		case <-ctx.Done():
			return
		}
	}
}

// renew rewrites presence and every lease held, each on its revision. A
// lease whose revision moved was lost: its session is closed at once.
func (r *Replica) renew(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, r.serveFor)
	err := r.announce(pctx)
	cancel()
	if err != nil {
		r.log.Debug("cluster: presence not renewed", "replica", r.self, "err", err)
	}
	r.mu.Lock()
	held := make(map[string]uint64, len(r.mine))
	for d, l := range r.mine {
		held[d] = l.rev
	}
	r.mu.Unlock()
	var ps []pending
	flush := func() {
		r.wait(ctx, ps, func(p pending, seq uint64, err error) {
			var lost bool
			r.mu.Lock()
			l := r.mine[p.device]
			switch {
			case l == nil || l.rev != held[p.device]:
			case err == nil:
				l.rev, l.renewed = seq, p.sent
			case isWrongSeq(err):
				delete(r.mine, p.device)
				lost = l.opened
			}
			r.mu.Unlock()
			if lost {
				r.log.Debug("cluster: lease lost", "replica", r.self, "device", p.device)
				r.cfg.Sessions.Close(p.device)
			}
		})
		ps = ps[:0]
	}
	for d, rev := range held {
		ps = append(ps, r.publish(d, rev))
		if len(ps) == batch {
			flush()
		}
	}
	flush()
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
		if !r.inventory[d] {
			giveBack[d] = l
			continue
		}
		if p := preferred(members, d); p != r.self && r.live[p] {
			giveBack[d] = l
		}
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
		defer r.poke() // the rest at the next round, after a renewal if one is due
	}

	sem := make(chan struct{}, handBackParallel)
	var wg sync.WaitGroup
	for d, l := range giveBack {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if l.opened {
				r.cfg.Sessions.Close(d)
			}
			if err := r.leases.Delete(ctx, deviceKey(d), jetstream.LastRevision(l.rev)); err != nil {
				r.log.Debug("cluster: hand back", "replica", r.self, "device", d, "err", err)
			}
		}()
	}
	wg.Wait()

	handedBack := map[string]bool{}
	for _, c := range claims {
		if c.handedBack {
			handedBack[c.device] = true
		}
	}
	var ps []pending
	flush := func() {
		r.wait(ctx, ps, func(p pending, seq uint64, err error) {
			if err != nil {
				if isWrongSeq(err) {
					r.refresh(ctx, p.device)
				}
				return
			}
			r.mu.Lock()
			if r.stopped {
				r.mu.Unlock()
				return
			}
			l := &lease{rev: seq, renewed: p.sent, from: p.sent.Add(r.serveFor), opened: handedBack[p.device]}
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
