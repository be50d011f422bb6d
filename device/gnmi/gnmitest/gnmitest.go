// Package gnmitest serves a device.Driver over gNMI on loopback with a
// test CA, for the tests of the gnmi:// driver and of the server: mutual
// TLS with certificates from pki, a gnmi:// URL to reach it, and a restart
// on the same port.
package gnmitest

import (
	"context"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/pki"
)

// Target is a gNMI server on 127.0.0.1 serving one driver.
type Target struct {
	t    testing.TB
	drv  device.Driver
	opts gnmiserver.Options

	// Port is the server's port; Addr is 127.0.0.1:Port.
	Port int
	Addr string
	// Files of the test PKI: the CA's certificate, the server's and a
	// client's certificate and key (PEM).
	CAFile, ServerCert, ServerKey, ClientCert, ClientKey string
	// CA is the test CA (to issue more certificates).
	CA *pki.CA

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan error
}

// Start serves drv with mutual TLS (the client certificate must be the
// test CA's) and opts (its TLS is set here); the server stops with the
// test. The driver is not closed.
func Start(t testing.TB, drv device.Driver, opts gnmiserver.Options) *Target {
	t.Helper()
	ca, err := pki.NewCA("gnmitest CA")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tg := &Target{t: t, drv: drv, CA: ca, CAFile: filepath.Join(dir, "ca.pem")}
	if err := pki.WriteFile(tg.CAFile, ca.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	scert, skey, err := ca.Issue("localhost", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if tg.ServerCert, tg.ServerKey, err = pki.WriteKeyPair(dir, "server", scert, skey); err != nil {
		t.Fatal(err)
	}
	ccert, ckey, err := ca.Issue("netmcp", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if tg.ClientCert, tg.ClientKey, err = pki.WriteKeyPair(dir, "client", ccert, ckey); err != nil {
		t.Fatal(err)
	}
	opts.TLS, err = pki.ServerTLSConfig(scert, skey, ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	opts.TLS.MinVersion = 0 // gnmi_cli and other clients may offer TLS 1.2
	tg.opts = opts
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg.Addr = l.Addr().String()
	tg.Port = l.Addr().(*net.TCPAddr).Port
	tg.serve(l)
	t.Cleanup(tg.Stop)
	return tg
}

func (tg *Target) serve(l net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv := gnmiserver.New(tg.drv, tg.opts)
	go func() { done <- srv.Serve(ctx, l) }()
	tg.mu.Lock()
	tg.cancel, tg.done = cancel, done
	tg.mu.Unlock()
}

// Stop stops the server (every stream ends); it may be called twice.
func (tg *Target) Stop() {
	tg.mu.Lock()
	cancel, done := tg.cancel, tg.done
	tg.cancel, tg.done = nil, nil
	tg.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	if err := <-done; err != nil {
		tg.t.Errorf("gnmitest: Serve: %v", err)
	}
}

// Restart stops the server and serves again on the same port after
// down (a target that restarts).
func (tg *Target) Restart(down time.Duration) {
	tg.t.Helper()
	tg.Stop()
	time.Sleep(down)
	var l net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if l, err = net.Listen("tcp", tg.Addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		tg.t.Fatalf("gnmitest: listening again on %s: %v", tg.Addr, err)
	}
	tg.serve(l)
}

// URL is the gnmi:// URL of the target with the test CA and client
// certificate, plus extra query parameters.
func (tg *Target) URL(extra ...string) string {
	q := url.Values{}
	q.Set("ca-file", tg.CAFile)
	q.Set("cert-file", tg.ClientCert)
	q.Set("key-file", tg.ClientKey)
	q.Set("server-name", "localhost")
	q.Set("timeout", "10s")
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return "gnmi://127.0.0.1:" + strconv.Itoa(tg.Port) + "?" + q.Encode()
}
