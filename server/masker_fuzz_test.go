package server

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// maskerTemplates are configuration lines of both dialects with one secret
// slot (%s).
var maskerTemplates = []string{
	"snmp-agent community read cipher %s",
	" local-user admin password irreversible-cipher %s",
	" peer 192.0.2.2 password cipher %s",
	"username admin secret 10 %s",
	"snmp-server community %s RO",
	"  key-string password %s",
	"crypto isakmp key %s address 192.0.2.9",
	"radius-server shared-key cipher %s",
}

// FuzzMaskerWindows plants a secret in a random configuration, teaches the
// masker that configuration (as the device's own), and checks every way a
// caller who may not read secrets gets it: the whole text, any window of the
// masked text (network.file.pull's chunks), the same masked by a caller
// whose input echoes random text, as JSON, and as an error. The secret must
// never appear, and no window may hold more of the secret than its
// surroundings in the unmasked text did by chance (issue 9, points 1-3).
func FuzzMaskerWindows(f *testing.F) {
	f.Add("interface Gi0\n description uplink\n", "S3cret!pw", uint8(0), uint16(3), uint16(5), "show run")
	f.Add("", "public-ro", uint8(4), uint16(0), uint16(1), "")
	f.Add("hostname r1\n", "Xy12Xy12", uint8(7), uint16(10), uint16(2), "Xy12")
	f.Add("a\tb  c\r\n", "p@ss word", uint8(2), uint16(40), uint16(200), "show p@ss")
	f.Fuzz(func(t *testing.T, text, secret string, which uint8, off, n uint16, input string) {
		if len(secret) < 4 || !utf8.ValidString(secret) || !utf8.ValidString(text) || strings.ContainsAny(secret, " \t\r\n*") {
			return
		}
		if strings.Contains(input, secret) {
			return // a caller who sends the secret knows it
		}
		planted := strings.Replace(maskerTemplates[int(which)%len(maskerTemplates)], "%s", secret, 1)
		config := text + "\n" + planted + "\n" + text
		m := newSecretMasker(nil, "")
		m.learn(config)
		for _, mode := range []*secretMasker{m, m.keeping([]string{input}), m.structuralOnly()} {
			masked := mode.config(config)
			if !mode.structural && strings.Contains(masked, secret) {
				t.Fatalf("secret %q in the masked text %q", secret, masked)
			}
			if !strings.Contains(masked, strings.Replace(planted, secret, "******", 1)) {
				t.Fatalf("the planted line %q is not masked in %q", planted, masked)
			}
			start := min(int(off), len(masked))
			end := min(start+int(n), len(masked))
			if w := masked[start:end]; len(w) >= len(secret) && strings.Contains(w, secret) && !mode.structural {
				t.Fatalf("secret in the window [%d,%d): %q", start, end, w)
			}
		}
		b, _ := json.Marshal(map[string]any{"config": config, "lines": strings.Split(config, "\n")})
		var doc struct {
			Config string   `json:"config"`
			Lines  []string `json:"lines"`
		}
		if err := json.Unmarshal(m.raw(b), &doc); err != nil {
			t.Fatal(err)
		}
		if got := doc.Config + "\n" + strings.Join(doc.Lines, "\n"); strings.Contains(got, secret) {
			t.Fatalf("secret %q in the masked JSON's strings %q", secret, got)
		}
	})
}
