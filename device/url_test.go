package device_test

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

const secretValue = "s3cr3t-v4lue-never-shown"

var testSpec = device.URLSpec{
	Scheme:      "tst",
	Usage:       "tst://USER@HOST[:PORT]",
	DefaultPort: 830,
	NeedUser:    true,
	Params:      []string{"password-file", "password-env", "timeout", "flag", "name"},
	Credentials: "?password-file=PATH or ?password-env=NAME",
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url       string
		spec      device.URLSpec
		wantErr   string
		host      string
		port      int
		user, get string
	}{
		{url: "tst://admin@r1", host: "r1", port: 830, user: "admin"},
		{url: "tst://admin@[2001:db8::1]:2222?name=x", host: "2001:db8::1", port: 2222, user: "admin", get: "x"},
		{url: "tst://" + secretValue + "@r1", spec: device.URLSpec{Scheme: "tst", Params: []string{"name"}}, host: "r1", user: secretValue},
		{url: "tst://r1", spec: device.URLSpec{Scheme: "tst", DefaultPort: 161}, host: "r1", port: 161},
		{url: "other://admin@r1", wantErr: `URL scheme "other" is not "tst"`},
		{url: "tst:///x", wantErr: "tst: device URL names no host (want tst://USER@HOST[:PORT])"},
		{url: "tst://admin@r1/path", wantErr: "device URL for r1 has a path or fragment"},
		{url: "tst://admin@r1#frag", wantErr: "has a path or fragment"},
		{url: "tst://admin:" + secretValue + "@r1", wantErr: "carries a password; credentials are given by reference only: ?password-file=PATH"},
		{url: "tst://:" + secretValue + "@r1", wantErr: "carries a password"},
		{url: "tst://r1", wantErr: "device URL for r1 names no user"},
		{url: "tst://admin@r1:0", wantErr: `port "0" of r1: want 1..65535`},
		{url: "tst://admin@r1:70000", wantErr: "want 1..65535"},
		{url: "tst://admin@r1?a=%zz", wantErr: "query of the device URL for r1"},
		{url: "tst://admin@r1?passwd=x", wantErr: `unknown URL parameter "passwd" (known: password-file, password-env, timeout, flag, name)`},
		{url: "tst://admin@r1?name=a&name=b", wantErr: `URL parameter "name" given 2 times`},
	} {
		t.Run(tc.url, func(t *testing.T) {
			spec := tc.spec
			if spec.Scheme == "" {
				spec = testSpec
			}
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			d, err := device.ParseURL(u, spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), secretValue) {
					t.Fatalf("the error shows the secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Host != tc.host || d.Port != tc.port || d.User != tc.user || d.Query.Get("name") != tc.get {
				t.Errorf("got %+v, want host %q port %d user %q name %q", d, tc.host, tc.port, tc.user, tc.get)
			}
		})
	}
}

func query(t *testing.T, rawQuery string) device.Query {
	t.Helper()
	u, err := url.Parse("tst://admin@r1?" + rawQuery)
	if err != nil {
		t.Fatal(err)
	}
	d, err := device.ParseURL(u, testSpec)
	if err != nil {
		t.Fatal(err)
	}
	return d.Query
}

func TestQuerySecret(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one", secretValue+"\r\n")
	two := write("two", secretValue+"\nmore\n")
	empty := write("empty", "\n")
	t.Setenv("NETMCP_TEST_SECRET", secretValue)
	t.Setenv("NETMCP_TEST_EMPTY", "")
	for _, tc := range []struct {
		query   string
		set     bool
		desc    string
		wantErr string // of Secret, else of Read
	}{
		{query: "", set: false, wantErr: "no credential given"},
		{query: "password-file=" + one, set: true, desc: "password-file " + one},
		{query: "password-env=NETMCP_TEST_SECRET", set: true, desc: "password-env NETMCP_TEST_SECRET"},
		{query: "password-file=" + one + "&password-env=NETMCP_TEST_SECRET", wantErr: "tst: the device URL for r1 gives both password-file and password-env; give one"},
		{query: "password-file=", wantErr: "password-file/password-env is empty in the device URL for r1"},
		{query: "password-env=", wantErr: "is empty in the device URL"},
		{query: "password-file=" + two, set: true, wantErr: "password-file " + two + ": want exactly one non-empty line"},
		{query: "password-file=" + empty, set: true, wantErr: "want exactly one non-empty line"},
		{query: "password-file=/nonexistent/netmcp", set: true, wantErr: "tst: password-file: open /nonexistent/netmcp"},
		{query: "password-env=NETMCP_NO_SUCH_VARIABLE", set: true, wantErr: "environment variable NETMCP_NO_SUCH_VARIABLE is not set or empty"},
		{query: "password-env=NETMCP_TEST_EMPTY", set: true, wantErr: "NETMCP_TEST_EMPTY is not set or empty"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			s, err := query(t, tc.query).Secret("password")
			if err == nil {
				if s.IsSet() != tc.set || s.String() != tc.desc && tc.desc != "" {
					t.Fatalf("Secret = %+v (%s), want set %v, %q", s, s, tc.set, tc.desc)
				}
				var v string
				if v, err = s.Read(); err == nil && v != secretValue {
					t.Fatalf("Read = %q, want the secret", v)
				}
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			case err != nil && strings.Contains(err.Error(), secretValue):
				t.Fatalf("the error shows the secret: %v", err)
			}
		})
	}
	if _, err := (device.Secret{Scheme: "tst", Name: "password"}).Read(); !errors.Is(err, device.ErrNoSecret) {
		t.Errorf("Read of no reference: %v, want ErrNoSecret", err)
	}
}

func TestQueryTyped(t *testing.T) {
	for _, tc := range []struct {
		query   string
		timeout time.Duration
		flag    bool
		flagSet bool
		wantErr string
	}{
		{query: "", timeout: time.Minute},
		{query: "timeout=5s&flag=1", timeout: 5 * time.Second, flag: true, flagSet: true},
		{query: "flag=true", timeout: time.Minute, flag: true, flagSet: true},
		{query: "flag=0", timeout: time.Minute, flagSet: true},
		{query: "flag=false", timeout: time.Minute, flagSet: true},
		{query: "flag=", timeout: time.Minute},
		{query: "timeout=0s", wantErr: `tst: timeout="0s": want a positive duration such as 30s`},
		{query: "timeout=soon", wantErr: "want a positive duration"},
		{query: "flag=maybe", wantErr: `tst: flag="maybe": want 1 or 0`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q := query(t, tc.query)
			d, err := q.Duration("timeout", time.Minute)
			var flag, set bool
			if err == nil {
				flag, set, err = q.Bool("flag")
			}
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case d != tc.timeout || flag != tc.flag || set != tc.flagSet:
				t.Fatalf("timeout %v flag %v set %v; want %v %v %v", d, flag, set, tc.timeout, tc.flag, tc.flagSet)
			}
		})
	}
}
