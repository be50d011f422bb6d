package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// Genesis is the "prev" of the first record of a log.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Record kinds.
const (
	KindRequest      = "request"
	KindResponse     = "response"
	KindNotification = "notification"
)

// Outcomes of a response.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"
)

// Record is one audit entry. The caller fills the descriptive fields; Append
// sets Seq, Prev and Hash, and Time when it is zero.
type Record struct {
	// Seq is the record's position in the log, from 1.
	Seq uint64 `json:"seq"`
	// Time is when the message was seen (UTC).
	Time time.Time `json:"time"`
	// Session is the MCP session id (for cross-device correlation).
	Session string `json:"session,omitempty"`
	// Identity is who made the call: an mTLS subject, a JWT subject, or "anonymous".
	Identity string `json:"identity,omitempty"`
	// Correlation is the caller's correlation id of the request
	// (_meta["netmcp/correlationId"]): one id per controller intent, the
	// same on every device's records of it.
	Correlation string `json:"correlationId,omitempty"`
	// Kind is request, response or notification.
	Kind string `json:"kind"`
	// ID is the JSON-RPC id as text ("" for notifications).
	ID string `json:"id,omitempty"`
	// Method is the JSON-RPC method ("tools/call", "resources/read"...).
	Method string `json:"method,omitempty"`
	// Tool is the tool name of a tools/call, or the URI of a resources/read.
	Tool string `json:"tool,omitempty"`
	// Arguments are the call's arguments, already redacted by the caller.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Outcome is ok or error, for responses.
	Outcome string `json:"outcome,omitempty"`
	// ErrorCode is the JSON-RPC error code of an error response.
	ErrorCode int `json:"errorCode,omitempty"`
	// DurationMS is how long the call took, for responses.
	DurationMS float64 `json:"durationMs,omitempty"`
	// Prev is the hash of the previous record (Genesis for the first).
	Prev string `json:"prev"`
	// Hash is SHA-256 over the canonical JSON of the record without Hash.
	Hash string `json:"hash"`
	// Durable asks, under SyncWrites, that this record reach stable storage
	// before Append returns (a state-changing call, an approval). It is not
	// part of the record.
	Durable bool `json:"-"`
}

// canonicalHash returns the chain hash of a decoded record object: SHA-256
// of its canonical JSON without the "hash" member, which it deletes from
// obj (its callers have read it, or set it afterwards).
func canonicalHash(obj map[string]any) (string, error) {
	delete(obj, "hash")
	b, err := canonicalJSON(obj)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalJSON encodes v with sorted object members and no white space;
// numbers keep their literal text (v must come from decodeObject).
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decodeObject decodes one JSON object, keeping numbers as json.Number.
func decodeObject(line []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("not a JSON object")
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return obj, nil
}

// insertMember returns the canonical JSON object obj (compact, members
// sorted, as canonicalJSON writes it) with the string member key: value
// added at its sorted place. obj must not have key already.
func insertMember(obj []byte, key, value string) ([]byte, error) {
	member, err := json.Marshal(map[string]string{key: value})
	if err != nil {
		return nil, err
	}
	member = member[1 : len(member)-1] // "key":"value"
	if len(obj) < 2 || obj[0] != '{' || obj[len(obj)-1] != '}' {
		return nil, errors.New("audit: not a JSON object")
	}
	at := len(obj) - 1 // before the closing brace: after every member
	for i := 1; i < len(obj)-1; {
		// obj[i] starts a member's name.
		end, err := stringEnd(obj, i)
		if err != nil {
			return nil, err
		}
		var name string
		if err := json.Unmarshal(obj[i:end], &name); err != nil {
			return nil, err
		}
		if name > key {
			at = i
			break
		}
		if i, err = valueEnd(obj, end+1); err != nil { // past the ':'
			return nil, err
		}
		if obj[i] == ',' {
			i++
		}
	}
	out := make([]byte, 0, len(obj)+len(member)+1)
	out = append(out, obj[:at]...)
	switch {
	case len(obj) == 2: // {}
		out = append(out, member...)
	case at == len(obj)-1:
		out = append(out, ',')
		out = append(out, member...)
	default:
		out = append(out, member...)
		out = append(out, ',')
	}
	return append(out, obj[at:]...), nil
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errors.New("audit: expected a member name")
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("audit: unterminated string")
}

// valueEnd returns the index of the ',' or '}' that ends the member value
// starting at b[i] of a compact JSON object.
func valueEnd(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, err := stringEnd(b, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j, nil
			}
			depth--
		case ',':
			if depth == 0 {
				return j, nil
			}
		}
	}
	return 0, errors.New("audit: unterminated value")
}
