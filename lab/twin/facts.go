//go:build linux

package twin

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Kinds of facts.
const (
	KindOSPF     = "ospf"      // subject "INTERFACE NEIGHBOUR-ID": the adjacency state
	KindBGPState = "bgp-state" // subject the peer address: the session state
	KindBGPError = "bgp-error" // subject the peer address: the last error's class ("-" when Established)
	KindRoute    = "route"     // subject an IPv4 prefix: "PROTOCOL NEXTHOP[,NEXTHOP]" of the active route
	KindPing     = "ping"      // subject the destination: "ok" or "fail"
	KindTrace    = "trace"     // subject the destination: the hops' addresses, "*" for silent ones
)

// Absent is the value of a fact one lab does not have (an OSPF neighbour
// one side does not see, a route one side lacks).
const Absent = "absent"

// Fact is one answer of a lab.
type Fact struct {
	Kind    string
	Device  string
	Subject string
	Value   string
}

// Key identifies a fact across the two labs: "KIND DEVICE SUBJECT".
func (f Fact) Key() string { return f.Kind + " " + f.Device + " " + f.Subject }

// Facts are a lab's facts by key.
type Facts map[string]Fact

// Add records a fact.
func (fs Facts) Add(kind, device, subject, value string) {
	f := Fact{Kind: kind, Device: device, Subject: subject, Value: value}
	fs[f.Key()] = f
}

// Only returns the facts of the given kinds.
func (fs Facts) Only(kinds ...string) Facts {
	out := Facts{}
	for k, f := range fs {
		if slices.Contains(kinds, f.Kind) {
			out[k] = f
		}
	}
	return out
}

// Row is one fact compared.
type Row struct {
	Fact      // Kind, Device and Subject; Value is unused
	Sim, Real string
	Agree     bool
	Known     *Known // the known difference that explains a disagreement, if any
}

// Report is a comparison: every fact of either lab, sorted by key.
type Report struct {
	// Scenario names what was compared ("baseline", or the faults).
	Scenario string
	Rows     []Row
	// Agree counts the agreeing facts; KnownDiffs the differences a
	// Known entry explains; Differ the others.
	Agree, KnownDiffs, Differ int
}

// Compare compares the two labs' facts; a difference that one of known
// explains is counted apart.
func Compare(scenario string, sim, real Facts, env *Env, known []Known) *Report {
	r := &Report{Scenario: scenario}
	keys := map[string]Fact{}
	for k, f := range sim {
		keys[k] = f
	}
	for k, f := range real {
		keys[k] = f
	}
	for k, f := range keys {
		row := Row{Fact: Fact{Kind: f.Kind, Device: f.Device, Subject: f.Subject}, Sim: Absent, Real: Absent}
		if s, ok := sim[k]; ok {
			row.Sim = s.Value
		}
		if s, ok := real[k]; ok {
			row.Real = s.Value
		}
		row.Agree = row.Sim == row.Real
		if !row.Agree {
			for i := range known {
				if known[i].Match(env, row) {
					row.Known = &known[i]
					break
				}
			}
		}
		switch {
		case row.Agree:
			r.Agree++
		case row.Known != nil:
			r.KnownDiffs++
		default:
			r.Differ++
		}
		r.Rows = append(r.Rows, row)
	}
	slices.SortFunc(r.Rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)), cmp.Compare(a.Device, b.Device), cmp.Compare(a.Subject, b.Subject))
	})
	return r
}

// kindOrder sorts the table: control plane first, then forwarding.
func kindOrder(k string) int {
	return slices.Index([]string{KindOSPF, KindBGPState, KindBGPError, KindRoute, KindPing, KindTrace}, k)
}

// OK tells whether every difference is a known one.
func (r *Report) OK() bool { return r.Differ == 0 }

// Print writes the table (every fact with both values and a verdict:
// "=" agree, "known:ID" a known difference, "DIFFER") and the counts.
func (r *Report) Print(w io.Writer, all bool) {
	fmt.Fprintf(w, "twin check: %s\n", r.Scenario)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tDEVICE\tSUBJECT\tSIMULATED\tREAL\tVERDICT")
	for _, row := range r.Rows {
		verdict := "="
		switch {
		case row.Agree:
			if !all {
				continue
			}
		case row.Known != nil:
			verdict = "known:" + row.Known.ID
		default:
			verdict = "DIFFER"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", row.Kind, row.Device, row.Subject, orDash(row.Sim), orDash(row.Real), verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "%s: %d facts: %d agree, %d known differences, %d undocumented differences\n",
		r.Scenario, len(r.Rows), r.Agree, r.KnownDiffs, r.Differ)
	var seen []string
	for _, row := range r.Rows {
		if k := row.Known; k != nil && !slices.Contains(seen, k.ID) {
			seen = append(seen, k.ID)
			fmt.Fprintf(w, "  known:%s: %s\n", k.ID, k.Reason)
		}
	}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
