package diag

import (
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/internal/lazyre"
)

var (
	rePingLinuxTimeout = lazyre.New(`^(?:\[(\d+(?:\.\d+)?)\] )?no answer yet for icmp_seq=(\d+)`)
	rePingLinuxFrom    = lazyre.New(`^(?:\[(\d+(?:\.\d+)?)\] )?From (\S+?)(?: \(([^()\s]+)\))?:? icmp_seq=(\d+) (.*)$`)
	rePingBSDError     = lazyre.New(`^(\d+) bytes from (?:(\S+) \(([^()\s]+)\)|([^\s,]+?))[:,] (.*)$`)
	rePingMTU          = lazyre.New(`mtu ?= ?(\d+)`)
	rePingFromSource   = lazyre.New(` from (\S+?)(?: \S+)? ?: `)
)

// pingKind says what one line of ping output was.
type pingKind int

const (
	pkNone         pingKind = iota // blank, skipped or consumed silently
	pkHeader                       // the PING line
	pkResponse                     // a reply, timeout, unparsable or BSD error response
	pkICMPError                    // a Linux "From ..." error (extra)
	pkStats                        // the packets transmitted line
	pkRTT                          // the round-trip line: the summary is complete
	pkUnrecognized                 // nothing understood
)

// pingParser is the line state machine shared by ParsePing and PingStream.
type pingParser struct {
	res        PingResult
	header     bool
	linux      bool
	footer     bool
	pendingHex int // index of a BSD error response awaiting its IP header dump, or -1
	lastResp   *PingResponse
	lastErr    *PingICMPError
}

func newPingParser() *pingParser {
	return &pingParser{pendingHex: -1, res: PingResult{Responses: []PingResponse{}, ICMPErrors: []PingICMPError{}, Unrecognized: []string{}}}
}

// ParsePing parses the output of ping or ping6 (iputils, BusyBox, FreeBSD,
// macOS) into jc's ping schema plus extras. Output without a "PING" header
// line is rejected.
func ParsePing(text string) (*PingResult, error) {
	p := newPingParser()
	for _, line := range splitLines(text) {
		p.feed(line)
	}
	if !p.header {
		return nil, parseErr("ping", `no "PING" header line`)
	}
	p.finish()
	return &p.res, nil
}

// finish applies jc's BSD duplicate rule: a response whose icmp_seq was
// already seen is a duplicate.
func (p *pingParser) finish() {
	if p.linux {
		return
	}
	seen := map[int]bool{}
	for i := range p.res.Responses {
		r := &p.res.Responses[i]
		if r.ICMPSeq == nil {
			continue
		}
		r.Duplicate = seen[*r.ICMPSeq]
		seen[*r.ICMPSeq] = true
	}
}

func (p *pingParser) feed(line string) pingKind {
	p.lastResp, p.lastErr = nil, nil
	if strings.TrimSpace(line) == "" {
		return pkNone
	}
	if !p.header {
		switch {
		case strings.HasPrefix(line, "PATTERN: "):
			if _, v, ok := strings.Cut(strings.TrimSpace(line), ": "); ok {
				p.res.Pattern = strp(v)
			}
			return pkNone
		case strings.HasPrefix(line, "WARNING: "):
			return pkNone
		case strings.HasPrefix(line, "PING6("):
			p.header = true
			p.parseBSD6Header(line)
			return pkHeader
		case strings.HasPrefix(line, "PING "):
			p.header = true
			p.linux = isLinuxPingHeader(line)
			if p.linux {
				p.res.Format = "linux"
				p.parseLinuxHeader(line)
			} else {
				p.res.Format = "bsd"
				p.parseBSDHeader(line)
			}
			return pkHeader
		}
		p.res.Unrecognized = append(p.res.Unrecognized, line)
		return pkUnrecognized
	}
	if strings.HasPrefix(line, "---") {
		p.footer = true
		if dest, ok := statsDestination(line); ok {
			p.res.Destination = strOrNil(dest)
		} else if f := strings.Fields(line); len(f) > 1 {
			p.res.Destination = strp(f[1])
		}
		return pkNone
	}
	if p.footer {
		if strings.Contains(line, "packets transmitted") {
			p.parseStats(line)
			return pkStats
		}
		if _, v, ok := strings.Cut(line, " = "); ok {
			p.parseRTT(v)
			return pkRTT
		}
		p.res.Unrecognized = append(p.res.Unrecognized, line)
		return pkUnrecognized
	}
	if p.linux {
		return p.feedLinux(line)
	}
	return p.feedBSD(line)
}

// isLinuxPingHeader tells iputils headers from BSD/BusyBox ones:
// BSD prints "PING host (addr): 56 data bytes".
func isLinuxPingHeader(h string) bool {
	if strings.Contains(h, "bytes of data") || strings.Contains(h, " from ") {
		return true
	}
	_, _, bsd := scanBSDHeader(h)
	return !bsd
}

func (p *pingParser) parseLinuxHeader(h string) {
	body := h
	if size, start, ok := scanDataBytes(h); ok {
		p.res.DataBytes = toInt(size)
		body = h[:start]
	}
	if i := strings.Index(body, " from "); i >= 0 {
		if m := rePingFromSource.Re().FindStringSubmatch(body[i:] + " "); m != nil {
			p.res.SourceIP = strp(strings.TrimSuffix(m[1], ":"))
		}
		body = body[:i]
	}
	if addr, ok := lastParenAddr(body); ok {
		p.res.DestinationIP = strp(addr)
	} else if f := strings.Fields(body); len(f) > 1 {
		p.res.DestinationIP = strp(f[1])
	}
}

func (p *pingParser) parseBSDHeader(h string) {
	if addr, size, ok := scanBSDHeader(h); ok {
		p.res.DestinationIP = strp(addr)
		p.res.DataBytes = toInt(size)
		return
	}
	f := strings.Fields(h)
	if len(f) > 2 {
		p.res.DestinationIP = strp(strings.TrimRight(strings.TrimLeft(f[2], "("), ":)"))
	}
	if len(f) > 3 {
		p.res.DataBytes = toInt(f[3])
	}
}

func (p *pingParser) parseBSD6Header(h string) {
	p.res.Format = "bsd"
	if size, src, dst, ok := scanBSD6Header(h); ok {
		p.res.DataBytes = toInt(size)
		p.res.SourceIP = strp(src)
		p.res.DestinationIP = strp(dst)
	}
}

func (p *pingParser) parseStats(line string) {
	zero := 0
	p.res.Duplicates = &zero
	for _, part := range strings.Split(line, ",") {
		f := strings.Fields(part)
		if len(f) < 2 {
			continue
		}
		switch {
		case strings.HasSuffix(part, "transmitted"):
			p.res.PacketsTransmitted = toInt(f[0])
		case strings.HasSuffix(part, "received"):
			p.res.PacketsReceived = toInt(f[0])
		case f[1] == "duplicates":
			p.res.Duplicates = toInt(f[0])
		case f[1] == "errors":
			p.res.Errors = toInt(f[0])
		case f[1] == "corrupted":
			p.res.Corrupted = toInt(f[0])
		case strings.HasSuffix(part, "packet loss"):
			p.res.PacketLossPercent = toFloat(f[0])
		case f[0] == "time":
			p.res.TimeMs = toFloat(strings.TrimSuffix(f[1], "ms"))
		}
	}
}

func (p *pingParser) parseRTT(v string) {
	v = strings.TrimSpace(v)
	v, _, _ = strings.Cut(v, " ")
	vals := strings.Split(v, "/")
	ptr := []**float64{&p.res.RoundTripMsMin, &p.res.RoundTripMsAvg, &p.res.RoundTripMsMax, &p.res.RoundTripMsStddev}
	for i, dst := range ptr {
		if i < len(vals) {
			*dst = toFloat(vals[i])
		}
	}
}

func (p *pingParser) addResponse(r PingResponse) pingKind {
	p.res.Responses = append(p.res.Responses, r)
	p.lastResp = &p.res.Responses[len(p.res.Responses)-1]
	return pkResponse
}

func (p *pingParser) addICMPError(e PingICMPError) pingKind {
	p.res.ICMPErrors = append(p.res.ICMPErrors, e)
	p.lastErr = &p.res.ICMPErrors[len(p.res.ICMPErrors)-1]
	return pkICMPError
}

func (p *pingParser) unparsable(line, chars string) pingKind {
	raw := line
	return p.addResponse(PingResponse{Type: "unparsable_line", UnparsedLine: strp(spaced(line, chars)), Line: &raw})
}

func (p *pingParser) feedLinux(line string) pingKind {
	// Each expression is tried only on lines holding its literal text, so
	// that a file without such lines never compiles it.
	if strings.Contains(line, "no answer yet for icmp_seq=") {
		if m := rePingLinuxTimeout.Re().FindStringSubmatch(line); m != nil {
			return p.addResponse(PingResponse{Type: "timeout", Timestamp: toFloat(m[1]), ICMPSeq: toInt(m[2])})
		}
	}
	if strings.Contains(line, " bytes from ") {
		m, ok := scanLinuxReply(line)
		if !ok {
			return p.unparsable(line, "()=")
		}
		ip := m.from
		if _, addr, ok := splitNameIP(ip); ok {
			ip = addr
		}
		return p.addResponse(PingResponse{
			Type: "reply", Timestamp: toFloat(m.timestamp), Bytes: toInt(m.bytes), ResponseIP: strp(ip),
			ICMPSeq: toInt(m.seq), TTL: toInt(m.ttl), TimeMs: toFloat(m.time),
			Duplicate: strings.Contains(line, "DUP!"),
		})
	}
	if !strings.Contains(line, "icmp_seq=") {
		p.res.Unrecognized = append(p.res.Unrecognized, line)
		return pkUnrecognized
	}
	if m := rePingLinuxFrom.Re().FindStringSubmatch(line); m != nil {
		e := PingICMPError{Timestamp: toFloat(m[1]), ICMPSeq: toInt(m[4]), Message: strings.TrimSpace(m[5])}
		if m[3] != "" {
			e.ResponseName, e.ResponseIP = strp(m[2]), strp(m[3])
		} else {
			e.ResponseIP = strp(m[2])
		}
		e.Type = anyErrorType(m[5])
		if e.Type == "" {
			e.Type = "icmp_error"
		}
		if mm := rePingMTU.Re().FindStringSubmatch(m[5]); mm != nil {
			e.MTU = toInt(mm[1])
		}
		return p.addICMPError(e)
	}
	p.res.Unrecognized = append(p.res.Unrecognized, line)
	return pkUnrecognized
}

func (p *pingParser) feedBSD(line string) pingKind {
	if p.pendingHex >= 0 {
		if strings.HasPrefix(line, "Vr") {
			return pkNone
		}
		idx := p.pendingHex
		p.pendingHex = -1
		if fillHexHeader(&p.res.Responses[idx], line) {
			return pkNone
		}
	}
	if !ipv6In(line) {
		if seq, ok := scanBSDTimeout(line); ok {
			return p.addResponse(PingResponse{Type: "timeout", ICMPSeq: toInt(seq)})
		}
		if code := jcErrorType(line); code != "" {
			r := PingResponse{Type: code}
			if f := strings.Fields(line); len(f) > 0 {
				r.Bytes = toInt(f[0])
			}
			if m := rePingBSDError.Re().FindStringSubmatch(line); m != nil {
				r.ResponseIP = strp(m[3] + m[4])
			}
			p.addResponse(r)
			p.pendingHex = len(p.res.Responses) - 1
			return pkResponse
		}
		if strings.Contains(line, " bytes from ") {
			return p.bsdReply(line, ":=")
		}
	} else if strings.Contains(line, " bytes from ") {
		return p.bsdReply(line, ",=")
	}
	if isHexHeaderLine(line) {
		return pkNone
	}
	p.res.Unrecognized = append(p.res.Unrecognized, line)
	return pkUnrecognized
}

func (p *pingParser) bsdReply(line, mangle string) pingKind {
	m, ok := scanBSDReply(line)
	if !ok {
		// jc reports it as unparsable; an ICMP error jc does not know
		// is also kept in icmp_errors.
		if em := rePingBSDError.Re().FindStringSubmatch(line); em != nil {
			if code := anyErrorType(em[5]); code != "" {
				e := PingICMPError{Type: code, ResponseIP: strp(em[3] + em[4]), Message: em[5]}
				if em[2] != "" {
					e.ResponseName = strp(em[2])
				}
				p.res.ICMPErrors = append(p.res.ICMPErrors, e)
			}
		}
		return p.unparsable(line, mangle)
	}
	return p.addResponse(PingResponse{
		Type: "reply", Bytes: toInt(m.bytes), ResponseIP: strp(m.from), ICMPSeq: toInt(m.seq),
		TTL: toInt(m.ttl), TimeMs: toFloat(m.time), Duplicate: strings.Contains(line, "DUP!"),
	})
}

// isHexHeaderLine recognises the "Vr HL TOS ..." dump of BSD ping.
func isHexHeaderLine(line string) bool {
	if strings.HasPrefix(line, "Vr HL") {
		return true
	}
	var r PingResponse
	return len(strings.Fields(line)) == 12 && fillHexHeader(&r, line)
}

// fillHexHeader parses a BSD "Vr HL TOS Len ID Flg off TTL Pro cks Src Dst"
// dump into r; it reports whether the line was such a dump.
func fillHexHeader(r *PingResponse, line string) bool {
	f := strings.Fields(line)
	if len(f) < 12 {
		return false
	}
	var v [10]int
	for i := 0; i < 10; i++ {
		x, err := strconv.ParseUint(f[i], 16, 32)
		if err != nil {
			return false
		}
		v[i] = int(x)
	}
	r.Vr, r.Hl, r.Tos, r.Len, r.ID, r.Flg = &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]
	r.Off, r.TTL, r.Pro, r.Cks = &v[6], &v[7], &v[8], &v[9]
	r.Src, r.Dst = strp(f[10]), strp(f[11])
	return true
}
