package agent

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
)

// otherCert is another certificate of the CA for name (valid, not the
// one name's agent uses or advertises), DER, and its key.
func otherCert(t *testing.T, d *testDomain, name string) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	c, k, err := d.ca.Issue(name, pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(c, k)
	if err != nil {
		t.Fatal(err)
	}
	return pair.Certificate[0], pair.PrivateKey.(*ecdsa.PrivateKey)
}

// TestThumbprintSpoofWithoutKey: a peer presents another valid
// certificate of r2, without its private key, to r3 (as a caller) and to
// r1 (answering at r2's advertised port). Neither handshake completes,
// and neither agent holds it against r2.
func TestThumbprintSpoofWithoutKey(t *testing.T) {
	d := newDomain(t, domainOpts{callTimeout: 5 * time.Second})
	ctx := context.Background()
	der, _ := otherCert(t, d, "r2")
	wrongKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	spoof := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: wrongKey}

	// As a caller, to r3 (which heard r2's TLV).
	r3 := d.agents["r3"]
	r3.Discover(ctx)
	conn, err := tls.Dial("tcp", d.lns["r3"].Addr().String(), &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true,
		Certificates: []tls.Certificate{spoof}})
	if err == nil {
		// TLS 1.3: the client's certificate is judged after the client's
		// handshake returns; a read shows the server's verdict.
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err = conn.Read(make([]byte, 1))
		conn.Close()
	}
	t.Logf("spoofing caller: %v", err)
	if why, bad := r3.Untrusted()["r2"]; bad {
		t.Errorf("r3 marked r2 untrusted after a handshake that proved no key: %s", why)
	}
	if _, err := r3.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.1", "count": 1, "intervalMs": 200}); err != nil {
		t.Errorf("r3 cannot call r2 any more: %v", err)
	}

	// As a callee, at the port r1 dials for r2.
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{spoof},
		ClientAuth: tls.RequestClientCert})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { c.(*tls.Conn).Handshake(); c.Close() }()
		}
	}()
	r1 := d.agents["r1"]
	ns, _ := d.disc["r1"].Neighbors(ctx)
	saved := append(ns[:0:0], ns...)
	for i := range ns {
		if ns[i].Name == "r2" {
			ns[i].Advert.Port = uint16(ln.Addr().(*net.TCPAddr).Port)
		}
	}
	d.disc["r1"].set(ns)
	r1.Discover(ctx)
	_, err = r1.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.2", "count": 1, "intervalMs": 200})
	t.Logf("spoofing callee: %v", err)
	if err == nil {
		t.Fatal("r1 accepted the spoofing callee")
	}
	if why, bad := r1.Untrusted()["r2"]; bad {
		t.Errorf("r1 marked r2 untrusted after a handshake that proved no key: %s", why)
	}
	d.disc["r1"].set(saved)
	r1.Discover(ctx)
	if _, err := r1.Call(ctx, "r2", netproto.ToolPing, map[string]any{"destination": "10.0.12.2", "count": 1, "intervalMs": 200}); err != nil {
		t.Errorf("r1 cannot call r2 any more: %v", err)
	}
}

// TestUntrustedMarkExpires: a caller that completes the handshake with
// another certificate of r2 (and its key) gets r2 marked untrusted by r3,
// for a while: the mark expires.
func TestUntrustedMarkExpires(t *testing.T) {
	d := newDomain(t, domainOpts{})
	ctx := context.Background()
	r3 := d.agents["r3"]
	r3.Discover(ctx)
	der, key := otherCert(t, d, "r2")
	cfg := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true, Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: 5 * time.Second}
	resp, err := hc.Post("https://"+d.lns["r3"].Addr().String()+"/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("r3 served a session to r2's other certificate")
		}
	}
	if _, bad := r3.Untrusted()["r2"]; !bad {
		t.Fatalf("a completed handshake with another certificate of r2 did not mark r2 (%v)", err)
	}
	later := time.Now().Add(6 * time.Minute)
	r3.cfg.Now = func() time.Time { return later }
	if why, bad := r3.Untrusted()["r2"]; bad {
		t.Fatalf("r2 still untrusted six minutes later: %s", why)
	}
}
