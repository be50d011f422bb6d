package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// TestServeSurvivesConnectionFlood runs `netmcp serve` with HTTPS and the
// TLS stream under a file descriptor limit of 100, holds 300 raw TCP
// connections open on each listener, and checks that the process stays up
// and serves a new client over both. Before, the TLS stream's Accept failed
// with EMFILE, which ended the process (exit 1) and took HTTPS down too.
func TestServeSurvivesConnectionFlood(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the file descriptor limit")
	}
	dir := t.TempDir()
	ca, err := pki.NewCA("flood CA")
	if err != nil {
		t.Fatal(err)
	}
	cert, key, err := ca.Issue("127.0.0.1", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "srv.pem"), filepath.Join(dir, "srv.key")
	if err := os.WriteFile(certFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr syncbuf.Buffer
	cmd := exec.Command("sh", "-c", `ulimit -n 100 && exec "$@"`, "sh", netmcpBinary(t), "serve", "--device", "sim://r1", "--no-state",
		"--listen", "127.0.0.1:0", "--tls-stream-listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile,
		"--max-conns-per-source", "16")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	httpsRe := regexp.MustCompile(`at https://([0-9.:]+)/mcp`)
	streamRe := regexp.MustCompile(`on the TLS stream at ([0-9.:]+)`)
	var httpsAddr, streamAddr string
	for deadline := time.Now().Add(20 * time.Second); (httpsAddr == "" || streamAddr == "") && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := httpsRe.FindStringSubmatch(stderr.String()); m != nil {
			httpsAddr = m[1]
		}
		if m := streamRe.FindStringSubmatch(stderr.String()); m != nil {
			streamAddr = m[1]
		}
	}
	if httpsAddr == "" || streamAddr == "" {
		t.Fatalf("addresses not announced: %q", stderr.String())
	}

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for _, addr := range []string{streamAddr, httpsAddr} {
		for range 300 {
			c, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				t.Fatalf("dial %s: %v", addr, err)
			}
			held = append(held, c)
		}
	}
	time.Sleep(time.Second) // let the server accept what it will
	select {
	case err := <-exited:
		t.Fatalf("netmcp serve exited under the flood: %v\n%s", err, stderr.String())
	default:
	}

	// A new client from another source is served over both listeners
	// while the flood is held.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	other := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	hc := &http.Client{Transport: &http.Transport{DialContext: other.DialContext,
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}}}
	client := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "1"}, nil)
	for name, tr := range map[string]mcp.Transport{
		"https":      &mcp.StreamableClientTransport{Endpoint: "https://" + httpsAddr + "/mcp", HTTPClient: hc, MaxRetries: -1},
		"tls-stream": tlsstream.ClientTransport{Addr: streamAddr, NetDialer: other, Config: &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}},
	} {
		cs, err := client.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatalf("%s: a new client was not served during the flood: %v\n%s", name, err, stderr.String())
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatalf("%s: tools/list during the flood: %v", name, err)
		}
		cs.Close()
	}
	select {
	case err := <-exited:
		t.Fatalf("netmcp serve exited: %v\n%s", err, stderr.String())
	default:
	}
}
