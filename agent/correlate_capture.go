package agent

import (
	"fmt"
	"slices"
	"sort"

	"github.com/netmcp/netmcp/d2d/report"
)

// point is one place a probe stream is counted: the echo requests seen
// leaving (Dir "out") or arriving on (Dir "in") interface If of Dev, whose
// link leads to Peer.
type point struct {
	Dev, If, Dir, Peer string
	// Seen is the number of the stream's echo requests the capture shows;
	// Measured is false when the capture could not be made.
	Seen     int
	Measured bool
	Ev       int
}

// stream is the echo requests of one ping, from From (address Src) to
// To (address Dst), counted at the points it crosses in path order.
type stream struct {
	From, To, Src, Dst string
	// Sent is the number of echo requests the ping sent.
	Sent     int
	Points   []point
	Evidence []int
}

// direction is the link direction a point lies on.
func (p point) direction() string {
	if p.Dir == "out" {
		return p.Dev + "->" + p.Peer
	}
	return p.Peer + "->" + p.Dev
}

func (p point) where() string {
	if p.Dir == "out" {
		return fmt.Sprintf("leaving %s %s toward %s", p.Dev, p.If, p.Peer)
	}
	return fmt.Sprintf("arriving on %s %s from %s", p.Dev, p.If, p.Peer)
}

// captureRules are the draft's capture rules, on each stream: walking its
// points in path order, the first point that sees none of the echo
// requests the previous one saw (capture-silent) or fewer of them
// (capture-gap) places the drop between the two: on the link when the
// previous point is the link's other end, inside the device when the two
// points are the device's own interfaces (or the ping's origin).
func captureRules(streams []stream) []report.Finding {
	var out []report.Finding
	for _, s := range streams {
		prev, prevWhere := s.Sent, fmt.Sprintf("%s's ping sent", s.From)
		prevDev := s.From
		for _, p := range s.Points {
			if !p.Measured {
				break
			}
			if p.Seen >= prev || prev == 0 {
				prev, prevWhere, prevDev = p.Seen, "the capture "+p.where()+" showed", p.Dev
				continue
			}
			ev := append(append([]int(nil), s.Evidence...), p.Ev)
			inDevice := prevDev == p.Dev
			f := report.Finding{Direction: p.direction(), Evidence: ev}
			lost := prev - p.Seen
			switch {
			case inDevice:
				f.Device, f.Interface, f.Cause = p.Dev, p.If, "drop-in-device"
				f.Statement = fmt.Sprintf("%s %d echo requests from %s to %s; a capture %s shows %d: %d dropped inside %s (forwarding or an egress filter), the drop is before the %s link",
					prevWhere, prev, s.Src, s.Dst, p.where(), p.Seen, lost, p.Dev, p.direction())
			case p.Seen == 0:
				f.Device, f.Interface, f.Cause = p.Peer, "", "drop-before"
				f.Statement = fmt.Sprintf("%s %d echo requests from %s to %s; a capture %s shows none of them: the drop is before %s, on the %s link",
					prevWhere, prev, s.Src, s.Dst, p.where(), p.Dev, p.direction())
			default:
				f.Device, f.Interface, f.Cause = p.Peer, "", "link-loss"
				f.Statement = fmt.Sprintf("%s %d echo requests from %s to %s; a capture %s shows %d: %d lost on the %s link, before %s",
					prevWhere, prev, s.Src, s.Dst, p.where(), p.Seen, lost, p.direction(), p.Dev)
			}
			f.Rule = "capture-gap"
			if p.Seen == 0 {
				f.Rule = "capture-silent"
			}
			out = append(out, f)
			break
		}
	}
	return out
}

// firstDrop returns the first point of s that saw fewer of its echo
// requests than the point before it (or than were sent), and how many the
// previous point saw; ok is false when none did.
func (s stream) firstDrop() (p point, prev int, prevDev string, ok bool) {
	prev, prevDev = s.Sent, s.From
	for _, p := range s.Points {
		if !p.Measured {
			return point{}, 0, "", false
		}
		if p.Seen >= prev || prev == 0 {
			prev, prevDev = p.Seen, p.Dev
			continue
		}
		return p, prev, prevDev, true
	}
	return point{}, 0, "", false
}

// egressDropRule works from the captures alone, for devices whose filters
// count nothing (Linux: an nftables or tc drop is in no interface
// counter). When device X's own echo requests toward Y (its link ping)
// and the ones it forwards toward Y (the head-to-tail probes) both vanish
// between X and the wire of its interface toward Y, what drops them acts
// on the way out of that interface, after forwarding: an egress filter.
// Either kind alone stays the capture rules' drop-in-device.
func egressDropRule(streams []stream) []report.Finding {
	type at struct{ dev, ifName, peer string }
	type seen struct {
		local, transit       bool
		lost, prev           int
		evidence             []int
		localWhat, transWhat string
	}
	drops := map[at]*seen{}
	var order []at
	reverseLossy := map[string]bool{} // directions where some stream lost probes
	for _, s := range streams {
		p, prev, prevDev, ok := s.firstDrop()
		if !ok {
			continue
		}
		reverseLossy[p.direction()] = true
		if p.Dir != "out" || prevDev != p.Dev {
			continue
		}
		k := at{p.Dev, p.If, p.Peer}
		d := drops[k]
		if d == nil {
			d = &seen{}
			drops[k] = d
			order = append(order, k)
		}
		what := fmt.Sprintf("%d of %d echo requests from %s to %s", prev-p.Seen, prev, s.Src, s.Dst)
		if s.From == p.Dev {
			d.local, d.localWhat = true, what
		} else {
			d.transit, d.transWhat = true, what
		}
		d.lost, d.prev = d.lost+prev-p.Seen, d.prev+prev
		d.evidence = append(append(d.evidence, s.Evidence...), p.Ev)
	}
	var out []report.Finding
	for _, k := range order {
		d := drops[k]
		if !d.local || !d.transit {
			continue
		}
		other := "clean"
		if reverseLossy[k.peer+"->"+k.dev] {
			other = "also lossy"
		}
		out = append(out, report.Finding{Rule: "capture-egress-drop", Device: k.dev, Interface: k.ifName, Direction: k.dev + "->" + k.peer,
			Cause: "egress-filter", Evidence: uniqInts(d.evidence),
			Statement: fmt.Sprintf("%s's own probes (%s) and the probes it forwards (%s) never left %s toward %s (its capture of that interface); the reverse direction %s: a filter on the way out of %s %s (an egress ACL, e.g. nftables)",
				k.dev, d.localWhat, d.transWhat, k.ifName, k.peer, other, k.dev, k.ifName)})
	}
	return out
}

// uniqInts returns the distinct values of xs in increasing order.
func uniqInts(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// rankFindings orders findings by cause (a filter explains loss better
// than the wire), keeping the order within a cause.
func rankFindings(fs []report.Finding) []report.Finding {
	sort.SliceStable(fs, func(i, j int) bool { return causeRank[fs[i].Cause] < causeRank[fs[j].Cause] })
	return fs
}
