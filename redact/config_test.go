package redact

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n%s", path, got)
	}
}

func TestConfigGolden(t *testing.T) {
	tests := []struct {
		file, dialect string
		secrets       []string // every one must be gone
		kept          []string // must survive
		echo          string   // a secret of the file echoed in later output
	}{
		{"huawei-vrp.cfg", DialectHuaweiVRP,
			[]string{"%^%#Rd1pQ0vX~L%^%#", "Private-RW-9", "%^%#AuthK3y%^%#", "%^%#PrivK3y%^%#", "$1c$H0shEdPw$",
				"OpsCipher#1", "RadiusShared99", "TacacsShared88", "OspfMd5Key!", "IsisKey-42", "BgpPeerPw",
				"IkePsk#2026", "NtpKey123", "VtyPass77"},
			[]string{"complexity-check disable", "authentication-mode password", "advertise-community", "privilege level 15"}, "OpsCipher#1"},
		{"cisco-iosxr.cfg", DialectCiscoIOSXR,
			[]string{"$6$salt$HashedSecretValue", "0822455D0A16", "$1$abcd$LegacyMd5", "public", "S3cr3tRW",
				"AuthEnc1", "PrivEnc2", "0F1B2C3D4E", "IsakmpKey9", "RadiusKey7", "TacacsK3y", "OspfEnc1",
				"BgpEnc55", "Ikev2Psk1"},
			[]string{"set community (65002:100)", "key chain KC1", "authentication message-digest", "the password is not here"}, "S3cr3tRW"},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			r := New(Options{})
			if err := r.LearnConfig(string(in), tt.dialect); err != nil {
				t.Fatal(err)
			}
			out, err := r.Config(string(in), tt.dialect)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.secrets {
				if strings.Contains(out, s) {
					t.Errorf("secret %q left in output", s)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(out, k) {
					t.Errorf("non-secret %q was masked", k)
				}
			}
			if strings.Count(out, "\n") != strings.Count(string(in), "\n") {
				t.Error("line structure changed")
			}
			golden(t, tt.file+".golden", out)
			// The secrets found are now known: an echo in CLI output is masked.
			echo := r.String("login failed with " + tt.echo + " as password")
			if strings.Contains(echo, tt.echo) {
				t.Errorf("echo not masked: %s", echo)
			}
		})
	}
	if _, err := New(Options{}).Config("x", "junos"); err == nil {
		t.Error("unknown dialect accepted")
	}
}

func TestConfigLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{"password cipher X1", "password cipher ******"},
		{"password X1", "password ******"},
		// A secret equal to a keyword is masked everywhere: safe, if not pretty.
		{"username u password password", "username u ****** ******"},
		{"pre-shared-key local Ikev2Psk1", "pre-shared-key local ******"},
		{" description the password is secret", " description the password is secret"},
		{"username u secret 12", "username u secret ******"},
		{"enable secret 5 $1$x", "enable secret 5 ******"},
		{"snmp-server community c0mm RO", "snmp-server community ****** RO"},
		{"\tsnmp-agent community read  ab", "\tsnmp-agent community read  ******"},
		{"authentication-mode aaa", "authentication-mode aaa"},
		{"set community 65000:1 additive", "set community 65000:1 additive"},
		{"key-string 7 0A1B", "key-string 7 ******"},
		{"pre-shared-key abc", "pre-shared-key ******"},
		{"message-digest-key 1 md5 K", "message-digest-key 1 md5 ******"},
		{"no secrets here", "no secrets here"},
		{"password", "password"},
		{"", ""},
	}
	for _, tt := range tests {
		r := New(Options{})
		_ = r.LearnConfig(tt.in, "")
		got, err := r.Config(tt.in, "")
		if err != nil || got != tt.want {
			t.Errorf("Config(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
