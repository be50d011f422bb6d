package diag

import (
	"fmt"
	"math"
	"strconv"

	"github.com/netmcp/netmcp/internal/jsonstr"
)

// Hand-written JSON encoders for the ping result types. They produce
// exactly the bytes encoding/json's reflection would, but skip building
// reflection encoders for these pointer-heavy structs, which costs about
// 100 µs on the first encode of a short-lived "netmcp parse ping".
//
// Strings are written as encoding/json writes them with HTML escaping
// off: encoding/json re-escapes <, > and & in a MarshalJSON result when
// (and only when) the caller's encoder escapes HTML, so both json.Marshal
// and an Encoder with SetEscapeHTML(false) (the MCP server) stay
// byte-identical. The receivers are values so that PingResult,
// *PingResult and slice elements all use them.

// MarshalJSON encodes r as encoding/json would encode its fields.
func (r PingResult) MarshalJSON() ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 512+192*len(r.Responses))}
	w.open()
	w.optStr("source_ip", r.SourceIP, false)
	w.optStr("destination_ip", r.DestinationIP, false)
	w.optInt("data_bytes", r.DataBytes, false)
	w.optStr("pattern", r.Pattern, false)
	w.optStr("destination", r.Destination, false)
	w.optInt("packets_transmitted", r.PacketsTransmitted, false)
	w.optInt("packets_received", r.PacketsReceived, false)
	w.optFloat("packet_loss_percent", r.PacketLossPercent, false)
	w.optInt("duplicates", r.Duplicates, false)
	w.optInt("errors", r.Errors, false)
	w.optInt("corrupted", r.Corrupted, false)
	w.optFloat("time_ms", r.TimeMs, false)
	w.optFloat("round_trip_ms_min", r.RoundTripMsMin, false)
	w.optFloat("round_trip_ms_avg", r.RoundTripMsAvg, false)
	w.optFloat("round_trip_ms_max", r.RoundTripMsMax, false)
	w.optFloat("round_trip_ms_stddev", r.RoundTripMsStddev, false)
	w.key("responses")
	if r.Responses == nil {
		w.null()
	} else {
		w.b = append(w.b, '[')
		for i := range r.Responses {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			r.Responses[i].write(&w)
		}
		w.b = append(w.b, ']')
	}
	w.key("format")
	w.str(r.Format)
	w.key("icmp_errors")
	if r.ICMPErrors == nil {
		w.null()
	} else {
		w.b = append(w.b, '[')
		for i := range r.ICMPErrors {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			r.ICMPErrors[i].write(&w)
		}
		w.b = append(w.b, ']')
	}
	w.key("unrecognized_lines")
	if r.Unrecognized == nil {
		w.null()
	} else {
		w.b = append(w.b, '[')
		for i, s := range r.Unrecognized {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.str(s)
		}
		w.b = append(w.b, ']')
	}
	return w.close()
}

// MarshalJSON encodes p as encoding/json would encode its fields.
func (p PingResponse) MarshalJSON() ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 256)}
	p.write(&w)
	return w.result()
}

// write appends p's JSON object to w.
func (p *PingResponse) write(w *jsonWriter) {
	w.open()
	w.key("type")
	w.str(p.Type)
	w.optStr("unparsed_line", p.UnparsedLine, true)
	w.optFloat("timestamp", p.Timestamp, false)
	w.optInt("bytes", p.Bytes, false)
	w.optStr("response_ip", p.ResponseIP, false)
	w.optInt("icmp_seq", p.ICMPSeq, false)
	w.optInt("ttl", p.TTL, false)
	w.optFloat("time_ms", p.TimeMs, false)
	w.key("duplicate")
	w.b = strconv.AppendBool(w.b, p.Duplicate)
	w.optInt("vr", p.Vr, true)
	w.optInt("hl", p.Hl, true)
	w.optInt("tos", p.Tos, true)
	w.optInt("len", p.Len, true)
	w.optInt("id", p.ID, true)
	w.optInt("flg", p.Flg, true)
	w.optInt("off", p.Off, true)
	w.optInt("pro", p.Pro, true)
	w.optInt("cks", p.Cks, true)
	w.optStr("src", p.Src, true)
	w.optStr("dst", p.Dst, true)
	w.optStr("line", p.Line, true)
	w.b = append(w.b, '}')
}

// MarshalJSON encodes e as encoding/json would encode its fields.
func (e PingICMPError) MarshalJSON() ([]byte, error) {
	w := jsonWriter{b: make([]byte, 0, 192)}
	e.write(&w)
	return w.result()
}

// write appends e's JSON object to w.
func (e *PingICMPError) write(w *jsonWriter) {
	w.open()
	w.key("type")
	w.str(e.Type)
	w.optFloat("timestamp", e.Timestamp, false)
	w.optStr("response_ip", e.ResponseIP, false)
	w.optStr("response_name", e.ResponseName, true)
	w.optInt("icmp_seq", e.ICMPSeq, false)
	w.optInt("mtu", e.MTU, true)
	w.key("message")
	w.str(e.Message)
	w.b = append(w.b, '}')
}

// jsonWriter appends one JSON object; err keeps the first unencodable
// value (NaN or an infinity, which encoding/json refuses too).
type jsonWriter struct {
	b     []byte
	first bool // no member written yet in the current object
	err   error
}

func (w *jsonWriter) open() {
	w.b = append(w.b, '{')
	w.first = true
}

func (w *jsonWriter) close() ([]byte, error) {
	w.b = append(w.b, '}')
	return w.result()
}

func (w *jsonWriter) result() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// key writes the member separator and the (plain ASCII) member name.
func (w *jsonWriter) key(name string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) null() { w.b = append(w.b, "null"...) }

// optStr writes a *string member: null when nil, or nothing at all when
// nil and omitEmpty.
func (w *jsonWriter) optStr(name string, v *string, omitEmpty bool) {
	if v == nil && omitEmpty {
		return
	}
	w.key(name)
	if v == nil {
		w.null()
		return
	}
	w.str(*v)
}

// optInt writes a *int member like optStr.
func (w *jsonWriter) optInt(name string, v *int, omitEmpty bool) {
	if v == nil && omitEmpty {
		return
	}
	w.key(name)
	if v == nil {
		w.null()
		return
	}
	w.b = strconv.AppendInt(w.b, int64(*v), 10)
}

// optFloat writes a *float64 member like optStr.
func (w *jsonWriter) optFloat(name string, v *float64, omitEmpty bool) {
	if v == nil && omitEmpty {
		return
	}
	w.key(name)
	if v == nil {
		w.null()
		return
	}
	w.float(*v)
}

// float writes f as encoding/json's floatEncoder does for float64: ES6
// number formatting, 'e' below 1e-6 and from 1e21, "e-09" cut to "e-9".
func (w *jsonWriter) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if w.err == nil {
			w.err = fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
		}
		w.null()
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	w.b = strconv.AppendFloat(w.b, f, format, -1, 64)
	if format == 'e' {
		if n := len(w.b); n >= 4 && w.b[n-4] == 'e' && w.b[n-3] == '-' && w.b[n-2] == '0' {
			w.b[n-2] = w.b[n-1]
			w.b = w.b[:n-1]
		}
	}
}

// str writes s quoted as encoding/json writes it with HTML escaping off.
func (w *jsonWriter) str(s string) { w.b = jsonstr.Append(w.b, s, jsonstr.EscapeInvalid) }
