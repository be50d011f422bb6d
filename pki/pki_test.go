package pki

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIssue(t *testing.T) {
	ca, err := NewCA("lab")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		kind    Kind
		ttl     time.Duration
		wantDNS []string
		wantIPs []string
		wantEKU x509.ExtKeyUsage
	}{
		{"r1", KindServer, 0, []string{"localhost", "r1"}, []string{"127.0.0.1", "::1"}, x509.ExtKeyUsageServerAuth},
		{"r1.lab.example", KindServer, time.Hour, []string{"localhost", "r1.lab.example"}, []string{"127.0.0.1", "::1"}, x509.ExtKeyUsageServerAuth},
		{"192.0.2.1", KindServer, 0, []string{"localhost"}, []string{"127.0.0.1", "::1", "192.0.2.1"}, x509.ExtKeyUsageServerAuth},
		{"alice", KindClient, 0, []string{"alice"}, nil, x509.ExtKeyUsageClientAuth},
		{"Alice Smith", KindClient, 0, nil, nil, x509.ExtKeyUsageClientAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			certPEM, keyPEM, err := ca.Issue(tt.name, tt.kind, tt.ttl)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(keyPEM), "PRIVATE KEY") {
				t.Fatal("no private key PEM")
			}
			c, err := parseCert(certPEM)
			if err != nil {
				t.Fatal(err)
			}
			if c.Subject.CommonName != tt.name {
				t.Errorf("CN %q", c.Subject.CommonName)
			}
			if !slices.Equal(c.DNSNames, tt.wantDNS) {
				t.Errorf("DNS SANs %q, want %q", c.DNSNames, tt.wantDNS)
			}
			var ips []string
			for _, ip := range c.IPAddresses {
				ips = append(ips, ip.String())
			}
			if !slices.Equal(ips, tt.wantIPs) {
				t.Errorf("IP SANs %q, want %q", ips, tt.wantIPs)
			}
			if len(c.ExtKeyUsage) != 1 || c.ExtKeyUsage[0] != tt.wantEKU {
				t.Errorf("EKU %v", c.ExtKeyUsage)
			}
			if k, ok := KindOf(c); !ok || k != tt.kind || IsDevice(c) != (tt.kind == KindServer) {
				t.Errorf("KindOf = %q %v, IsDevice = %v; issued as %q", k, ok, IsDevice(c), tt.kind)
			}
			want := tt.ttl
			if want == 0 {
				want = DefaultTTL
			}
			if life := time.Until(c.NotAfter); life > want || life < want-time.Minute {
				t.Errorf("lifetime %s, want about %s", life, want)
			}
			pool := x509.NewCertPool()
			pool.AddCert(ca.Cert)
			opts := x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{tt.wantEKU}}
			if tt.kind == KindServer {
				opts.DNSName = "localhost"
			}
			if _, err := c.Verify(opts); err != nil {
				t.Errorf("does not verify against the CA: %v", err)
			}
			if tt.kind == KindServer && c.VerifyHostname("127.0.0.1") != nil {
				t.Error("no 127.0.0.1 SAN")
			}
		})
	}
	if _, _, err := ca.Issue("x", "peer", 0); err == nil || !strings.Contains(err.Error(), "unknown certificate kind") {
		t.Errorf("bad kind: %v", err)
	}
	if _, _, err := ca.IssueWindow("x", KindClient, time.Now(), time.Now().Add(-time.Hour)); err == nil {
		t.Error("inverted window accepted")
	}
	if k, ok := KindOf(ca.Cert); ok {
		t.Errorf("the CA certificate has kind %q", k)
	}
	old, err := NewCAWindow("old", time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	if err != nil || !old.Cert.NotAfter.Before(time.Now()) {
		t.Errorf("NewCAWindow: %v %v", old, err)
	}
	if _, err := NewCAWindow("x", time.Now(), time.Now().Add(-time.Hour)); err == nil {
		t.Error("inverted CA window accepted")
	}
}

func TestSaveLoadCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	ca, err := NewCA("lab")
	if err != nil {
		t.Fatal(err)
	}
	if err := ca.Save(dir); err != nil {
		t.Fatal(err)
	}
	for file, mode := range map[string]os.FileMode{CAKeyFile: 0o600, CACertFile: 0o644} {
		st, err := os.Stat(filepath.Join(dir, file))
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, %v; want %v", file, st.Mode().Perm(), err, mode)
		}
	}
	if err := ca.Save(dir); err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
		t.Errorf("second Save: %v", err)
	}
	back, err := LoadCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := back.Issue("r2", KindServer, 0)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath, err := WriteKeyPair(dir, "r2", certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(keyPath); st.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v", st.Mode().Perm())
	}
	c, _ := parseCert(mustRead(t, certPath))
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	if _, err := c.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Errorf("reloaded CA issues unverifiable certs: %v", err)
	}
	if _, _, err := WriteKeyPair(dir, "../evil", certPEM, keyPEM); err == nil {
		t.Error("path traversal name accepted")
	}
	if _, err := LoadCA(t.TempDir()); err == nil || !strings.Contains(err.Error(), "pki init") {
		t.Errorf("LoadCA of empty dir: %v", err)
	}
}

func TestTLSConfigs(t *testing.T) {
	ca, _ := NewCA("lab")
	c, k, _ := ca.Issue("r1", KindServer, 0)
	srv, err := ServerTLSConfig(c, k, ca.CertPEM)
	if err != nil || srv.MinVersion != 0x0304 || srv.ClientAuth.String() != "RequireAndVerifyClientCert" {
		t.Fatalf("mTLS server config %+v, %v", srv, err)
	}
	srv, _ = ServerTLSConfig(c, k, nil)
	if srv.ClientCAs != nil || srv.ClientAuth != 0 {
		t.Fatal("server without client CA requires client certs")
	}
	if _, err := ServerTLSConfig(c, []byte("junk"), nil); err == nil {
		t.Fatal("bad key accepted")
	}
	if _, err := ClientTLSConfig([]byte("junk"), nil, nil, ""); err == nil || !strings.Contains(err.Error(), "no certificate") {
		t.Fatalf("bad CA: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
