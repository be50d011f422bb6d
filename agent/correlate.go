package agent

import (
	"fmt"
	"sort"

	"github.com/netmcp/netmcp/d2d/report"
)

// hop is one direction of a link on the path, measured by the counters of
// the sending interface (From, FromIf) and the receiving one (To, ToIf)
// before and after the probes, and the ping from From to To.
type hop struct {
	From, FromIf, To, ToIf string
	// Pos is the link's position on the path (0 = first link).
	Pos                   int
	FromBefore, FromAfter ifState
	ToBefore, ToAfter     ifState
	// PingLoss is the loss percent of From's ping to To (round trip), -1
	// when not measured.
	PingLoss float64
	// Evidence are the indexes of the signed results used.
	Evidence []int
	// ProbesIntact is set when the captures at both ends show every echo
	// request of From's ping to To: the probes crossed intact, so a
	// counter gap is background traffic counted between the two reads.
	ProbesIntact bool
}

// CounterSlack is the gap between what one end sent and the other
// received that the counter-gap rule ignores: the two ends' counters are
// read a moment apart, and background traffic crossing in that moment is
// counted at one end only (a few packets at most).
const CounterSlack = 2

// dir is what crossed a hop's direction during the probes.
type dir struct {
	Sent, Received                  uint64 // out-pkts of the sender, in-pkts of the receiver
	EgressDiscards, IngressDiscards uint64
	InErrors                        uint64
	Lost                            uint64 // sent but neither received, discarded nor errored at the receiver
}

// delta is b - a; ok is false when the counter went backwards (cleared
// during the run), which leaves the direction without evidence.
func delta(a, b uint64, ok *bool) uint64 {
	if b < a {
		*ok = false
		return 0
	}
	return b - a
}

// stats returns what crossed the hop, or ok false when a counter was
// reset in between.
func (h hop) stats() (d dir, ok bool) {
	ok = true
	d = dir{Sent: delta(h.FromBefore.OutPkts, h.FromAfter.OutPkts, &ok), Received: delta(h.ToBefore.InPkts, h.ToAfter.InPkts, &ok),
		EgressDiscards: delta(h.FromBefore.OutDiscards, h.FromAfter.OutDiscards, &ok), IngressDiscards: delta(h.ToBefore.InDiscards, h.ToAfter.InDiscards, &ok),
		InErrors: delta(h.ToBefore.InErrors, h.ToAfter.InErrors, &ok)}
	if acc := d.Received + d.IngressDiscards + d.InErrors; d.Sent > acc {
		d.Lost = d.Sent - acc
	}
	return d, ok
}

// Rule priorities: a filter explains loss better than the wire.
var causeRank = map[string]int{"egress-filter": 0, "ingress-filter": 1, "link-corruption": 2, "link-loss": 3, "drop-in-device": 4, "drop-before": 4, "not-measured": 5}

// correlate applies the deterministic rules to every measured direction.
// hops come in pairs (A->B, B->A) so each rule can say whether the other
// direction is clean. The primary hypothesis is the first finding.
func correlate(hops []hop) []report.Finding {
	type key struct{ from, to string }
	byDir := map[key]dir{}
	var out []report.Finding
	pos := map[string]int{}
	for _, h := range hops {
		d, ok := h.stats()
		if !ok {
			out = append(out, report.Finding{Rule: "counters-reset", Device: h.From, Interface: h.FromIf, Direction: h.From + "->" + h.To, Cause: "not-measured",
				Statement: fmt.Sprintf("a counter of %s %s or %s %s went backwards during the run (cleared): the %s->%s direction has no evidence", h.From, h.FromIf, h.To, h.ToIf, h.From, h.To),
				Evidence:  h.Evidence})
			pos["counters-reset"+h.From+"->"+h.To] = h.Pos
			continue
		}
		byDir[key{h.From, h.To}] = d
	}
	for _, h := range hops {
		d, measured := byDir[key{h.From, h.To}]
		if !measured {
			continue
		}
		rev, hasRev := byDir[key{h.To, h.From}]
		other := "not measured"
		if hasRev {
			other = "clean"
			// The same slack as the counter-gap rule: traffic crossing
			// between the two ends' reads is no loss.
			if rev.EgressDiscards+rev.IngressDiscards+rev.InErrors > 0 || rev.Lost > CounterSlack {
				other = "also lossy"
			}
		}
		arrow := h.From + "->" + h.To
		ping := ""
		if h.PingLoss >= 0 {
			ping = fmt.Sprintf("; %s's ping to %s lost %.4g%% (round trip)", h.From, h.To, h.PingLoss)
		}
		add := func(f report.Finding) {
			f.Direction, f.Evidence = arrow, h.Evidence
			out = append(out, f)
			pos[f.Rule+arrow] = h.Pos
		}
		if d.EgressDiscards > 0 {
			add(report.Finding{Rule: "egress-discards", Device: h.From, Interface: h.FromIf, Cause: "egress-filter",
				Statement: fmt.Sprintf("%s discarded %d of %d packets leaving %s toward %s (out-discards), the reverse direction %s: an egress ACL on %s %s%s",
					h.From, d.EgressDiscards, d.EgressDiscards+d.Sent, h.FromIf, h.To, other, h.From, h.FromIf, ping)})
		}
		if d.IngressDiscards > 0 {
			add(report.Finding{Rule: "ingress-discards", Device: h.To, Interface: h.ToIf, Cause: "ingress-filter",
				Statement: fmt.Sprintf("%s discarded %d packets arriving on %s from %s (in-discards), the reverse direction %s: an ingress ACL on %s %s%s",
					h.To, d.IngressDiscards, h.ToIf, h.From, other, h.To, h.ToIf, ping)})
		}
		if d.InErrors > 0 {
			add(report.Finding{Rule: "receive-errors", Device: h.From, Interface: h.FromIf, Cause: "link-corruption",
				Statement: fmt.Sprintf("%s received %d corrupted packets on %s from %s (in-errors), the reverse direction %s: the %s link is corrupting in that direction%s",
					h.To, d.InErrors, h.ToIf, h.From, other, arrow, ping)})
		}
		if d.Lost > CounterSlack && !h.ProbesIntact {
			add(report.Finding{Rule: "counter-gap", Device: h.From, Interface: h.FromIf, Cause: "link-loss",
				Statement: fmt.Sprintf("loss %.3g%% in the %s direction (%s sent %d packets on %s, %s received %d on %s), the reverse direction %s: the %s link or %s's egress%s",
					100*float64(d.Lost)/float64(d.Sent), arrow, h.From, d.Sent, h.FromIf, h.To, d.Received, h.ToIf, other, arrow, h.From, ping)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := causeRank[out[i].Cause], causeRank[out[j].Cause]
		if ri != rj {
			return ri < rj
		}
		return pos[out[i].Rule+out[i].Direction] < pos[out[j].Rule+out[j].Direction]
	})
	return out
}
