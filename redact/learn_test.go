package redact

import (
	"strings"
	"testing"
)

// TestMaskingLearnsNothing checks that masking never teaches the redactor:
// text a caller sent, masked as configuration or as a tree, must not make
// its values masked elsewhere (a viewer could otherwise
// hide any word from every other session, and confirm guesses).
func TestMaskingLearnsNothing(t *testing.T) {
	r := New(Options{})
	taught := []string{"description", "GigabitEthernet0/0/1", "192.0.2.1"}
	for _, w := range taught {
		if _, err := r.Config("username admin password "+w, ""); err != nil {
			t.Fatal(err)
		}
		r.Tree(map[string]any{"password": w, "key": []any{w}})
		r.TreeStructural(map[string]any{"secret": w})
		if _, err := r.ConfigSyntax("snmp-server community "+w+" RO", ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Known(); n != 0 {
		t.Fatalf("masking taught the redactor %d secrets", n)
	}
	for _, w := range taught {
		if got := r.String("interface " + w); strings.Contains(got, Mask) {
			t.Errorf("String(%q) = %q: a masked request taught the redactor", "interface "+w, got)
		}
	}
}

func TestLearnThenMask(t *testing.T) {
	r := New(Options{})
	if err := r.LearnConfig("snmp-agent community read cipher C0mmunity!\n description password is not here", DialectHuaweiVRP); err != nil {
		t.Fatal(err)
	}
	r.LearnTree(map[string]any{"openconfig-system:system": map[string]any{"aaa": map[string]any{"password": "TreeSecret1"}}})
	for _, s := range []string{"C0mmunity!", "TreeSecret1"} {
		if got := r.String("echo " + s + " echo"); got != "echo "+Mask+" echo" {
			t.Errorf("learnt secret %q not masked: %q", s, got)
		}
	}
	if err := r.LearnConfig("x", "junos"); err == nil {
		t.Error("LearnConfig accepted an unknown dialect")
	}
}

func TestStringKeeping(t *testing.T) {
	r := New(Options{Secrets: []string{"Hunter22", "S3cretXY"}})
	tests := []struct {
		in   string
		keep []string
		want string
	}{
		{"unknown command \"show Hunter22\"", []string{"show Hunter22"}, "unknown command \"show Hunter22\""},
		{"unknown command \"show zzzz\"", []string{"show zzzz"}, "unknown command \"show zzzz\""},
		{"echo Hunter22, device S3cretXY", []string{"echo Hunter22"}, "echo Hunter22, device ******"},
		{"S3cretXY twice S3cretXY", nil, "****** twice ******"},
		{"abc Hunter22", []string{"abc"}, "abc ******"},    // keep strings shorter than MinKnownSecretLen are ignored
		{"xxHunter22yy", []string{"xxHunt"}, "xx******yy"}, // a secret overlapping an echo is masked, echo or not
		{"show Hunter22 Hunter22", []string{"show Hunter22"}, "show Hunter22 ******"},
	}
	for _, tt := range tests {
		if got := r.StringKeeping(tt.in, tt.keep); got != tt.want {
			t.Errorf("StringKeeping(%q, %q) = %q, want %q", tt.in, tt.keep, got, tt.want)
		}
	}
}

func TestStructuralMasking(t *testing.T) {
	r := New(Options{Secrets: []string{"KnownValue1"}})
	out, err := r.ConfigSyntax("password cipher Other123\nname KnownValue1", "")
	if err != nil {
		t.Fatal(err)
	}
	if out != "password cipher ******\nname KnownValue1" {
		t.Errorf("ConfigSyntax = %q: want syntax masked, known values left", out)
	}
	v, changed := r.TreeStructural(map[string]any{"password": "x1x1x1", "name": "KnownValue1"})
	m := v.(map[string]any)
	if !changed || m["password"] != Mask || m["name"] != "KnownValue1" {
		t.Errorf("TreeStructural = %v, %v", v, changed)
	}
}

// BenchmarkStringManySecrets measures masking a 1 MB text against 16,000
// known secrets: one replacer pass, linear in the text.
func BenchmarkStringManySecrets(b *testing.B) {
	var secrets []string
	for i := range 16000 {
		secrets = append(secrets, "fake-secret-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+itoa(i))
	}
	r := New(Options{Secrets: secrets})
	text := strings.Repeat("interface GigabitEthernet0/0/1\n description uplink to core\n", 1<<20/52)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		r.String(text)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
