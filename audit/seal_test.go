package audit

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestSealVerifyReader: records sealed one after the other by Seal make
// a chain VerifyReader accepts; an edited, dropped or repeated record is
// named.
func TestSealVerifyReader(t *testing.T) {
	var lines [][]byte
	seq, prev := uint64(0), Genesis
	for _, m := range []string{"tools/call", "resources/read", "tools/call"} {
		r := Record{Kind: KindRequest, Method: m, Identity: "ann"}
		line, err := Seal(&r, seq, prev)
		if err != nil {
			t.Fatal(err)
		}
		if r.Seq != seq+1 || r.Prev != prev || r.Time.IsZero() {
			t.Fatalf("sealed %+v after %d %s", r, seq, prev)
		}
		seq, prev = r.Seq, r.Hash
		lines = append(lines, line)
	}
	join := func(ls ...[]byte) string { return string(bytes.Join(ls, nil)) }
	edited := bytes.Replace(lines[1], []byte("resources/read"), []byte("resources/list"), 1)
	for _, tc := range []struct {
		name, log, want string
	}{
		{"intact", join(lines...), ""},
		{"empty", "", ""},
		{"edited", join(lines[0], edited, lines[2]), "was edited"},
		{"dropped", join(lines[0], lines[2]), "deleted"},
		{"repeated", join(lines[0], lines[1], lines[1], lines[2]), "goes back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := VerifyReader(strings.NewReader(tc.log))
			var te *TamperError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("intact chain: %v", err)
			case tc.want == "" && rep.Records != strings.Count(tc.log, "\n"):
				t.Fatalf("%d records verified, want %d", rep.Records, strings.Count(tc.log, "\n"))
			case tc.want != "" && (!errors.As(err, &te) || !strings.Contains(te.Reason, tc.want)):
				t.Fatalf("got %v, want a TamperError saying %q", err, tc.want)
			}
		})
	}
}
