package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plantTemplates are configuration lines with one secret slot (%s).
var plantTemplates = []string{
	"snmp-agent community read cipher %s",
	"snmp-agent community write %s",
	" local-user admin password irreversible-cipher %s",
	"radius-server shared-key cipher %s",
	" ospf authentication-mode md5 1 cipher %s",
	" peer 192.0.2.2 password cipher %s",
	" pre-shared-key cipher %s",
	"username admin secret 5 %s",
	" secret 10 %s",
	"snmp-server community %s RO",
	"  key-string password %s",
	"crypto isakmp key %s address 192.0.2.9",
	"   message-digest-key 1 md5 encrypted %s",
	"snmp-server user u g v3 auth sha encrypted %s",
	"snmp-server user u g v3 priv aes 128 %s",
	"snmp-agent usm-user v3 u privacy-mode aes128 cipher %s",
	"password %s",
}

// FuzzRedactText plants a secret in a configuration line among arbitrary
// text: Config must never panic, and the planted secret must not survive
// anywhere in the output (values shorter than MinKnownSecretLen are only
// guaranteed masked at the planted place).
func FuzzRedactText(f *testing.F) {
	f.Add("interface Gi0\n description x\n", "S3cret!", uint8(0))
	f.Add("", "public", uint8(9))
	f.Add("show run\npassword", "pw", uint8(14))
	f.Add("echo Xy12Xy12Xy12", "Xy12", uint8(7))
	f.Add("a\tb  c\r\n", "7", uint8(12))
	f.Fuzz(func(t *testing.T, text, secret string, which uint8) {
		if secret == "" || !utf8.ValidString(secret) || strings.ContainsAny(secret, " \t\n*") {
			return
		}
		tmpl := plantTemplates[int(which)%len(plantTemplates)]
		planted := strings.Replace(tmpl, "%s", secret, 1)
		in := text + "\n" + planted + "\n" + text
		r := New(Options{})
		if err := r.LearnConfig(in, ""); err != nil {
			t.Fatal(err)
		}
		out, err := r.Config(in, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(secret) >= MinKnownSecretLen {
			if strings.Contains(out, secret) {
				t.Fatalf("secret %q survived in %q", secret, out)
			}
			if echo := r.String("x" + secret + "x"); strings.Contains(echo, secret) {
				t.Fatalf("secret %q not known after LearnConfig", secret)
			}
			return
		}
		lines := strings.Split(out, "\n")
		nText := strings.Count(text, "\n") + 1
		if got := lines[nText]; strings.Contains(strings.Replace(tmpl, "%s", "", 1), secret) == false &&
			got != strings.Replace(tmpl, "%s", Mask, 1) {
			t.Fatalf("planted line %q became %q", planted, got)
		}
	})
}
