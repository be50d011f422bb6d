package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/netmcp/netmcp/internal/jsonstr"
)

// This file writes a Record's canonical JSON directly, member by member in
// sorted order, instead of marshalling the record, decoding it into a map
// and encoding the map again: the same bytes (TestSealMatchesGeneric holds
// them to the generic path that Verify uses) at a fraction of the cost, on
// every call a device serves. Only the caller's arguments, whose members
// are not known in advance, go through the generic canonical encoding.

// Seal makes r the record after the one whose sequence number and hash
// are seq and prev (0 and Genesis for the first): it sets r.Seq, r.Prev
// and r.Hash, and r.Time (UTC) when it is zero, and returns the record's
// line (with "\n"), what Verify checks. A Log seals its own records; Seal
// is for a chain kept elsewhere, shared by several writers, which must
// each seal on the last record they read and retry when another wrote
// first.
func Seal(r *Record, seq uint64, prev string) ([]byte, error) {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	r.Time = r.Time.UTC()
	r.Seq = seq + 1
	return sealRecord(r, prev)
}

// sealRecord sets r.Prev and r.Hash and returns the line to write (with "\n").
func sealRecord(r *Record, prev string) ([]byte, error) {
	r.Prev, r.Hash = prev, ""
	body, hashAt, err := appendCanonicalRecord(make([]byte, 0, 320+len(r.Arguments)), r)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	r.Hash = hex.EncodeToString(sum[:])
	// The line is the same object with "hash" at its sorted place.
	line := make([]byte, 0, len(body)+len(r.Hash)+12)
	if hashAt == 1 { // no member sorts before "hash"
		line = append(line, `{"hash":"`...)
		line = append(line, r.Hash...)
		line = append(line, `",`...)
		line = append(line, body[1:]...)
	} else { // body[hashAt] is the ',' before the member after "hash"
		line = append(line, body[:hashAt]...)
		line = append(line, `,"hash":"`...)
		line = append(line, r.Hash...)
		line = append(line, '"')
		line = append(line, body[hashAt:]...)
	}
	return append(line, '\n'), nil
}

// appendCanonicalRecord appends the canonical JSON of r without its hash
// (the members json.Marshal writes, sorted by name, compact, strings
// escaped as canonicalJSON escapes them) and returns the offset at which
// the "hash" member belongs.
func appendCanonicalRecord(b []byte, r *Record) ([]byte, int, error) {
	b = append(b, '{')
	first := true
	name := func(n string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, n...)
		b = append(b, '"', ':')
	}
	if len(r.Arguments) > 0 {
		args, err := decodeValue(r.Arguments)
		if err != nil {
			return nil, 0, fmt.Errorf("audit: record arguments: %w", err)
		}
		enc, err := canonicalJSON(args)
		if err != nil {
			return nil, 0, err
		}
		name("arguments")
		b = append(b, enc...)
	}
	if r.Correlation != "" {
		name("correlationId")
		b = appendJSONString(b, r.Correlation)
	}
	if r.DurationMS != 0 {
		var err error
		name("durationMs")
		if b, err = appendJSONFloat(b, r.DurationMS); err != nil {
			return nil, 0, err
		}
	}
	if r.ErrorCode != 0 {
		name("errorCode")
		b = strconv.AppendInt(b, int64(r.ErrorCode), 10)
	}
	hashAt := len(b)
	if r.ID != "" {
		name("id")
		b = appendJSONString(b, r.ID)
	}
	if r.Identity != "" {
		name("identity")
		b = appendJSONString(b, r.Identity)
	}
	name("kind")
	b = appendJSONString(b, r.Kind)
	if r.Method != "" {
		name("method")
		b = appendJSONString(b, r.Method)
	}
	if r.Outcome != "" {
		name("outcome")
		b = appendJSONString(b, r.Outcome)
	}
	name("prev")
	b = appendJSONString(b, r.Prev)
	name("seq")
	b = strconv.AppendUint(b, r.Seq, 10)
	if r.Session != "" {
		name("session")
		b = appendJSONString(b, r.Session)
	}
	name("time")
	if y := r.Time.Year(); y < 0 || y > 9999 {
		return nil, 0, errors.New("audit: record time outside years 0-9999")
	}
	b = append(b, '"')
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if r.Tool != "" {
		name("tool")
		b = appendJSONString(b, r.Tool)
	}
	return append(b, '}'), hashAt, nil
}

// decodeValue decodes one JSON value keeping numbers as json.Number.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// appendJSONFloat appends f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("audit: unsupported number %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 -> e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendJSONString appends s as canonicalJSON writes a string that came
// through json.Marshal (invalid UTF-8 as the rune U+FFFD).
func appendJSONString(b []byte, s string) []byte {
	return jsonstr.Append(b, s, jsonstr.RuneInvalid)
}
