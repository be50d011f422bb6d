package diag

import (
	"slices"
	"testing"
)

// TestPingBSDHexDump checks the quoted IP header BSD ping prints under an
// ICMP error: after an error jc knows it fills the response's Vr..Dst;
// after any other error it is consumed, not reported as unrecognized; a
// 12-field line that is not hex is unrecognized.
func TestPingBSDHexDump(t *testing.T) {
	const head = "PING 192.0.2.1 (192.0.2.1): 56 data bytes\n"
	const vr = "Vr HL TOS  Len   ID Flg  off TTL Pro  cks      Src      Dst\n"
	const dump = " 4  5  00 5400 567b   0 0000  3f  01 a024 192.0.2.9  192.0.2.1 \n"
	tests := []struct {
		name         string
		body         string
		wantCks      int // checksum filled into the first response, 0 = none
		unrecognized []string
	}{
		{"after a known error", "92 bytes from 192.0.2.7: Destination Host Unreachable\n" + vr + dump, 0xa024, nil},
		{"after an unknown error", "92 bytes from 192.0.2.7: Weird error message\n" + vr + dump, 0, nil},
		{"not hex", "a b c d e f g h i j k l\n", 0, []string{"a b c d e f g h i j k l"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ParsePing(head + tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Unrecognized, tc.unrecognized) {
				t.Errorf("unrecognized %q, want %q", res.Unrecognized, tc.unrecognized)
			}
			var cks int
			if len(res.Responses) > 0 && res.Responses[0].Cks != nil {
				cks = *res.Responses[0].Cks
			}
			if cks != tc.wantCks {
				t.Errorf("cks %#x, want %#x (responses %+v)", cks, tc.wantCks, res.Responses)
			}
		})
	}
}
