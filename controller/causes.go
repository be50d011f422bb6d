package controller

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/remedy"
)

// nikaName tells whether name is one of NIKA's fault names.
func nikaName(name string) bool {
	s, ok := topology.LookupFault(name)
	return ok && s.NIKA
}

func newCause(name string, devices []string, where, summary string, ev ...Evidence) Cause {
	return Cause{Name: name, NIKA: nikaName(name), Devices: slices.Clone(devices), Where: where, Summary: summary, Evidence: ev}
}

// linkDownCause: a link whose ends are operationally down.
func linkDownCause(l link, ev ...Evidence) Cause {
	c := newCause("link_down", []string{l.A.Device, l.B.Device}, l.String(),
		fmt.Sprintf("The link %s is down: both ends are administratively up but operationally down.", l), ev...)
	c.Fix = fmt.Sprintf("Restore the physical link between %s:%s and %s:%s (cable, optics, the far end's port); no configuration change brings it up.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// endsCause names what keeps a link down from the state of its two ends,
// or reports false when both are up or both were shut down on purpose.
// One end administratively down, its peer up and waiting for it, is
// link_down by that shutdown (NIKA's link_down is `ip link set down` on
// one end); both ends administratively up are read by carrierCause.
func endsCause(l link, a, b *ifaceView, ev ...Evidence) (Cause, bool) {
	switch {
	case a.OperUp && b.OperUp, !a.AdminUp && !b.AdminUp:
		return Cause{}, false
	case a.AdminUp && b.AdminUp:
		return carrierCause(l, a, b, ev...), true
	}
	shut, other, se, oe := a, b, l.A, l.B
	if !b.AdminUp {
		shut, other, se, oe = b, a, l.B, l.A
	}
	c := linkDownCause(l, ev...)
	c.Summary = fmt.Sprintf("The link %s is down: %s:%s is administratively down while %s:%s is up.", l, se.Device, shut.Name, oe.Device, other.Name)
	c.Fix = fmt.Sprintf("Bring %s:%s up again (undo its shutdown), unless the link is being taken out of service.", se.Device, shut.Name)
	return c, true
}

// carrierCause names a link whose ends are both administratively up but
// not both operationally up. With both ends down the link itself carries
// nothing (link_down). With one end down and its peer up, the peer still
// has its carrier: the down end was detached from the link (link_detach
// on the device holding it).
func carrierCause(l link, a, b *ifaceView, ev ...Evidence) Cause {
	switch {
	case !a.OperUp && b.OperUp:
		return detachCause(l, l.A, l.B, ev...)
	case a.OperUp && !b.OperUp:
		return detachCause(l, l.B, l.A, ev...)
	}
	return linkDownCause(l, ev...)
}

// detachCause: the end det of link l has no carrier while its peer's end
// is up: det is detached from the link.
func detachCause(l link, det, peer end, ev ...Evidence) Cause {
	c := newCause("link_detach", []string{det.Device}, det.Device+":"+det.Iface,
		fmt.Sprintf("%s:%s is detached from the link %s: it is administratively up with no carrier, while %s:%s is up and hears nothing from it.", det.Device, det.Iface, l, peer.Device, peer.Iface), ev...)
	c.Fix = fmt.Sprintf("Reattach %s:%s to its link (cable, port, the segment it belongs to); no configuration change brings it up.", det.Device, det.Iface)
	return c
}

// hostPort returns the interface of a host's own view that holds addr,
// else its first non-loopback interface; nil without a readable view.
func hostPort(hv *hostView, addr netip.Addr) *ifaceView {
	if hv == nil || hv.Err != "" {
		return nil
	}
	var first *ifaceView
	for _, it := range hv.Ifaces {
		if it.Loopback || it.Name == "lo" {
			continue
		}
		for _, p := range it.Addrs {
			if p.Addr() == addr {
				return it
			}
		}
		if first == nil {
			first = it
		}
	}
	return first
}

// darkPorts returns a device's interfaces that hold no address (switched
// ports, the parents of subinterfaces) and are not operationally up.
// Behind a VLAN interface, the port a host plugs into is one of the
// device's address-less ports, and its addresses do not tell which.
func darkPorts(d *deviceView) []*ifaceView {
	var out []*ifaceView
	for _, it := range d.Ifaces {
		if !it.Loopback && it.Name != "lo" && len(it.Addrs) == 0 && !it.OperUp && it.OperStatus != "" {
			out = append(out, it)
		}
	}
	return out
}

// lossCause: a link that loses or corrupts packets.
func lossCause(l link, loss float64, errs int64, ev ...Evidence) Cause {
	s := fmt.Sprintf("The link %s loses packets (%.0f%% of the probes across it", l, loss)
	if errs > 0 {
		s += fmt.Sprintf(", %d input errors", errs)
	}
	s += "): packets are corrupted on the link and dropped."
	c := newCause("link_high_packet_corruption", []string{l.A.Device, l.B.Device}, l.String(), s, ev...)
	c.Fix = fmt.Sprintf("Replace the cable or optics of %s:%s — %s:%s and check both ports' error counters afterwards.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// latencyCause: a link whose round trip is far above a link's.
func latencyCause(l link, rtt, limit float64, ev ...Evidence) Cause {
	c := newCause("link_high_latency", []string{l.A.Device, l.B.Device}, l.String(),
		fmt.Sprintf("The link %s delays packets: %.0f ms round trip across one link (above %.0f ms), with no loss.", l, rtt, limit), ev...)
	c.Fix = fmt.Sprintf("Find what delays %s:%s — %s:%s (a shaper, a congested or long-haul circuit) and check the link's delay afterwards.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// throttleCause: a link that drops packets at the sender's queue without
// corrupting any: it is rate-limited.
func throttleCause(l link, loss, rtt float64, ev ...Evidence) Cause {
	s := fmt.Sprintf("The link %s is throttled: %.0f%% of the probes across it are lost with no input errors (round trip %.0f ms): what exceeds its rate waits in its queue, and is dropped once the queue is full.", l, loss, rtt)
	if loss == 0 {
		s = fmt.Sprintf("The link %s is throttled: the probes across it come back after %.0f ms with no input errors, and its delay grows with the packets' size or its senders discard other traffic at their queues.", l, rtt)
	}
	c := newCause("link_bandwidth_throttling", []string{l.A.Device, l.B.Device}, l.String(), s, ev...)
	c.Fix = fmt.Sprintf("Remove the rate limit (shaper, policer, negotiated speed) on %s:%s — %s:%s.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// fragCause: an interface whose operational MTU is below its configured
// one and that does not fragment (the configuration is right; the
// interface is not).
func fragCause(l link, odd end, mtu, configMTU int, ev ...Evidence) Cause {
	c := newCause("link_fragmentation_disabled", []string{odd.Device}, odd.Device+":"+odd.Iface,
		fmt.Sprintf("%s:%s runs with MTU %d although it is configured with %d, and does not fragment: larger packets on the link %s are dropped (or answered 'fragmentation needed' when DF is set).", odd.Device, odd.Iface, mtu, configMTU, l), ev...)
	c.Fix = fmt.Sprintf("Restore MTU %d and fragmentation on %s:%s (the configuration already says %d: re-apply it or check the line card).", configMTU, odd.Device, odd.Iface, configMTU)
	return c
}

// mtuCause: the two ends of a link have different MTUs; odd is the end
// whose MTU differs from the network's usual one.
func mtuCause(l link, odd end, oddMTU, peerMTU, configMTU int, ev ...Evidence) Cause {
	c := newCause("mtu_mismatch", []string{odd.Device}, odd.Device+":"+odd.Iface,
		fmt.Sprintf("MTU mismatch on the link %s: %s:%s has MTU %d, its neighbour %d; packets larger than %d are dropped and OSPF cannot exchange databases.",
			l, odd.Device, odd.Iface, oddMTU, peerMTU, oddMTU), ev...)
	c.Fix = fmt.Sprintf("Set the MTU of %s:%s to %d, as on the other end.", odd.Device, odd.Iface, peerMTU)
	old := configMTU
	if old == 0 {
		old = oddMTU
	}
	c.Changes = []Change{{
		Device:  odd.Device,
		Summary: fmt.Sprintf("MTU of %s from %d to %d", odd.Iface, old, peerMTU),
		Edit: []EditOp{{Operation: "merge", Path: fmt.Sprintf("/openconfig-interfaces:interfaces/interface[name='%s']/config", odd.Iface),
			Value: map[string]any{"mtu": peerMTU}}},
		Diff:  fmt.Sprintf("--- %s running\n+++ %s proposed\n interface %s\n-  mtu %d\n+  mtu %d\n", odd.Device, odd.Device, odd.Iface, old, peerMTU),
		CLI:   []string{"interface " + odd.Iface, fmt.Sprintf(" mtu %d", peerMTU)},
		Cause: "mtu_mismatch",
	}}
	return c
}

// aclCause: an ACL bound on an interface drops traffic of t; its fix is
// remedy's.
func aclCause(f aclFinding, t traffic, what string, ev ...Evidence) Cause {
	entry := fmt.Sprintf("entry %s", f.Entry)
	if f.Entry.Seq == 0 {
		entry = "its implicit deny (no entry permits it)"
	}
	c := newCause(remedy.ACLCauseName(t), []string{f.Device}, fmt.Sprintf("%s:%s %s", f.Device, f.Binding.Iface, f.Binding.Dir()),
		fmt.Sprintf("ACL %s, applied %sbound on %s:%s, drops %s by %s.", f.Binding.Set, f.Binding.Dir(), f.Device, f.Binding.Iface, what, entry), ev...)
	fix, ch := f.Fix(t)
	c.Fix = fix
	c.Changes = []Change{{Device: ch.Device, Summary: ch.Summary, Edit: ch.Edit, Diff: ch.Diff, CLI: ch.CLI, Cause: ch.Cause}}
	return c
}

// ev builds an evidence record of call n.
func (r *run) ev(n int, dev, tool, format string, args ...any) Evidence {
	return Evidence{Call: n, Device: dev, Tool: tool, Showed: fmt.Sprintf(format, args...)}
}
