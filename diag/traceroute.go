package diag

import "strings"

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

// ParseTraceroute parses traceroute or traceroute6 output. Output with
// neither a "traceroute to" header nor a hop line is rejected.
func ParseTraceroute(text string) (*TracerouteResult, error) {
	res := &TracerouteResult{Hops: []TracerouteHop{}, Warnings: []string{}, Unrecognized: []string{}}
	all := splitLines(text)
	lines := make([]string, 0, len(all))
	for _, l := range all {
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
		if name, ip, ok := tracerouteDest(h); ok {
			res.DestinationName, res.DestinationIP = strp(name), strp(ip)
		}
		if hops, size, ok := tracerouteLimits(h); ok {
			res.MaxHops, res.PacketBytes = toInt(hops), toInt(size)
		}
		if src, ok := tracerouteFrom(h); ok {
			res.SourceIP = strp(src)
		}
		lines = lines[1:]
	}
	var hop *TracerouteHop
	for _, line := range lines {
		if line == "" {
			continue
		}
		num, rest, ok := scanTracerouteHop(line)
		if !ok || (num == "" && hop == nil) {
			if strings.TrimSpace(line) != "" {
				res.Unrecognized = append(res.Unrecognized, line)
			}
			continue
		}
		if num != "" {
			res.Hops = append(res.Hops, TracerouteHop{Hop: toInt(num), Probes: []TracerouteProbe{}})
			hop = &res.Hops[len(res.Hops)-1]
		}
		probes, stars := traceProbes(rest)
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
		case isASN(t):
			cur.ASN = toInt(t)
			lastWasRTT, blankBefore = false, true
		case i+1 < len(toks) && isParenIP(toks[i+1]):
			ip, _ := parenIP(toks[i+1])
			cur.Name, cur.IP = strp(t), strp(ip)
			i++
			lastWasRTT, blankBefore = false, true
		case isTraceIPv4(t) || (isTraceIPv6(t) && strings.Count(t, ":") >= 2):
			cur.IP = strp(t)
			lastWasRTT, blankBefore = false, true
		case i+1 < len(toks) && toks[i+1] == "ms" && endsInDigit(t):
			rtt, _ := traceRTT(t)
			i++
			probe(toFloat(rtt))
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
