package controller

import "strings"

// ACLFix is the change the controller's remediation proposes for an ACL
// bound on device's interface iface (egress, else ingress) that drops
// traffic t, read from data (the "data" of a get of PathACL): remove the
// entry that decides t (with the later entries that would drop it next),
// or unbind the ACL when its implicit deny decides; with Fix, its words.
// ok is false when no ACL bound there drops t. The device-to-device agent
// (package agent) proposes its mitigations with it.
func ACLFix(device string, data any, iface string, egress bool, t Traffic) (fix string, ch Change, ok bool) {
	sets, binds := parseACL(data)
	d := &DeviceView{Name: device, ACLs: sets, Bindings: binds}
	for _, f := range droppingACLs(d, iface, t) {
		if f.Binding.Ingress == egress {
			continue
		}
		c := aclCause(f, t, strings.ToLower(t.Protocol)+" traffic")
		if len(c.Changes) > 0 {
			return c.Fix, c.Changes[0], true
		}
	}
	return "", Change{}, false
}

// ACLSequences returns the sequence ids of the entries of ACL set, in
// order, read from data (the "data" of a get of PathACL); nil when data
// holds no such set.
func ACLSequences(data any, set string) []int {
	sets, _ := parseACL(data)
	s := sets[set]
	if s == nil {
		return nil
	}
	seqs := make([]int, len(s.Entries))
	for i, e := range s.Entries {
		seqs[i] = e.Seq
	}
	return seqs
}
