package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendMatchesEncoder holds Append to encoding/json (HTML escaping
// off), and RuneInvalid to a decode and re-encode of json.Marshal's output.
func TestAppendMatchesEncoder(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "\b\f\n\r\t\x00\x01\x1f\x7f", "<&>", "é日本",
		"\u2028\u2029", "bad \xff\xfe utf8 \xc3", "mixed \xe2\x80 \u2028 \"x\""} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := Append(nil, s, EscapeInvalid); !bytes.Equal(got, want) {
			t.Errorf("Append(%q, EscapeInvalid) = %s, want %s", s, got, want)
		}
		var decoded string
		if err := json.Unmarshal(want, &decoded); err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if err := enc.Encode(decoded); err != nil {
			t.Fatal(err)
		}
		want = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := Append(nil, s, RuneInvalid); !bytes.Equal(got, want) {
			t.Errorf("Append(%q, RuneInvalid) = %s, want %s", s, got, want)
		}
	}
}
