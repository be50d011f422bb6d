package snmp

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

const secretValue = "s3cr3t-v4lue-never-shown"

func TestParseURL(t *testing.T) {
	dir := t.TempDir()
	comm := filepath.Join(dir, "comm")
	os.WriteFile(comm, []byte(secretValue+"\n"), 0o600)
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte("long-enough-key\n"), 0o600)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("short\n"), 0o600)
	two := filepath.Join(dir, "two")
	os.WriteFile(two, []byte("a\nb\n"), 0o600)
	t.Setenv("NETMCP_TEST_COMMUNITY", secretValue)
	t.Setenv("NETMCP_TEST_KEY", "long-enough-key")

	tests := []struct {
		url     string
		wantErr string // substring; "" = success
		check   func(t *testing.T, c *Config)
	}{
		{url: "snmp://192.0.2.1", check: func(t *testing.T, c *Config) {
			if c.Version != gosnmp.Version2c || c.community != PublicCommunity || c.Port != 161 || c.Timeout != DefaultTimeout || c.Retries != DefaultRetries {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{url: "snmp://public@192.0.2.1:1161?version=2c", check: func(t *testing.T, c *Config) {
			if c.community != "public" || c.Port != 1161 {
				t.Errorf("inline public: %+v", c)
			}
		}},
		{url: "snmp://[2001:db8::1]:161?community-file=" + comm + "&timeout=2s&retries=0&poll=1s", check: func(t *testing.T, c *Config) {
			if c.community != secretValue || c.Host != "2001:db8::1" || c.Timeout != 2*time.Second || c.Retries != 0 || c.Poll != time.Second {
				t.Errorf("file: %+v", c)
			}
			if c.Address() != "[2001:db8::1]:161" {
				t.Errorf("Address %s", c.Address())
			}
		}},
		{url: "snmp://192.0.2.1?community-env=NETMCP_TEST_COMMUNITY", check: func(t *testing.T, c *Config) {
			if c.community != secretValue {
				t.Errorf("env: %+v", c)
			}
		}},
		{url: "snmp://" + secretValue + "@192.0.2.1", wantErr: "only the well-known read-only \"public\""},
		{url: "snmp://public@192.0.2.1?community-env=NETMCP_TEST_COMMUNITY", wantErr: "both inline and by reference"},
		{url: "snmp://user:" + secretValue + "@192.0.2.1?version=3", wantErr: "by reference only"},
		{url: "snmp://192.0.2.1?community-env=NETMCP_NO_SUCH_VARIABLE", wantErr: "NETMCP_NO_SUCH_VARIABLE is not set"},
		{url: "snmp://192.0.2.1?community-file=" + comm + "&community-env=NETMCP_TEST_COMMUNITY", wantErr: "both community-file and community-env"},
		{url: "snmp://192.0.2.1?community-file=" + two, wantErr: "exactly one non-empty line"},
		{url: "snmp://192.0.2.1?community-file=/nonexistent/netmcp", wantErr: "community-file"},
		{url: "snmp://192.0.2.1?comunity-file=" + comm, wantErr: "unknown URL parameter \"comunity-file\""},
		{url: "snmp://192.0.2.1?version=1", wantErr: "want 2c or 3"},
		{url: "snmp://192.0.2.1?user=bob", wantErr: "for SNMPv3"},
		{url: "snmp://192.0.2.1?timeout=forever", wantErr: "timeout="},
		{url: "snmp://192.0.2.1:0", wantErr: "want 1..65535"},
		{url: "snmp:///nohost", wantErr: "names no host"},
		{url: "snmp://192.0.2.1?version=3", wantErr: "needs a user name"},
		{url: "snmp://bob@192.0.2.1?version=3", check: func(t *testing.T, c *Config) {
			if c.SecurityLevel() != "noAuthNoPriv" || c.User != "bob" {
				t.Errorf("v3 no keys: %+v %s", c, c.SecurityLevel())
			}
		}},
		{url: "snmp://bob@192.0.2.1?version=3&auth-file=" + key, check: func(t *testing.T, c *Config) {
			if c.SecurityLevel() != "authNoPriv" || c.AuthProto != gosnmp.SHA || c.PrivProto != gosnmp.NoPriv {
				t.Errorf("v3 auth: %+v %s", c, c.SecurityLevel())
			}
		}},
		{url: "snmp://bob@192.0.2.1?version=3&auth=sha256&auth-env=NETMCP_TEST_KEY&priv=aes256&priv-file=" + key, check: func(t *testing.T, c *Config) {
			if c.SecurityLevel() != "authPriv" || c.AuthProto != gosnmp.SHA256 || c.PrivProto != gosnmp.AES256 {
				t.Errorf("v3 authPriv: %+v %s", c, c.SecurityLevel())
			}
			if s := c.String(); strings.Contains(s, "long-enough-key") || !strings.Contains(s, "authPriv") {
				t.Errorf("String %q", s)
			}
		}},
		{url: "snmp://bob@192.0.2.1?version=3&priv-file=" + key, wantErr: "privacy without authentication"},
		{url: "snmp://bob@192.0.2.1?version=3&auth-file=" + short, wantErr: "shorter than 8"},
		{url: "snmp://bob@192.0.2.1?version=3&auth-file=" + key + "&auth=md4", wantErr: "auth=\"md4\""},
		{url: "snmp://bob@192.0.2.1?version=3&community-file=" + comm, wantErr: "a community is for SNMPv2c"},
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

func TestInetIndexes(t *testing.T) {
	// From net-snmp on Linux: 198.51.100.0/30 connected, policy 0.0.2, no next hop.
	r, ok := inetCidrIndex([]uint32{1, 4, 198, 51, 100, 0, 30, 3, 0, 0, 2, 1, 4, 0, 0, 0, 0})
	if !ok || r.Dest.String() != "198.51.100.0/30" || r.NextHop.IsValid() {
		t.Errorf("v4 connected: %+v %v", r, ok)
	}
	r, ok = inetCidrIndex([]uint32{1, 4, 0, 0, 0, 0, 0, 3, 0, 0, 4, 1, 4, 192, 0, 2, 1})
	if !ok || r.Dest.String() != "0.0.0.0/0" || r.NextHop.String() != "192.0.2.1" {
		t.Errorf("v4 default: %+v %v", r, ok)
	}
	idx := []uint32{2, 16, 254, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 3, 0, 0, 2, 2, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	r, ok = inetCidrIndex(idx)
	if !ok || r.Dest.String() != "fe80::/64" || r.NextHop.IsValid() {
		t.Errorf("v6 link-local: %+v %v", r, ok)
	}
	if _, ok := inetCidrIndex([]uint32{1, 4, 198, 51}); ok {
		t.Error("a truncated index decoded")
	}
	if _, ok := inetCidrIndex([]uint32{1, 4, 198, 51, 100, 0, 33, 3, 0, 0, 2, 1, 4, 0, 0, 0, 0}); ok {
		t.Error("prefix length 33 decoded")
	}
}
