package sshcli_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device/sshcli"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url, err string
	}{
		{"ssh://admin@r1:2222?dialect=cisco-iosxr&key-file=/k&known-hosts=/kh", ""},
		{"ssh://admin@r1?dialect=frr&password-env=PW&insecure-ignore-host-key=true", ""},
		{"ssh://admin:s3cret@r1?dialect=frr&key-file=/k&known-hosts=/kh", "carries a password"},
		{"ssh://r1?dialect=frr&key-file=/k&known-hosts=/kh", "names no user"},
		{"ssh://admin@r1?key-file=/k&known-hosts=/kh", "names no dialect"},
		{"ssh://admin@r1?dialect=nxos&key-file=/k&known-hosts=/kh", "unknown dialect"},
		{"ssh://admin@r1?dialect=frr&known-hosts=/kh", "names no credential"},
		{"ssh://admin@r1?dialect=frr&key-file=/k", "host key checking needs"},
		{"ssh://admin@r1?dialect=frr&key-file=/k&known-hosts=/kh&insecure-ignore-host-key=true", "choose one"},
		{"ssh://admin@r1?dialect=frr&key-file=/k&known-hosts=/kh&password=x", `unknown URL parameter "password"`},
		{"ssh://admin@r1?dialect=frr&key-file=/k&known-hosts=/kh&name=r1&name=r2", `"name" given 2 times`},
		{"ssh://admin@r1?dialect=frr&password-file=/p&password-env=PW&known-hosts=/kh", "password-file and password-env"},
		{"ssh://admin@r1?dialect=frr&key-file=/k&insecure-ignore-host-key=maybe", "insecure-ignore-host-key="},
		{"ssh://admin@r1?dialect=frr&key-file=/k&known-hosts=/kh&connect-timeout=0s", "positive duration"},
		{"ssh://admin@r1:2222?dialect=huawei-vrp&password-file=/p&insecure-ignore-host-key=1&timeout=5s&connect-timeout=2s", ""},
		{"ssh://admin:s3cret@r1/x?dialect=frr&key-file=/k&known-hosts=/kh", "path or fragment"},
		{"ssh://admin@r1:0?dialect=frr&key-file=/k&known-hosts=/kh", "port"},
		{"ssh://admin@r1?dialect=frr&key-file=/k&known-hosts=/kh&timeout=-1s", "positive duration"},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sshcli.ParseURL(u)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.url, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one containing %q", tc.url, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("%s: the error shows the password: %v", tc.url, err)
		case err == nil && c.Name != "r1":
			t.Errorf("%s: name %q", tc.url, c.Name)
		}
	}
}
