package diag

// PingStreamEvent is one object of jc's streaming ping schema (ping_s):
// a reply, timeout, error or the final summary, emitted as soon as the
// line that completes it arrives.
type PingStreamEvent struct {
	Type          string   `json:"type"`
	DestinationIP *string  `json:"destination_ip"`
	SentBytes     *int     `json:"sent_bytes"`
	Pattern       *string  `json:"pattern"`
	Timestamp     *float64 `json:"timestamp"`
	ResponseBytes *int     `json:"response_bytes"`
	// Bytes repeats ResponseBytes: jc names it so for BSD ping6 replies
	// and errors.
	Bytes      *int     `json:"bytes"`
	ResponseIP *string  `json:"response_ip"`
	ICMPSeq    *int     `json:"icmp_seq"`
	TTL        *int     `json:"ttl"`
	TimeMs     *float64 `json:"time_ms"`
	Duplicate  bool     `json:"duplicate"`

	// Summary fields (Type "summary").
	PacketsTransmitted *int     `json:"packets_transmitted"`
	PacketsReceived    *int     `json:"packets_received"`
	PacketLossPercent  *float64 `json:"packet_loss_percent"`
	Duplicates         *int     `json:"duplicates"`
	Errors             *int     `json:"errors"`
	Corrupted          *int     `json:"corrupted"`
	RoundTripMsMin     *float64 `json:"round_trip_ms_min"`
	RoundTripMsAvg     *float64 `json:"round_trip_ms_avg"`
	RoundTripMsMax     *float64 `json:"round_trip_ms_max"`
	RoundTripMsStddev  *float64 `json:"round_trip_ms_stddev"`

	// Extras: the unparsed text of an unparsable line, the ICMP error
	// message, the MTU of a "Frag needed" error.
	UnparsedLine *string `json:"unparsed_line,omitempty"`
	Message      *string `json:"message,omitempty"`
	MTU          *int    `json:"mtu,omitempty"`
}

// PingStream parses ping output line by line (see NewPingStream).
type PingStream struct {
	p           *pingParser
	summarySent bool
	seen        map[int]bool
}

// NewPingStream returns a streaming ping parser: feed it each line with
// Line, then call Close at the end of the output.
func NewPingStream() *PingStream {
	return &PingStream{p: newPingParser(), seen: map[int]bool{}}
}

// Line parses one line of ping output. It returns the event the line
// completes, or nil when the line completes none (header, statistics,
// blank). A line before any "PING" header that is not a PATTERN or
// WARNING line is an error.
func (s *PingStream) Line(line string) (*PingStreamEvent, error) {
	kind := s.p.feed(line)
	if !s.p.header && kind == pkUnrecognized {
		return nil, parseErr("ping", "line before the PING header: %q", truncate(line, 80))
	}
	switch kind {
	case pkResponse:
		r := s.p.lastResp
		ev := s.base(r.Type)
		ev.Timestamp, ev.ResponseBytes, ev.Bytes = r.Timestamp, r.Bytes, r.Bytes
		ev.ResponseIP, ev.ICMPSeq, ev.TTL, ev.TimeMs = r.ResponseIP, r.ICMPSeq, r.TTL, r.TimeMs
		ev.Duplicate, ev.UnparsedLine = r.Duplicate, r.UnparsedLine
		if !s.p.linux && r.ICMPSeq != nil && r.Type == "reply" {
			ev.Duplicate = s.seen[*r.ICMPSeq] || ev.Duplicate
			s.seen[*r.ICMPSeq] = true
		}
		return ev, nil
	case pkICMPError:
		e := s.p.lastErr
		ev := s.base(e.Type)
		ev.Timestamp, ev.ResponseIP, ev.ICMPSeq, ev.MTU = e.Timestamp, e.ResponseIP, e.ICMPSeq, e.MTU
		ev.Message = strp(e.Message)
		return ev, nil
	case pkRTT:
		return s.summary(), nil
	}
	return nil, nil
}

// Close ends the stream. It returns the summary when the statistics were
// seen without a round-trip line (e.g. 100% loss), else nil.
func (s *PingStream) Close() *PingStreamEvent {
	if s.summarySent || s.p.res.PacketsTransmitted == nil {
		return nil
	}
	return s.summary()
}

func (s *PingStream) base(typ string) *PingStreamEvent {
	r := &s.p.res
	return &PingStreamEvent{Type: typ, DestinationIP: r.DestinationIP, SentBytes: r.DataBytes, Pattern: r.Pattern}
}

func (s *PingStream) summary() *PingStreamEvent {
	s.summarySent = true
	r := &s.p.res
	ev := s.base("summary")
	ev.PacketsTransmitted, ev.PacketsReceived, ev.PacketLossPercent = r.PacketsTransmitted, r.PacketsReceived, r.PacketLossPercent
	ev.Duplicates, ev.Errors, ev.Corrupted, ev.TimeMs = r.Duplicates, r.Errors, r.Corrupted, r.TimeMs
	ev.RoundTripMsMin, ev.RoundTripMsAvg, ev.RoundTripMsMax, ev.RoundTripMsStddev = r.RoundTripMsMin, r.RoundTripMsAvg, r.RoundTripMsMax, r.RoundTripMsStddev
	return ev
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
