//go:build linux

package real

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/florianl/go-nfqueue"
	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"
	"github.com/mdlayher/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// link_high_latency on the real lab. The kernel has no netem, nor
// nftables' own "queue" statement (CONFIG_NFT_QUEUE is off), but it has
// nfnetlink_queue and xtables' NFQUEUE target, which nftables reaches
// through nft_compat. So each delayed direction is an nftables table in
// the sending end's namespace whose postrouting chain sends every packet
// leaving by that interface (forwarded and locally made: OSPF hellos, BGP
// keepalives, pings) to an NFQUEUE; a consumer in the lab process, bound
// to that queue inside the namespace, holds each packet for the delay and
// then accepts it, in the order it came. The `nft` command cannot write an
// xtables target, so the table is built over netlink (google/nftables).
//
// No bypass: without a bound consumer the kernel drops what the rule
// queues instead of letting it through undelayed. A consumer that dies
// while the fault is on thus cuts the link (the routing protocols and
// pings show it at once) rather than silently ending the fault, and its
// error is kept and returned when the fault is cleared. Clearing deletes
// the table first, so nothing is queued any more, then releases what is
// held and closes the socket: a dead consumer cannot wedge the link after
// a clear.

// delayQueueLen bounds the packets a queue holds (the kernel drops beyond
// it, as netem's default limit of 1000 packets does): 200 ms of the
// throttling fault's load is about 4 packets, of a ping flood a few
// hundred.
const delayQueueLen = 4096

// delayer delays what one interface of a namespace sends.
type delayer struct {
	ns     netns.NsHandle
	ifname string
	table  string
	delay  time.Duration
	jitter time.Duration

	nf     *nfqueue.Nfqueue
	cancel context.CancelFunc
	held   chan heldPacket
	flush  chan struct{} // closed by stop: release what is held now
	done   chan struct{} // closed when the releaser has ended

	onFail func(error) // told the consumer's first error (the lab logs it)

	mu  sync.Mutex
	err error // the first error of the consumer, if any
}

// heldPacket is a queued packet and when to release it.
type heldPacket struct {
	id  uint32
	due time.Time
}

// startDelayer loads the queueing rule into namespace ns for interface
// ifname (table name table, queue num) and starts its consumer. The
// consumer is bound before the rule exists, so no packet is queued
// without one. onFail is told the consumer's first error, when it dies.
func startDelayer(ns netns.NsHandle, ifname, table string, num uint16, delay, jitter time.Duration, onFail func(error)) (*delayer, error) {
	nf, err := nfqueue.Open(&nfqueue.Config{
		NetNS:       int(ns),
		NfQueue:     num,
		MaxQueueLen: delayQueueLen,
		Copymode:    nfqueue.NfQnlCopyMeta, // the verdict needs only the id
		// GSO: the kernel queues a veth's large segments whole
		// instead of cutting them up first.
		Flags:        nfqueue.NfQaCfgFlagGSO,
		AfFamily:     unix.AF_INET,
		WriteTimeout: time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("link_high_latency: opening NFQUEUE %d: %w", num, err)
	}
	// The kernel must not drop queued packets because this socket's
	// buffer is full; ENOBUFS is then not reported.
	_ = nf.SetOption(netlink.NoENOBUFS, true)
	ctx, cancel := context.WithCancel(context.Background())
	d := &delayer{ns: ns, ifname: ifname, table: table, delay: delay, jitter: jitter, nf: nf, cancel: cancel, onFail: onFail,
		held: make(chan heldPacket, delayQueueLen), flush: make(chan struct{}), done: make(chan struct{})}
	var last time.Time
	hook := func(a nfqueue.Attribute) int {
		if a.PacketID == nil {
			return 0
		}
		due := time.Now().Add(d.delay)
		if d.jitter > 0 {
			due = due.Add(time.Duration((2*rand.Float64() - 1) * float64(d.jitter)))
		}
		if due.Before(last) {
			due = last // the order is kept, as on a link
		}
		last = due
		select {
		case d.held <- heldPacket{*a.PacketID, due}:
		default:
			// Cannot happen: the kernel holds at most delayQueueLen.
			d.fail(nf.SetVerdict(*a.PacketID, nfqueue.NfAccept))
		}
		return 0
	}
	errf := func(err error) int {
		if ctx.Err() != nil {
			return 1 // stop's cancel interrupts the receive
		}
		// A timeout, a full buffer and ENOENT are not the consumer's
		// death: ENOENT is the kernel's answer to a verdict for a packet
		// it no longer holds (its queue entry went with a rule or a
		// device changed while the packet waited here), which a loaded
		// machine's late release makes happen; the packet is gone
		// either way.
		var oe *netlink.OpError
		if errors.As(err, &oe) && (oe.Timeout() || errors.Is(oe.Err, unix.ENOBUFS) || errors.Is(oe.Err, unix.ENOENT)) {
			return 0
		}
		d.fail(fmt.Errorf("link_high_latency: NFQUEUE %d: %w", num, err))
		return 1
	}
	if err := nf.RegisterWithErrorFunc(ctx, hook, errf); err != nil {
		cancel()
		nf.Close()
		return nil, fmt.Errorf("link_high_latency: binding NFQUEUE %d: %w", num, err)
	}
	go d.release()
	if err := d.addRule(num); err != nil {
		d.stop()
		return nil, err
	}
	return d, nil
}

// fail keeps the consumer's first error.
func (d *delayer) fail(err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	first := d.err == nil
	if first {
		d.err = err
	}
	d.mu.Unlock()
	if first && d.onFail != nil {
		d.onFail(err)
	}
}

// release accepts each held packet when it is due, in order; once stop
// closes flush it accepts what is held at once and ends.
func (d *delayer) release() {
	defer close(d.done)
	for {
		select {
		case p := <-d.held:
			if w := time.Until(p.due); w > 0 {
				t := time.NewTimer(w)
				select {
				case <-t.C:
				case <-d.flush:
					t.Stop()
					d.accept(p)
					d.drain()
					return
				}
			}
			d.accept(p)
		case <-d.flush:
			d.drain()
			return
		}
	}
}

// accept lets a held packet go on.
func (d *delayer) accept(p heldPacket) {
	d.fail(d.nf.SetVerdict(p.id, nfqueue.NfAccept))
}

// drain accepts every packet held now.
func (d *delayer) drain() {
	for {
		select {
		case p := <-d.held:
			d.accept(p)
		default:
			return
		}
	}
}

// addRule creates the delayer's table: a postrouting chain sending what
// leaves by the interface to NFQUEUE num (xtables' target, revision 3,
// through nft_compat). The table is inet, so IPv4 and IPv6 are both
// delayed.
func (d *delayer) addRule(num uint16) error {
	c, err := nftables.New(nftables.WithNetNSFd(int(d.ns)))
	if err != nil {
		return fmt.Errorf("link_high_latency: nftables: %w", err)
	}
	t := c.AddTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: d.table})
	accept := nftables.ChainPolicyAccept
	ch := c.AddChain(&nftables.Chain{Name: "postrouting", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookPostrouting, Priority: nftables.ChainPriorityFilter, Policy: &accept})
	ifn := make([]byte, unix.IFNAMSIZ)
	copy(ifn, d.ifname)
	// struct xt_NFQ_info_v3 { __u16 queuenum, queues_total, flags; },
	// padded to 8 bytes; no NFQ_FLAG_BYPASS (see above).
	info := make(xt.Unknown, 8)
	binary.NativeEndian.PutUint16(info[0:], num)
	binary.NativeEndian.PutUint16(info[2:], 1)
	c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: []expr.Any{
		&expr.Meta{Key: expr.MetaKeyOIFNAME, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ifn},
		&expr.Counter{},
		&expr.Target{Name: "NFQUEUE", Rev: 3, Info: &info},
	}})
	if err := c.Flush(); err != nil {
		return fmt.Errorf("link_high_latency: loading table %s: %w", d.table, err)
	}
	return nil
}

// delRule deletes the delayer's table (nothing when it is gone).
func (d *delayer) delRule() error {
	c, err := nftables.New(nftables.WithNetNSFd(int(d.ns)))
	if err != nil {
		return fmt.Errorf("link_high_latency: nftables: %w", err)
	}
	c.DelTable(&nftables.Table{Family: nftables.TableFamilyINet, Name: d.table})
	if err := c.Flush(); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("link_high_latency: deleting table %s: %w", d.table, err)
	}
	return nil
}

// stop deletes the rule, releases the held packets and closes the
// consumer; it returns the rule's deletion error and the consumer's own.
func (d *delayer) stop() error {
	rerr := d.delRule()
	// Packets queued just before the deletion reach the consumer a
	// moment later; let them come, then release everything.
	time.Sleep(20 * time.Millisecond)
	close(d.flush)
	<-d.done
	d.cancel()
	// Close waits for the library's goroutines, which the cancel ends;
	// it is bounded all the same, so that no consumer wedges a clear or
	// the lab's Close.
	closed := make(chan error, 1)
	go func() { closed <- d.nf.Close() }()
	var cerr error
	select {
	case cerr = <-closed:
		if d.failed() {
			cerr = nil // closing a consumer that died fails too: its own error says why
		}
	case <-time.After(3 * time.Second):
		cerr = fmt.Errorf("link_high_latency: the consumer of %s did not stop", d.ifname)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return errors.Join(rerr, d.err, cerr)
}

// failed tells whether the consumer has failed.
func (d *delayer) failed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err != nil
}
