package diag

import (
	"strings"

	"github.com/netmcp/netmcp/internal/lazyre"
)

// TracerouteResult is a parsed traceroute or traceroute6 run (Linux, BSD,
// macOS). Its JSON is jc's traceroute schema plus extras.
type TracerouteResult struct {
	DestinationIP   *string         `json:"destination_ip"`
	DestinationName *string         `json:"destination_name"`
	Hops            []TracerouteHop `json:"hops"`

	// Extras from the header: the source address ("from ..."), the hop
	// limit and the probe packet size.
	SourceIP    *string `json:"source_ip"`
	MaxHops     *int    `json:"max_hops"`
	PacketBytes *int    `json:"packet_bytes"`
	// Warnings are the "traceroute: Warning: ..." lines.
	Warnings     []string `json:"warnings"`
	Unrecognized []string `json:"unrecognized_lines"`
}

// TracerouteHop is one TTL step.
type TracerouteHop struct {
	Hop    *int              `json:"hop"`
	Probes []TracerouteProbe `json:"probes"`
	// Timeouts counts the "*" probes, which jc leaves out (extra).
	Timeouts int `json:"timeouts"`
}

// TracerouteProbe is one answered probe.
type TracerouteProbe struct {
	Annotation *string  `json:"annotation"` // !H !N !P !X !S !F-N !<n> ...
	ASN        *int     `json:"asn"`
	IP         *string  `json:"ip"`
	Name       *string  `json:"name"`
	RTT        *float64 `json:"rtt"`
}

var (
	reTrHeader  = lazyre.New(`(\S+)\s+\((\d+\.\d+\.\d+\.\d+|[0-9a-fA-F:]+)\)`)
	reTrLimits  = lazyre.New(`(\d+) hops max, (\d+) byte packets`)
	reTrFrom    = lazyre.New(` from (\S+?),`)
	reTrHop     = lazyre.New(`^\s*(\d+)?\s+(.+)$`)
	reTrASN     = lazyre.New(`^\[AS(\d+)\]$`)
	reTrIPv4    = lazyre.New(`^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$`)
	reTrIPv6    = lazyre.New(`^[0-9a-fA-F]*:[0-9a-fA-F:]*[0-9a-fA-F]$`)
	reTrParenIP = lazyre.New(`^\((\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|[0-9a-fA-F:]+)\)+$`)
	reTrRTT     = lazyre.New(`\d+(?:\.?\d+)?$`)
)

// ParseTraceroute parses traceroute or traceroute6 output. Output with
// neither a "traceroute to" header nor a hop line is rejected.
func ParseTraceroute(text string) (*TracerouteResult, error) {
	res := &TracerouteResult{Hops: []TracerouteHop{}, Warnings: []string{}, Unrecognized: []string{}}
	var lines []string
	for _, l := range splitLines(text) {
		if strings.Contains(l, "traceroute: Warning: ") || strings.Contains(l, "traceroute6: Warning: ") {
			res.Warnings = append(res.Warnings, l)
			continue
		}
		lines = append(lines, l)
	}
	header := false
	if len(lines) > 0 && (strings.HasPrefix(lines[0], "traceroute to ") || strings.HasPrefix(lines[0], "traceroute6 to ")) {
		header = true
		h := lines[0]
		if m := reTrHeader.Re().FindStringSubmatch(h); m != nil {
			res.DestinationName, res.DestinationIP = strp(m[1]), strp(m[2])
		}
		if m := reTrLimits.Re().FindStringSubmatch(h); m != nil {
			res.MaxHops, res.PacketBytes = toInt(m[1]), toInt(m[2])
		}
		if m := reTrFrom.Re().FindStringSubmatch(h); m != nil {
			res.SourceIP = strp(m[1])
		}
		lines = lines[1:]
	}
	var hop *TracerouteHop
	for _, line := range lines {
		if line == "" {
			continue
		}
		m := reTrHop.Re().FindStringSubmatch(line)
		if m == nil || (m[1] == "" && hop == nil) {
			if strings.TrimSpace(line) != "" {
				res.Unrecognized = append(res.Unrecognized, line)
			}
			continue
		}
		if m[1] != "" {
			res.Hops = append(res.Hops, TracerouteHop{Hop: toInt(m[1]), Probes: []TracerouteProbe{}})
			hop = &res.Hops[len(res.Hops)-1]
		}
		probes, stars := traceProbes(m[2])
		hop.Timeouts += stars
		for _, p := range probes {
			if p.IP == nil && len(hop.Probes) > 0 {
				last := hop.Probes[len(hop.Probes)-1]
				p.IP, p.Name = last.IP, last.Name
			}
			hop.Probes = append(hop.Probes, p)
		}
	}
	if !header && len(res.Hops) == 0 {
		return nil, parseErr("traceroute", `no "traceroute to" header and no hop lines`)
	}
	return res, nil
}

// traceProbes reads the probes of one hop line (without the hop number):
// addresses ("name (ip)", bare IPv4 or IPv6), "[ASn]" and "<rtt> ms" or
// "*" each followed by an optional "!X" annotation. An RTT right after
// another RTT repeats the previous probe's address. Like jc, a "*" counts
// as a probe only when it has surrounding blanks not taken by the
// previous RTT, and a probe with no data is left out; stars counts every
// "*".
func traceProbes(s string) (probes []TracerouteProbe, stars int) {
	toks := strings.Fields(s)
	trailingBlank := strings.TrimRight(s, " \t") != s
	var cur, last TracerouteProbe
	lastWasRTT := false
	blankBefore := false // whether the blank before the token is still free
	var i int
	// probe ends a probe with rtt (nil for "*") and the optional "!X"
	// annotation after toks[i]; an RTT right after another RTT repeats the
	// previous probe's address.
	probe := func(rtt *float64) {
		p := cur
		if lastWasRTT {
			p = last
		}
		p.RTT, p.Annotation = rtt, nil
		blankBefore = false
		if i+1 < len(toks) && strings.HasPrefix(toks[i+1], "!") {
			p.Annotation = strp(toks[i+1])
			i++
			blankBefore = true
		}
		if p.IP != nil || p.ASN != nil || p.Annotation != nil || p.RTT != nil || p.Name != nil {
			probes = append(probes, p)
		}
		last, cur, lastWasRTT = p, TracerouteProbe{}, true
	}
	for i = 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case reTrASN.Re().MatchString(t):
			cur.ASN = toInt(t)
			lastWasRTT, blankBefore = false, true
		case i+1 < len(toks) && reTrParenIP.Re().MatchString(toks[i+1]):
			cur.Name = strp(t)
			cur.IP = strp(reTrParenIP.Re().FindStringSubmatch(toks[i+1])[1])
			i++
			lastWasRTT, blankBefore = false, true
		case reTrIPv4.Re().MatchString(t) || (reTrIPv6.Re().MatchString(t) && strings.Count(t, ":") >= 2):
			cur.IP = strp(t)
			lastWasRTT, blankBefore = false, true
		case i+1 < len(toks) && toks[i+1] == "ms" && reTrRTT.Re().MatchString(t):
			i++
			probe(toFloat(reTrRTT.Re().FindString(t)))
		case t == "*":
			stars++
			blankAfter := i+1 < len(toks) || trailingBlank
			if !blankBefore || !blankAfter {
				// jc's pattern needs blanks on both sides: not a probe.
				blankBefore = true
				continue
			}
			probe(nil)
		default:
			lastWasRTT, blankBefore = false, true
		}
	}
	return probes, stars
}
