package agent

import (
	"fmt"
	"sort"

	"github.com/netmcp/netmcp/agent/report"
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

// rankFindings orders findings by cause (a filter explains loss better
// than the wire), keeping the order within a cause.
func rankFindings(fs []report.Finding) []report.Finding {
	sort.SliceStable(fs, func(i, j int) bool { return causeRank[fs[i].Cause] < causeRank[fs[j].Cause] })
	return fs
}
