package controller

import (
	"fmt"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
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
func linkDownCause(l Link, ev ...Evidence) Cause {
	c := newCause("link_down", []string{l.A.Device, l.B.Device}, l.String(),
		fmt.Sprintf("The link %s is down: both ends are administratively up but operationally down.", l), ev...)
	c.Fix = fmt.Sprintf("Restore the physical link between %s:%s and %s:%s (cable, optics, the far end's port); no configuration change brings it up.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// lossCause: a link that loses or corrupts packets.
func lossCause(l Link, loss float64, errs int64, ev ...Evidence) Cause {
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
func latencyCause(l Link, rtt, limit float64, ev ...Evidence) Cause {
	c := newCause("link_high_latency", []string{l.A.Device, l.B.Device}, l.String(),
		fmt.Sprintf("The link %s delays packets: %.0f ms round trip across one link (above %.0f ms), with no loss.", l, rtt, limit), ev...)
	c.Fix = fmt.Sprintf("Find what delays %s:%s — %s:%s (a shaper, a congested or long-haul circuit) and check the link's delay afterwards.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// throttleCause: a link that drops packets at the sender's queue without
// corrupting any: it is rate-limited.
func throttleCause(l Link, loss, rtt float64, ev ...Evidence) Cause {
	s := fmt.Sprintf("The link %s is throttled: %.0f%% of the probes across it are lost with no input errors, the senders discard at their queues (round trip %.0f ms).", l, loss, rtt)
	if loss == 0 {
		s = fmt.Sprintf("The link %s is throttled: the probes across it come back after %.0f ms with no input errors, and the senders discard other traffic at their queues.", l, rtt)
	}
	c := newCause("link_bandwidth_throttling", []string{l.A.Device, l.B.Device}, l.String(), s, ev...)
	c.Fix = fmt.Sprintf("Remove the rate limit (shaper, policer, negotiated speed) on %s:%s — %s:%s.", l.A.Device, l.A.Iface, l.B.Device, l.B.Iface)
	return c
}

// fragCause: an interface whose operational MTU is below its configured
// one and that does not fragment (the configuration is right; the
// interface is not).
func fragCause(l Link, odd End, mtu, configMTU int, ev ...Evidence) Cause {
	c := newCause("link_fragmentation_disabled", []string{odd.Device}, odd.Device+":"+odd.Iface,
		fmt.Sprintf("%s:%s runs with MTU %d although it is configured with %d, and does not fragment: larger packets on the link %s are dropped (or answered 'fragmentation needed' when DF is set).", odd.Device, odd.Iface, mtu, configMTU, l), ev...)
	c.Fix = fmt.Sprintf("Restore MTU %d and fragmentation on %s:%s (the configuration already says %d: re-apply it or check the line card).", configMTU, odd.Device, odd.Iface, configMTU)
	return c
}

// mtuCause: the two ends of a link have different MTUs; odd is the end
// whose MTU differs from the network's usual one.
func mtuCause(l Link, odd End, oddMTU, peerMTU, configMTU int, ev ...Evidence) Cause {
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

// aclCause: an ACL bound on an interface drops traffic of t.
func aclCause(f aclFinding, t Traffic, what string, ev ...Evidence) Cause {
	name := aclCauseName(t)
	entry := fmt.Sprintf("entry %s", f.Entry)
	if f.Entry.Seq == 0 {
		entry = "its implicit deny (no entry permits it)"
	}
	c := newCause(name, []string{f.Device}, fmt.Sprintf("%s:%s %s", f.Device, f.Binding.Iface, f.Binding.Dir()),
		fmt.Sprintf("ACL %s, applied %sbound on %s:%s, drops %s by %s.", f.Binding.Set, f.Binding.Dir(), f.Device, f.Binding.Iface, what, entry), ev...)
	typ := f.Binding.Type
	if typ == "" {
		typ = "ACL_IPV4"
	}
	setPath := fmt.Sprintf("/openconfig-acl:acl/acl-sets/acl-set[name='%s'][type='%s']", f.Binding.Set, typ)
	if f.Entry.Seq > 0 {
		entries := append([]ACLEntry{f.Entry}, f.Also...)
		var seqs, words, diff, cli []string
		var ops []EditOp
		for _, e := range entries {
			seqs = append(seqs, fmt.Sprint(e.Seq))
			words = append(words, e.String())
			diff = append(diff, "-  "+e.String())
			cli = append(cli, fmt.Sprintf(" undo rule %d", e.Seq))
			ops = append(ops, EditOp{Operation: "delete", Path: fmt.Sprintf("%s/acl-entries/acl-entry[sequence-id='%d']", setPath, e.Seq)})
		}
		noun := "entry"
		if len(entries) > 1 {
			noun = "entries"
		}
		c.Fix = fmt.Sprintf("Remove %s %s (%s) from ACL %s on %s.", noun, strings.Join(seqs, ", "), strings.Join(words, "; "), f.Binding.Set, f.Device)
		c.Changes = []Change{{
			Device:  f.Device,
			Summary: fmt.Sprintf("remove %s %s of ACL %s", noun, strings.Join(seqs, ", "), f.Binding.Set),
			Edit:    ops,
			Diff:    fmt.Sprintf("--- %s running\n+++ %s proposed\n acl %s\n%s\n", f.Device, f.Device, f.Binding.Set, strings.Join(diff, "\n")),
			CLI:     append([]string{"acl " + f.Binding.Set}, cli...),
			Cause:   name,
		}}
		return c
	}
	dir := "ingress"
	if !f.Binding.Ingress {
		dir = "egress"
	}
	c.Fix = fmt.Sprintf("Unbind ACL %s from %s:%s (%s).", f.Binding.Set, f.Device, f.Binding.Iface, f.Binding.Dir())
	c.Changes = []Change{{
		Device:  f.Device,
		Summary: fmt.Sprintf("unbind ACL %s from %s %s", f.Binding.Set, f.Binding.Iface, f.Binding.Dir()),
		Edit: []EditOp{{Operation: "delete", Path: fmt.Sprintf("/openconfig-acl:acl/interfaces/interface[id='%s']/%s-acl-sets/%s-acl-set[set-name='%s'][type='%s']",
			f.Binding.Iface, dir, dir, f.Binding.Set, typ)}},
		Diff:  fmt.Sprintf("--- %s running\n+++ %s proposed\n interface %s\n-  acl %s %s\n", f.Device, f.Device, f.Binding.Iface, f.Binding.Set, f.Binding.Dir()),
		Cause: name,
	}}
	return c
}

// ev builds an evidence record of call n.
func (r *run) ev(n int, dev, tool, format string, args ...any) Evidence {
	return Evidence{Call: n, Device: dev, Tool: tool, Showed: fmt.Sprintf(format, args...)}
}
