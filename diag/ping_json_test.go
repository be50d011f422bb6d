package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mirrorTypes caches the method-free twins of the ping types.
var mirrorTypes = map[reflect.Type]reflect.Type{}

// mirrorType returns t with every struct rebuilt by reflect.StructOf:
// same fields, names and tags, but no methods, so encoding/json encodes
// it by reflection. New fields of the real types appear automatically.
func mirrorType(t reflect.Type) reflect.Type {
	if m, ok := mirrorTypes[t]; ok {
		return m
	}
	m := t
	switch t.Kind() {
	case reflect.Struct:
		fields := make([]reflect.StructField, t.NumField())
		for i := range fields {
			f := t.Field(i)
			fields[i] = reflect.StructField{Name: f.Name, Type: mirrorType(f.Type), Tag: f.Tag}
		}
		m = reflect.StructOf(fields)
	case reflect.Slice:
		m = reflect.SliceOf(mirrorType(t.Elem()))
	case reflect.Pointer:
		m = reflect.PointerTo(mirrorType(t.Elem()))
	}
	mirrorTypes[t] = m
	return m
}

// mirror copies v into its mirrorType, keeping nil and empty slices and
// nil pointers apart.
func mirror(v reflect.Value) reflect.Value {
	m := reflect.New(mirrorType(v.Type())).Elem()
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			m.Field(i).Set(mirror(v.Field(i)))
		}
	case reflect.Slice:
		if !v.IsNil() {
			m.Set(reflect.MakeSlice(m.Type(), v.Len(), v.Len()))
			for i := 0; i < v.Len(); i++ {
				m.Index(i).Set(mirror(v.Index(i)))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			m.Set(reflect.New(m.Type().Elem()))
			m.Elem().Set(mirror(v.Elem()))
		}
	default:
		m.Set(v)
	}
	return m
}

// encodings returns v encoded the ways netmcp encodes results:
// json.Marshal, an Encoder without HTML escaping (server), and
// MarshalIndent (netmcp parse --pretty).
func encodings(v any) (map[string]string, error) {
	out := map[string]string{}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out["Marshal"] = string(b)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out["NoEscapeHTML"] = buf.String()
	if b, err = json.MarshalIndent(v, "", "  "); err != nil {
		return nil, err
	}
	out["MarshalIndent"] = string(b)
	return out, nil
}

// checkSame fails unless v (which has MarshalJSON) encodes exactly as its
// method-free mirror, both as a value and through a pointer.
func checkSame(t testing.TB, name string, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	cases := map[string][2]any{
		"value":   {v, mirror(rv).Interface()},
		"pointer": {ptrTo(rv).Interface(), mirror(ptrTo(rv)).Interface()},
		"slice":   {reflect.ValueOf([]any{v}).Interface(), []any{mirror(rv).Interface()}},
	}
	for how, pair := range cases {
		got, gotErr := encodings(pair[0])
		want, wantErr := encodings(pair[1])
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%s (%s): error %v, encoding/json error %v", name, how, gotErr, wantErr)
		}
		for mode := range want {
			if got[mode] != want[mode] {
				t.Fatalf("%s (%s, %s): %s", name, how, mode, firstDiff(got[mode], want[mode]))
			}
		}
	}
	// Called directly, MarshalJSON gives the SetEscapeHTML(false) bytes,
	// and json.HTMLEscape of them gives json.Marshal's bytes.
	m, ok := v.(json.Marshaler)
	if !ok {
		return
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return
	}
	want, _ := encodings(mirror(rv).Interface())
	if !json.Valid(b) {
		t.Fatalf("%s: MarshalJSON output is not valid JSON: %s", name, b)
	}
	if string(b)+"\n" != want["NoEscapeHTML"] {
		t.Fatalf("%s: direct MarshalJSON: %s", name, firstDiff(string(b)+"\n", want["NoEscapeHTML"]))
	}
	var esc bytes.Buffer
	json.HTMLEscape(&esc, b)
	if esc.String() != want["Marshal"] {
		t.Fatalf("%s: HTMLEscape(MarshalJSON): %s", name, firstDiff(esc.String(), want["Marshal"]))
	}
}

// firstDiff shows where got first departs from want, with context.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-40, 0)
	return fmt.Sprintf("differs at byte %d:\n got …%q\nwant …%q", i, got[from:min(i+40, len(got))], want[from:min(i+40, len(want))])
}

// ptrTo returns a pointer to a copy of v.
func ptrTo(v reflect.Value) reflect.Value {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p
}

// checkResult compares a whole result and each of its elements.
func checkResult(t testing.TB, name string, r *PingResult) {
	t.Helper()
	checkSame(t, name, *r)
	for _, p := range r.Responses {
		checkSame(t, name+" response", p)
	}
	for _, e := range r.ICMPErrors {
		checkSame(t, name+" icmp error", e)
	}
	if r.Responses != nil {
		checkSame(t, name+" responses", r.Responses)
	}
}

func TestPingJSONCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusRoot(t), "ping", "*", "*.out"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no ping fixtures: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ParsePing(string(data))
		if err != nil {
			t.Fatalf("%s: not parsed, so its encoding goes unchecked: %v", f, err)
		}
		checkResult(t, f, res)
	}
}

// nasty holds strings whose escaping encoding/json treats specially.
var nasty = []string{
	"", `"quoted" \back\slash/`, "<a href=x>&amp;</a>", "\x00\x01\b\f\n\r\t\x1f\x7f",
	"line\u2028sep\u2029para", "bad \xff\xfe utf8 \xe2\x80", "truncated \xe2\x80\xa8\xe2\x80",
	"emoji 😀 ünïcödé 中文", "\ufffd", "\xed\xa0\x80 surrogate",
}

// floats holds values around encoding/json's 'f'/'e' cutoffs.
var floats = []float64{
	0, math.Copysign(0, -1), 1, -1, 123.456, 0.001, 1e-6, 9.99e-7, 1e-7, -1e-7,
	1e20, 1e21, -1e21, 1.5e300, 5e-324, math.MaxFloat64, 1e-10, 123456789.125,
}

func TestPingJSONTable(t *testing.T) {
	for i, s := range nasty {
		s, n, f := s, i, floats[i%len(floats)]
		r := &PingResult{SourceIP: &s, DestinationIP: &s, DataBytes: &n, Pattern: &s,
			Destination: &s, PacketsTransmitted: &n, PacketLossPercent: &f, TimeMs: &f,
			Format: s, Unrecognized: []string{s, s + "x"},
			Responses: []PingResponse{{Type: s, UnparsedLine: &s, Timestamp: &f, ResponseIP: &s,
				Src: &s, Dst: &s, Line: &s, Vr: &n, Cks: &n, Duplicate: true}},
			ICMPErrors: []PingICMPError{{Type: s, ResponseName: &s, Message: s, MTU: &n}}}
		checkResult(t, "nasty "+s, r)
	}
	for _, f := range floats {
		f, neg := f, -f
		n := int(f)
		r := &PingResult{PacketLossPercent: &f, RoundTripMsMin: &neg, RoundTripMsAvg: &f,
			RoundTripMsMax: &f, RoundTripMsStddev: &neg, Errors: &n,
			Responses:  []PingResponse{{Timestamp: &f, TimeMs: &neg}},
			ICMPErrors: []PingICMPError{{Timestamp: &neg}}}
		checkResult(t, "float", r)
	}
	big, small := math.MaxInt, math.MinInt
	checkResult(t, "ints", &PingResult{DataBytes: &big, Errors: &small,
		Responses: []PingResponse{{Bytes: &big, Off: &small, ID: new(int)}}})
	checkResult(t, "zero", &PingResult{})
	checkResult(t, "empty slices", &PingResult{Responses: []PingResponse{},
		ICMPErrors: []PingICMPError{}, Unrecognized: []string{}})
	checkResult(t, "zero elements", &PingResult{Responses: make([]PingResponse, 2),
		ICMPErrors: make([]PingICMPError, 2), Unrecognized: make([]string, 2)})
}

func TestPingJSONNilAndUnsupported(t *testing.T) {
	var r *PingResult
	if b, err := json.Marshal(r); err != nil || string(b) != "null" {
		t.Fatalf("nil *PingResult: %s, %v", b, err)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkSame(t, "unsupported", PingResult{TimeMs: &f})
		if _, err := json.Marshal(PingResponse{TimeMs: &f}); err == nil {
			t.Fatalf("%v marshalled without error", f)
		} else if !strings.Contains(err.Error(), "unsupported value") {
			t.Fatalf("%v: error %q does not say unsupported value", f, err)
		}
	}
}

func FuzzPingJSON(f *testing.F) {
	seedCorpus(f, "ping")
	f.Add("PING x (<&>) 56(84) bytes of data.\n\u2028\xff\n64 bytes from \"a\\b\": icmp_seq=1 ttl=64 time=1e-7 ms\n")
	f.Fuzz(func(t *testing.T, s string) {
		res, err := ParsePing(s)
		if err != nil {
			return
		}
		checkSame(t, "fuzz", *res)
	})
}

func BenchmarkPingJSON(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "ping", "*", "*.out"))
	var results []any
	total := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if res, err := ParsePing(string(data)); err == nil {
			results = append(results, res)
			out, _ := json.Marshal(res)
			total += len(out)
		}
	}
	if len(results) == 0 {
		b.Skip("corpus missing")
	}
	run := func(b *testing.B, vs []any) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, v := range vs {
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("MarshalJSON", func(b *testing.B) { run(b, results) })
	// direct skips the validating compaction encoding/json applies to
	// every MarshalJSON result.
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, v := range results {
				if _, err := v.(*PingResult).MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	mirrors := make([]any, len(results))
	for i, r := range results {
		mirrors[i] = mirror(reflect.ValueOf(r)).Interface()
	}
	b.Run("reflect", func(b *testing.B) { run(b, mirrors) })
}
