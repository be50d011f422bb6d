package diag

// PingResult is a parsed ping or ping6 run (iputils, BusyBox, BSD, macOS).
// Its JSON is jc's ping schema; the fields after Responses are extras.
type PingResult struct {
	SourceIP           *string        `json:"source_ip"`
	DestinationIP      *string        `json:"destination_ip"`
	DataBytes          *int           `json:"data_bytes"`
	Pattern            *string        `json:"pattern"`
	Destination        *string        `json:"destination"`
	PacketsTransmitted *int           `json:"packets_transmitted"`
	PacketsReceived    *int           `json:"packets_received"`
	PacketLossPercent  *float64       `json:"packet_loss_percent"`
	Duplicates         *int           `json:"duplicates"`
	Errors             *int           `json:"errors"`
	Corrupted          *int           `json:"corrupted"`
	TimeMs             *float64       `json:"time_ms"`
	RoundTripMsMin     *float64       `json:"round_trip_ms_min"`
	RoundTripMsAvg     *float64       `json:"round_trip_ms_avg"`
	RoundTripMsMax     *float64       `json:"round_trip_ms_max"`
	RoundTripMsStddev  *float64       `json:"round_trip_ms_stddev"`
	Responses          []PingResponse `json:"responses"`

	// Format is "linux" (iputils) or "bsd" (BSD, macOS, BusyBox).
	Format string `json:"format"`
	// ICMPErrors are error replies jc drops (Linux "From ... Destination
	// Host Unreachable", "Packet filtered", "Frag needed", TTL exceeded).
	ICMPErrors []PingICMPError `json:"icmp_errors"`
	// Unrecognized lists the non-empty lines no rule understood.
	Unrecognized []string `json:"unrecognized_lines"`
}

// PingResponse is one reply, timeout or error line (jc's schema).
type PingResponse struct {
	Type         string   `json:"type"`
	UnparsedLine *string  `json:"unparsed_line,omitempty"`
	Timestamp    *float64 `json:"timestamp"`
	Bytes        *int     `json:"bytes"`
	ResponseIP   *string  `json:"response_ip"`
	ICMPSeq      *int     `json:"icmp_seq"`
	TTL          *int     `json:"ttl"`
	TimeMs       *float64 `json:"time_ms"`
	Duplicate    bool     `json:"duplicate"`
	// BSD quoted IP header of an ICMP error (hex values as integers).
	Vr  *int    `json:"vr,omitempty"`
	Hl  *int    `json:"hl,omitempty"`
	Tos *int    `json:"tos,omitempty"`
	Len *int    `json:"len,omitempty"`
	ID  *int    `json:"id,omitempty"`
	Flg *int    `json:"flg,omitempty"`
	Off *int    `json:"off,omitempty"`
	Pro *int    `json:"pro,omitempty"`
	Cks *int    `json:"cks,omitempty"`
	Src *string `json:"src,omitempty"`
	Dst *string `json:"dst,omitempty"`
	// Line is the raw line of an unparsable response (extra).
	Line *string `json:"line,omitempty"`
}

// PingICMPError is an ICMP error reported by ping (extra to jc's schema).
type PingICMPError struct {
	// Type is the jc-style error name, e.g. "destination_host_unreachable",
	// "packet_filtered", "frag_needed_and_df_set", "time_to_live_exceeded".
	Type       string   `json:"type"`
	Timestamp  *float64 `json:"timestamp"`
	ResponseIP *string  `json:"response_ip"`
	// ResponseName is the reverse name printed before the address, if any.
	ResponseName *string `json:"response_name,omitempty"`
	ICMPSeq      *int    `json:"icmp_seq"`
	// MTU is the next-hop MTU of a "Frag needed" error.
	MTU     *int   `json:"mtu,omitempty"`
	Message string `json:"message"`
}
