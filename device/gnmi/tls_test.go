package gnmi_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

// otherCA writes a CA the server does not know, and a client
// certificate it issued, into dir.
func otherCA(t *testing.T) (caFile, cert, key string) {
	t.Helper()
	ca, err := pki.NewCA("another CA")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caFile = filepath.Join(dir, "other-ca.pem")
	if err := pki.WriteFile(caFile, ca.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	c, k, err := ca.Issue("intruder", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err = pki.WriteKeyPair(dir, "intruder", c, k)
	if err != nil {
		t.Fatal(err)
	}
	return caFile, cert, key
}

// TestWrongCertificate: a server certificate the CA did not sign, a
// client certificate of another CA, another server name, or no TLS at
// all are each refused with a clear error, and nothing is read.
func TestWrongCertificate(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	caFile, cert, key := otherCA(t)
	for _, tc := range []struct {
		name  string
		extra []string
		code  int
		words string
	}{
		{"server certificate of an unknown CA", []string{"ca-file", caFile}, netproto.CodeAccessDenied, "TLS"},
		{"client certificate of an unknown CA", []string{"cert-file", cert, "key-file", key}, netproto.CodeAccessDenied, ""},
		{"another server name", []string{"server-name", "r9.example"}, netproto.CodeAccessDenied, "TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			d, err := device.Open(ctx, l.URL(tc.extra...), device.Options{})
			if err == nil {
				d.Close()
				t.Fatal("opened")
			}
			ne := wantCode(t, tc.name, err, tc.code)
			if !strings.Contains(ne.Detail, tc.words) || !strings.Contains(ne.Detail, l.Addr) {
				t.Errorf("detail %q: want the address and %q", ne.Detail, tc.words)
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
	t.Run("plaintext to a TLS server", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err := device.Open(ctx, "gnmi://"+l.Addr+"?insecure=1&timeout=5s", device.Options{})
		var ne *netproto.Error
		if !errors.As(err, &ne) || (ne.Code != netproto.CodeUnreachable && ne.Code != netproto.CodeAccessDenied) {
			t.Fatalf("plaintext to a TLS server: %v", err)
		}
	})
}

// TestPassword: a user and password by reference travel as metadata;
// a wrong password is -32083.
func TestPassword(t *testing.T) {
	l := startLab(t, gnmiserver.Options{Authenticate: func(_ context.Context, user, pw string) error {
		if user != "admin" || pw != "s3cret" {
			return errors.New("bad user or password")
		}
		return nil
	}})
	t.Setenv("GNMI_TEST_PW", "s3cret")
	withUser := func(extra ...string) string {
		u, _ := url.Parse(l.URL(extra...))
		u.User = url.User("admin")
		return u.String()
	}
	d := openURL(t, withUser("password-env", "GNMI_TEST_PW"))
	if _, err := d.Get(ctxT(t), device.Operational, "/openconfig-interfaces:interfaces"); err != nil {
		t.Fatalf("Get with the right password: %v", err)
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("wrong\n"), 0o600)
	_, err := device.Open(ctxT(t), withUser("password-file", pw), device.Options{})
	wantCode(t, "wrong password", err, netproto.CodeAccessDenied)
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error shows the password: %v", err)
	}
}

// TestInsecure: insecure=1 speaks plaintext to a plaintext server.
func TestInsecure(t *testing.T) {
	l := startLab(t, gnmiserver.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gnmiserver.New(l.r1, gnmiserver.Options{}).Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	d := openURL(t, "gnmi://"+ln.Addr().String()+"?insecure=1")
	if _, err := d.Get(ctxT(t), device.Operational, "/openconfig-interfaces:interfaces"); err != nil {
		t.Fatal(err)
	}
}

func TestParseURL(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	c, err := pki.NewCA("x")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ca, c.CertPEM, 0o644)
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("hunter2\n"), 0o600)
	for _, tc := range []struct {
		url, err string
	}{
		{"gnmi://r1.example", ""},
		{"gnmi://r1.example:57400?ca-file=" + ca, ""},
		{"gnmi://admin@r1.example?ca-file=" + ca + "&password-file=" + pw, ""},
		{"gnmi://r1.example?insecure=1", ""},
		{"gnmi://r1.example?insecure=1&ca-file=" + ca, "insecure=1 turns TLS off"},
		{"gnmi://r1.example?cert-file=" + ca, "together"},
		{"gnmi://r1.example?password-file=" + pw, "no user"},
		{"gnmi://admin:hunter2@r1.example", "carries a password"},
		{"gnmi://r1.example?ca-file=" + pw, "no PEM certificate"},
		{"gnmi://r1.example?commit-confirmed=maybe", "want extension, snapshot"},
		{"gnmi://r1.example?tls=0", "unknown URL parameter"},
	} {
		u, _ := url.Parse(tc.url)
		cfg, err := gnmi.ParseURL(u)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.url, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.url, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "hunter2"):
			t.Errorf("%s: the error shows the password: %v", tc.url, err)
		case cfg != nil && strings.Contains(cfg.String(), "hunter2"):
			t.Errorf("%s: String shows the password: %s", tc.url, cfg)
		}
	}
	u, _ := url.Parse("gnmi://r1.example")
	cfg, _ := gnmi.ParseURL(u)
	if cfg.Port != gnmi.DefaultPort || cfg.TLS == nil || cfg.Insecure {
		t.Errorf("defaults: port %d, TLS %v, insecure %v", cfg.Port, cfg.TLS != nil, cfg.Insecure)
	}
}
