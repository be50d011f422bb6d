package remedy

import (
	"fmt"
	"strings"
)

// PathACL is the YANG path of a device's ACLs (openconfig-acl), whose
// "data" ParseACL reads.
const PathACL = "/openconfig-acl:acl"

// ConfirmWindow is the rollback window of the confirmed commit of a
// remediation, in seconds: the device rolls the change back by itself if
// whoever applied it dies before confirming it.
const ConfirmWindow = 120

// Change is a concrete change to one device: a YANG edit with its CLI
// equivalent in words and a diff.
type Change struct {
	Device  string   `json:"device"`
	Summary string   `json:"summary"`
	Edit    []EditOp `json:"edit"`
	Diff    string   `json:"diff"`
	CLI     []string `json:"cli,omitempty"`
	// Cause is the NIKA name of the fault the change removes.
	Cause string `json:"cause,omitempty"`
}

// EditOp is one operation of network.yang.edit.
type EditOp struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Value     any    `json:"value,omitempty"`
}

// Fix is the remediation of f for traffic t, in words and as a change:
// remove the entry that decides t with the later entries that would drop
// it next, or unbind the ACL when its implicit deny decides.
func (f ACLFinding) Fix(t Traffic) (fix string, ch Change) {
	name := ACLCauseName(t)
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
		fix = fmt.Sprintf("Remove %s %s (%s) from ACL %s on %s.", noun, strings.Join(seqs, ", "), strings.Join(words, "; "), f.Binding.Set, f.Device)
		return fix, Change{
			Device:  f.Device,
			Summary: fmt.Sprintf("remove %s %s of ACL %s", noun, strings.Join(seqs, ", "), f.Binding.Set),
			Edit:    ops,
			Diff:    fmt.Sprintf("--- %s running\n+++ %s proposed\n acl %s\n%s\n", f.Device, f.Device, f.Binding.Set, strings.Join(diff, "\n")),
			CLI:     append([]string{"acl " + f.Binding.Set}, cli...),
			Cause:   name,
		}
	}
	dir := "ingress"
	if !f.Binding.Ingress {
		dir = "egress"
	}
	fix = fmt.Sprintf("Unbind ACL %s from %s:%s (%s).", f.Binding.Set, f.Device, f.Binding.Iface, f.Binding.Dir())
	return fix, Change{
		Device:  f.Device,
		Summary: fmt.Sprintf("unbind ACL %s from %s %s", f.Binding.Set, f.Binding.Iface, f.Binding.Dir()),
		Edit: []EditOp{{Operation: "delete", Path: fmt.Sprintf("/openconfig-acl:acl/interfaces/interface[id='%s']/%s-acl-sets/%s-acl-set[set-name='%s'][type='%s']",
			f.Binding.Iface, dir, dir, f.Binding.Set, typ)}},
		Diff:  fmt.Sprintf("--- %s running\n+++ %s proposed\n interface %s\n-  acl %s %s\n", f.Device, f.Device, f.Binding.Iface, f.Binding.Set, f.Binding.Dir()),
		Cause: name,
	}
}

// ACLFix is the change proposed for an ACL bound on device's interface
// iface (egress, else ingress) that drops traffic t, read from data (the
// "data" of a get of PathACL), with its words (ACLFinding.Fix). ok is
// false when no ACL bound there drops t.
func ACLFix(device string, data any, iface string, egress bool, t Traffic) (fix string, ch Change, ok bool) {
	sets, binds := ParseACL(data)
	for _, f := range DroppingACLs(device, sets, binds, iface, t) {
		if f.Binding.Ingress == egress {
			continue
		}
		fix, ch = f.Fix(t)
		return fix, ch, true
	}
	return "", Change{}, false
}

// ACLSequences returns the sequence ids of the entries of ACL set, in
// order, read from data (the "data" of a get of PathACL); nil when data
// holds no such set.
func ACLSequences(data any, set string) []int {
	sets, _ := ParseACL(data)
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
