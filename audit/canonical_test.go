package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// sealGeneric is the reference encoding of a record: marshal, decode,
// canonicalise. It sets r.Prev and r.Hash and returns the line to write (with "\n").
func sealGeneric(r *Record, prev string) ([]byte, error) {
	r.Prev, r.Hash = prev, ""
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("audit: encoding record: %w", err)
	}
	obj, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	delete(obj, "hash")
	body, err := canonicalJSON(obj)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	r.Hash = hex.EncodeToString(sum[:])
	// The line is the same canonical object with "hash" added: insert it at
	// its sorted place rather than encode the whole record a second time.
	line, err := insertMember(body, "hash", r.Hash)
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// TestSealMatchesGeneric holds the direct encoder to the generic path
// (marshal, decode with json.Number, canonical re-encode) that Verify
// follows: byte-identical lines, so every chain it writes verifies.
func TestSealMatchesGeneric(t *testing.T) {
	when := time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
	tests := []Record{
		{Kind: KindRequest, Time: when},
		{Seq: 7, Time: when, Session: "s1", Identity: "mtls:alice", Correlation: "c-1", Kind: KindRequest, ID: "12",
			Method: "tools/call", Tool: "network.yang.get", Arguments: json.RawMessage(`{"path":"/a","datastore":"running"}`)},
		{Seq: 8, Time: when, Kind: KindResponse, ID: "12", Outcome: OutcomeError, ErrorCode: -32602, DurationMS: 0.4375},
		{Seq: 9, Time: when.Add(time.Hour), Kind: KindResponse, DurationMS: 1e-7},
		{Seq: 10, Time: when, Kind: KindResponse, DurationMS: 1e21},
		{Seq: 11, Time: when, Kind: KindResponse, DurationMS: 123456.789},
		{Time: when, Kind: KindNotification, Method: "notifications/<cancelled>&", Identity: "a\"b\\c\n\t\r\b\f\x01\x1f"},
		{Time: when, Kind: KindRequest, Identity: "bad utf8 \xff\xfe end", Tool: "line\u2028para\u2029 é 日本"},
		{Time: when, Kind: KindRequest, Arguments: json.RawMessage(`{"z":1,"a":{"y":[1.50,2e5,-0],"b":"<&>"},"m":null,"e":"\u2028"}`)},
		{Time: when, Kind: KindRequest, Arguments: json.RawMessage(` [ 3 , "x" ] `)},
		{Time: when, Kind: KindRequest, Arguments: json.RawMessage(`null`)},
		{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Kind: KindRequest, ErrorCode: 5},
	}
	rng := rand.New(rand.NewSource(1))
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	alphabet := []rune("ab\"\\\n\x00\x7f<>&é\u2028\ufffd")
	for i := 0; i < 500; i++ {
		str := func() string {
			n := rng.Intn(6)
			rs := make([]rune, n)
			for j := range rs {
				rs[j] = alphabet[rng.Intn(len(alphabet))]
			}
			return string(rs)
		}
		tests = append(tests, Record{Seq: uint64(rng.Int63()), Time: when.Add(time.Duration(rng.Int63n(1e15))),
			Session: str(), Identity: str(), Correlation: str(), Kind: str(), ID: str(), Method: str(), Tool: str(),
			Outcome: str(), ErrorCode: rng.Intn(3) - 1, DurationMS: []float64{0, rng.Float64(), rng.Float64() * 1e9, 1e-9 * rng.Float64()}[rng.Intn(4)],
			Arguments: json.RawMessage(fmt.Sprintf(`{%s:%s,"n":%d}`, quote(str()), quote(str()), rng.Intn(100)))})
	}
	for i, r := range tests {
		a, b := r, r
		got, err := sealRecord(&a, Genesis)
		if err != nil {
			t.Fatalf("%d: sealRecord: %v", i, err)
		}
		want, err := sealGeneric(&b, Genesis)
		if err != nil {
			t.Fatalf("%d: sealGeneric: %v", i, err)
		}
		if string(got) != string(want) || a.Hash != b.Hash {
			t.Errorf("%d: direct encoding differs\n got %s\nwant %s", i, got, want)
		}
		// The line verifies as Verify checks it.
		obj, err := decodeObject(got)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		h, _ := canonicalHash(obj)
		if h != a.Hash {
			t.Errorf("%d: hash %s, canonical hash of the line %s", i, a.Hash, h)
		}
	}
}
