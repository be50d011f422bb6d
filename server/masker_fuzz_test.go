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
// surroundings in the unmasked text did by chance.
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
		template := maskerTemplates[int(which)%len(maskerTemplates)]
		// A known secret is masked by value wherever it occurs, inside a
		// keyword too ("word" in "password"): the planted line then cannot
		// read as the template with only its slot masked. The same holds
		// for a secret the surrounding text teaches.
		if strings.Contains(template, secret) {
			return
		}
		probe := newSecretMasker(nil, "")
		probe.learn(text)
		if probe.known(template) != template {
			return
		}
		planted := strings.Replace(template, "%s", secret, 1)
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

// valueTwoPass is secretMasker.value as it was before the two walks were
// fused (redact.TreeStrings): the reference FuzzMaskerValueOnePass holds
// the one-pass walk to.
func (m *secretMasker) valueTwoPass(v any) (any, bool) {
	var masked bool
	if m.byValue() {
		v, masked = m.r.TreeChanged(v)
	} else {
		v, masked = m.r.TreeStructural(v)
	}
	v, configMasked := mapStrings(v, func(s string) string {
		if hasSyntax(s) || !m.byValue() {
			return m.config(s)
		}
		return s
	})
	return v, masked || configMasked
}

// FuzzMaskerValueOnePass: masking a YANG tree in one walk gives what the
// two walks gave (secret leaves by name, known secrets, configuration
// syntax in strings), for every masker mode.
func FuzzMaskerValueOnePass(f *testing.F) {
	f.Add(`{"a:system":{"config":{"hostname":"r1","password":"pw1234"},"snmp":{"community":[{"name":"public","access":"ro"}]},"motd":"snmp-server community s3cret RO","n":5}}`, "s3cret", "pw1234 x")
	f.Add(`{"x":["peer 192.0.2.2 password cipher Abcd1234","plain","Abcd1234",{"key-string":"k","k":"Abcd1234 tail"}]}`, "Abcd1234", "")
	f.Add(`{"lines":{"line":[" neighbor 10.0.12.1 password s3cretPW","interface e0"]},"auth-password":12345}`, "s3cretPW", "s3cretPW")
	f.Fuzz(func(t *testing.T, doc, secret, input string) {
		var v any
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			return
		}
		m := newSecretMasker(nil, "")
		if len(secret) >= 4 && utf8.ValidString(secret) {
			m.r.AddSecret(secret)
		}
		for _, mode := range []*secretMasker{m, m.keeping([]string{input}), m.structuralOnly()} {
			got, gotChanged := mode.value(v)
			want, wantChanged := mode.valueTwoPass(v)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) || gotChanged != wantChanged {
				t.Fatalf("one pass %s (changed %v), two passes %s (changed %v)", gb, gotChanged, wb, wantChanged)
			}
		}
	})
}
