package netconf

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

const secretValue = "s3cr3t-v4lue-never-shown"

func TestParseURL(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	key := write("key", string(pem.EncodeToMemory(block)))
	notKey := write("notkey", secretValue+"\n")
	pw := write("pw", secretValue+"\n")
	empty := write("empty", "\n")
	kh := write("known_hosts", "")
	t.Setenv("NETMCP_TEST_PASSWORD", secretValue)
	base := "netconf://admin@192.0.2.1"
	creds := "key-file=" + key + "&known-hosts=" + kh

	tests := []struct {
		url     string
		wantErr string // substring; "" = success
		check   func(t *testing.T, c *Config)
	}{
		{url: base + "?" + creds, check: func(t *testing.T, c *Config) {
			if c.User != "admin" || c.Host != "192.0.2.1" || c.Port != DefaultPort || c.Timeout != DefaultTimeout || c.Name != "192.0.2.1" || c.Persist != "" {
				t.Errorf("defaults: %+v", c)
			}
			if s := c.String(); s != "netconf://admin@192.0.2.1:830 (key-file "+key+"; known-hosts "+kh+")" {
				t.Errorf("String %q", s)
			}
		}},
		{url: "netconf://admin@[2001:db8::1]:2830?" + creds + "&timeout=5s&name=r1&persist=1", check: func(t *testing.T, c *Config) {
			if c.Host != "2001:db8::1" || c.Port != 2830 || c.Timeout != 5*time.Second || c.Name != "r1" || c.Persist != "1" || c.Address() != "[2001:db8::1]:2830" {
				t.Errorf("explicit: %+v", c)
			}
		}},
		{url: base + "?" + creds + "&persist=true", check: func(t *testing.T, c *Config) {
			if c.Persist != "1" {
				t.Errorf("persist=true: %q", c.Persist)
			}
		}},
		{url: base + "?" + creds + "&persist=0", check: func(t *testing.T, c *Config) {
			if c.Persist != "0" {
				t.Errorf("persist=0: %q", c.Persist)
			}
		}},
		{url: base + "?" + creds + "&persist=false", check: func(t *testing.T, c *Config) {
			if c.Persist != "0" {
				t.Errorf("persist=false: %q", c.Persist)
			}
		}},
		{url: base + "?password-file=" + pw + "&insecure-host-key=1", check: func(t *testing.T, c *Config) {
			if !c.insecureHostKey || len(c.auth) != 2 || !strings.Contains(c.String(), "password-file "+pw) || !strings.Contains(c.String(), "NOT checked") {
				t.Errorf("password-file, insecure: %+v %s", c, c)
			}
		}},
		{url: base + "?password-env=NETMCP_TEST_PASSWORD&insecure-host-key=true", check: func(t *testing.T, c *Config) {
			if !c.insecureHostKey || !strings.Contains(c.String(), "password-env NETMCP_TEST_PASSWORD") {
				t.Errorf("password-env: %s", c)
			}
		}},
		{url: base + "?" + creds + "&insecure-host-key=0", check: func(t *testing.T, c *Config) {
			if c.insecureHostKey || c.knownHosts != kh {
				t.Errorf("insecure-host-key=0: %+v", c)
			}
		}},
		{url: "ssh://admin@192.0.2.1?" + creds, wantErr: `scheme "ssh"`},
		{url: "netconf:///x?" + creds, wantErr: "names no host"},
		{url: "netconf://admin@192.0.2.1/path?" + creds, wantErr: "path or fragment"},
		{url: "netconf://192.0.2.1?" + creds, wantErr: "names no user"},
		{url: "netconf://admin:" + secretValue + "@192.0.2.1?" + creds, wantErr: "password-file"},
		{url: "netconf://admin@192.0.2.1:0?" + creds, wantErr: "want 1..65535"},
		{url: base + "?" + creds + "&pasword-file=x", wantErr: `unknown URL parameter "pasword-file"`},
		{url: base + "?" + creds + "&name=a&name=b", wantErr: `"name" given 2 times`},
		{url: base + "?" + creds + "&persist=maybe", wantErr: "persist="},
		{url: base + "?" + creds + "&timeout=-1s", wantErr: "positive duration"},
		{url: base + "?" + creds + "&timeout=soon", wantErr: "positive duration"},
		{url: base + "?key-file=/nonexistent/netmcp&known-hosts=" + kh, wantErr: "key-file"},
		{url: base + "?key-file=" + notKey + "&known-hosts=" + kh, wantErr: "encrypted key is not supported"},
		{url: base + "?password-file=" + pw + "&password-env=NETMCP_TEST_PASSWORD&known-hosts=" + kh, wantErr: "password-env"},
		{url: base + "?password-file=" + empty + "&known-hosts=" + kh, wantErr: "password-file"},
		{url: base + "?password-file=/nonexistent/netmcp&known-hosts=" + kh, wantErr: "password-file"},
		{url: base + "?password-env=NETMCP_NO_SUCH_VARIABLE&known-hosts=" + kh, wantErr: "NETMCP_NO_SUCH_VARIABLE is not set"},
		{url: base + "?known-hosts=" + kh, wantErr: "gives no credential"},
		{url: base + "?key-file=" + key, wantErr: "how to check the host key"},
		{url: base + "?" + creds + "&insecure-host-key=1", wantErr: "not both"},
		{url: base + "?" + creds + "&insecure-host-key=yes", wantErr: "insecure-host-key="},
		{url: base + "?key-file=" + key + "&known-hosts=/nonexistent/netmcp", wantErr: "known-hosts"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseURL(u)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), secretValue) {
					t.Fatalf("the error echoes the secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(c.String(), secretValue) {
				t.Errorf("String shows the secret: %s", c)
			}
			tc.check(t, c)
		})
	}
}
