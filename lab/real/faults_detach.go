//go:build linux

package real

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/netmcp/netmcp/lab/topology"
)

// link_detach on the real lab: the target end's cable is pulled out of its
// segment. A veth pair has no carrier switch (an end loses its carrier
// only when its peer is shut, which is link_down), so the link's pair is
// replaced by two, each with its peer in the stub namespace:
//
//   - the target end's new peer stays down, so the target end is
//     administratively up with no carrier (NO-CARRIER, lower layer down);
//   - the far end's new peer is up, so the far end stays up at both
//     levels and hears nothing: no LLDP neighbour, no hellos, no replies.
//
// This is the simulator's link_detach. Clearing deletes both and builds
// the original pair again with the names, MAC addresses and MTUs the ends
// had, configured as Up configured them.

// detachedLink is a link replaced by link_detach, with what clearing
// needs to build it again.
type detachedLink struct {
	link       *planLink
	macA, macB net.HardwareAddr
	mtuA, mtuB int
}

// detach applies link_detach.
func (l *Lab) detach(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	lk := l.linkOf(i)
	if lk == nil {
		return fmt.Errorf("link_detach: %s is on no link of the lab", f.Target)
	}
	l.mu.Lock()
	switch {
	case l.closed:
		l.mu.Unlock()
		return errors.New("link_detach: the lab is closed")
	case l.detached[lk] != nil:
		l.mu.Unlock()
		return fmt.Errorf("link_detach: the link of %s is detached already", f.Target)
	case l.impaired(lk):
		l.mu.Unlock()
		return fmt.Errorf("link_detach: the link of %s carries a flap, rate limit or delay fault; clear it first (detaching replaces the link's interfaces)", f.Target)
	}
	dl := &detachedLink{link: lk}
	if l.detached == nil {
		l.detached = map[*planLink]*detachedLink{}
	}
	l.detached[lk] = dl // reserved; removed again if detaching fails
	l.mu.Unlock()

	stub, err := l.stubNS()
	if err == nil {
		err = l.unplug(dl, i, stub)
	}
	if err != nil {
		// Build the original pair again rather than leave the link half
		// rewired with no fault recorded to clear it.
		if perr := l.plug(dl); perr != nil {
			err = errors.Join(err, fmt.Errorf("restoring the link: %w", perr))
		}
		l.mu.Lock()
		delete(l.detached, lk)
		l.mu.Unlock()
		return fmt.Errorf("link_detach %s:%s: %w", d.Dev.Name, i.Topo, err)
	}
	return nil
}

// reattach clears link_detach: the original pair is built again and the
// adjacencies form with the bring-up timers.
func (l *Lab) reattach(ctx context.Context, f topology.Fault) error {
	_, i, err := l.target(f)
	if err != nil {
		return err
	}
	lk := l.linkOf(i)
	l.mu.Lock()
	dl := l.detached[lk]
	l.mu.Unlock()
	if lk == nil || dl == nil {
		return fmt.Errorf("link_detach: the link of %s is not detached", f.Target)
	}
	if err := l.plug(dl); err != nil {
		return fmt.Errorf("link_detach %s: %w", f.Target, err)
	}
	l.mu.Lock()
	delete(l.detached, lk)
	l.mu.Unlock()
	return l.fastAdjacencies(ctx, 15*time.Second)
}

// linkOf returns the link whose end i is, or nil.
func (l *Lab) linkOf(i *planIface) *planLink {
	for k := range l.plan.Links {
		if lk := &l.plan.Links[k]; lk.AI == i || lk.BI == i {
			return lk
		}
	}
	return nil
}

// impaired tells whether a fault that holds a link's interfaces (a flap,
// a rate limit's load, a delayer) is under way on either end of lk. The
// caller holds l.mu.
func (l *Lab) impaired(lk *planLink) bool {
	for _, e := range []struct {
		d *planDevice
		i *planIface
	}{{lk.A, lk.AI}, {lk.B, lk.BI}} {
		key := e.d.Dev.Name + ":" + e.i.Topo
		if l.flaps[key] != nil || l.loads[key] != nil || l.delays[key] != nil {
			return true
		}
	}
	return false
}

// unplug records each end's MAC and MTU, deletes the pair and gives each
// end a new peer in stub: down for target (no carrier), up for the far
// end (carrier, nothing behind it). Each end is then configured as Up did.
func (l *Lab) unplug(dl *detachedLink, target *planIface, stub netns.NsHandle) error {
	lk := dl.link
	if err := l.inNetlink(lk.A, func(nl *netlink.Handle) error {
		a, err := nl.LinkByName(lk.AI.Linux)
		if err != nil {
			return err
		}
		dl.macA, dl.mtuA = a.Attrs().HardwareAddr, a.Attrs().MTU
		return nil
	}); err != nil {
		return fmt.Errorf("%s:%s: %w", lk.A.Dev.Name, lk.AI.Topo, err)
	}
	if err := l.inNetlink(lk.B, func(nl *netlink.Handle) error {
		b, err := nl.LinkByName(lk.BI.Linux)
		if err != nil {
			return err
		}
		dl.macB, dl.mtuB = b.Attrs().HardwareAddr, b.Attrs().MTU
		// Deleting one end of a veth pair deletes both.
		return nl.LinkDel(b)
	}); err != nil {
		return fmt.Errorf("%s:%s: %w", lk.B.Dev.Name, lk.BI.Topo, err)
	}
	ends := []struct {
		d   *planDevice
		i   *planIface
		mac net.HardwareAddr
		mtu int
	}{{lk.A, lk.AI, dl.macA, dl.mtuA}, {lk.B, lk.BI, dl.macB, dl.mtuB}}
	for _, e := range ends {
		peer := l.nextStubName()
		err := l.inNetlink(e.d, func(nl *netlink.Handle) error {
			if err := nl.LinkAdd(&netlink.Veth{
				LinkAttrs:     netlink.LinkAttrs{Name: e.i.Linux, HardwareAddr: e.mac, MTU: e.mtu},
				PeerName:      peer,
				PeerNamespace: netlink.NsFd(int(stub)),
			}); err != nil {
				return err
			}
			return configureEnd(nl, e.d, e.i, e.mtu)
		})
		if err != nil {
			return fmt.Errorf("%s:%s: %w", e.d.Dev.Name, e.i.Topo, err)
		}
		if e.i == target {
			continue // its peer stays down: no carrier
		}
		snl, err := netlink.NewHandleAt(stub)
		if err != nil {
			return fmt.Errorf("netlink in %s: %w", l.plan.StubNS, err)
		}
		p, err := snl.LinkByName(peer)
		if err == nil {
			err = snl.LinkSetUp(p)
		}
		snl.Close()
		if err != nil {
			return fmt.Errorf("stub peer %s of %s:%s: %w", peer, e.d.Dev.Name, e.i.Topo, err)
		}
	}
	return nil
}

// plug deletes whatever each end of the link is now (a stub pair, or
// nothing) and builds the original pair again, configured as Up did, with
// the MAC addresses and MTUs recorded when it was detached (the plan's
// when none were recorded).
func (l *Lab) plug(dl *detachedLink) error {
	lk := dl.link
	var errs []error
	for _, e := range []struct {
		d *planDevice
		i *planIface
	}{{lk.A, lk.AI}, {lk.B, lk.BI}} {
		errs = append(errs, l.inNetlink(e.d, func(nl *netlink.Handle) error {
			link, err := nl.LinkByName(e.i.Linux)
			if err != nil {
				var nf netlink.LinkNotFoundError
				if errors.As(err, &nf) {
					return nil
				}
				return err
			}
			return nl.LinkDel(link)
		}))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	macA, macB := dl.macA, dl.macB
	if macA == nil {
		macA = lk.AI.MAC
	}
	if macB == nil {
		macB = lk.BI.MAC
	}
	bns, err := netns.GetFromPath(filepath.Join(netnsDir, lk.B.NS))
	if err != nil {
		return fmt.Errorf("namespace %s: %w", lk.B.NS, err)
	}
	defer bns.Close()
	if err := l.inNetlink(lk.A, func(nl *netlink.Handle) error {
		veth := &netlink.Veth{
			LinkAttrs:     netlink.LinkAttrs{Name: lk.AI.Linux, HardwareAddr: macA, MTU: dl.mtuA},
			PeerName:      lk.BI.Linux,
			PeerNamespace: netlink.NsFd(int(bns)),
		}
		if macB != nil {
			veth.PeerHardwareAddr = macB
		}
		if err := nl.LinkAdd(veth); err != nil {
			return err
		}
		return configureEnd(nl, lk.A, lk.AI, dl.mtuA)
	}); err != nil {
		return fmt.Errorf("%s:%s: %w", lk.A.Dev.Name, lk.AI.Topo, err)
	}
	if err := l.inNetlink(lk.B, func(nl *netlink.Handle) error { return configureEnd(nl, lk.B, lk.BI, dl.mtuB) }); err != nil {
		return fmt.Errorf("%s:%s: %w", lk.B.Dev.Name, lk.BI.Topo, err)
	}
	return nil
}

// configureEnd configures a re-created link end as Up did (alias, master,
// addresses, admin state) and puts back the MTU it had, when known (an
// mtu_mismatch under way stays).
func configureEnd(nl *netlink.Handle, d *planDevice, i *planIface, mtu int) error {
	if err := configureIface(nl, d, i); err != nil {
		return err
	}
	if mtu <= 0 {
		return nil
	}
	link, err := nl.LinkByName(i.Linux)
	if err == nil && link.Attrs().MTU != mtu {
		err = nl.LinkSetMTU(link, mtu)
	}
	return err
}

// stubNS opens the namespace that holds the peers of interfaces with no
// cable, creating it the first time when the plan needed none.
func (l *Lab) stubNS() (netns.NsHandle, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if h, ok := l.handles.ns[l.plan.StubNS]; ok {
		return h, nil
	}
	h, err := newNamedNS(l.plan.StubNS)
	if err != nil {
		return h, err
	}
	l.nsMade = append(l.nsMade, l.plan.StubNS)
	l.handles.ns[l.plan.StubNS] = h
	if err := setSysctls(h, nsSysctls); err != nil {
		return h, fmt.Errorf("namespace %s: %w", l.plan.StubNS, err)
	}
	return h, nil
}

// nextStubName is a fresh name for a detached end's peer in the stub
// namespace.
func (l *Lab) nextStubName() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.detachSeq++
	return fmt.Sprintf("dt%d", l.detachSeq)
}
