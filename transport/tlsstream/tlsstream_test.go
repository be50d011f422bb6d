package tlsstream_test

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// lab is a CA with a device certificate and a client certificate.
type lab struct {
	ca                  *pki.CA
	srvCert, srvKey     []byte
	cliCert, cliKey     []byte
	otherCA             *pki.CA
	otherCert, otherKey []byte
	expiredCli, expKey  []byte
	expiredSrv, expSKey []byte
}

func newLab(t *testing.T) *lab {
	t.Helper()
	must := func(c, k []byte, err error) ([]byte, []byte) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c, k
	}
	ca, err := pki.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("other CA")
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{ca: ca, otherCA: other}
	l.srvCert, l.srvKey = must(ca.Issue("r1", pki.KindServer, 0))
	l.cliCert, l.cliKey = must(ca.Issue("alice", pki.KindClient, time.Hour))
	l.otherCert, l.otherKey = must(other.Issue("mallory", pki.KindClient, time.Hour))
	past := time.Now().Add(-48 * time.Hour)
	l.expiredCli, l.expKey = must(ca.IssueWindow("bob", pki.KindClient, past, past.Add(time.Hour)))
	l.expiredSrv, l.expSKey = must(ca.IssueWindow("r1", pki.KindServer, past, past.Add(time.Hour)))
	return l
}

func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "r1", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo text"},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	return s
}

// serve starts Serve on a loopback port; it returns the address and the
// channel of refusals seen by the listener, plus peer CNs seen by newServer.
func serve(t *testing.T, cfg *tls.Config) (addr string, refused chan error, peers chan string) {
	t.Helper()
	l, err := tlsstream.Listen("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	refused = make(chan error, 10)
	peers = make(chan string, 10)
	l.OnRefused = func(_ net.Addr, err error) { refused <- err }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- tlsstream.Serve(ctx, l, func(t *tlsstream.ConnTransport) (*mcp.Server, func(), error) {
			cn := ""
			if st := t.ConnectionState(); len(st.PeerCertificates) > 0 {
				cn = st.PeerCertificates[0].Subject.CommonName
			}
			peers <- cn
			return echoServer(), nil, nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.Addr().String(), refused, peers
}

// wantRefusal waits (at most 5 s) for the refusal the listener reports and
// checks that it mentions want.
func wantRefusal(t *testing.T, refused <-chan error, want string) {
	t.Helper()
	select {
	case err := <-refused:
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("server refusal %q does not mention %q", err, want)
		}
	case <-time.After(testwait.Timeout(5 * time.Second)):
		t.Fatalf("server reported no refusal (want one mentioning %q)", want)
	}
}

func TestMutualTLSAcceptAndRefuse(t *testing.T) {
	l := newLab(t)
	srvCfg, err := pki.ServerTLSConfig(l.srvCert, l.srvKey, l.ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	expiredSrvCfg, err := pki.ServerTLSConfig(l.expiredSrv, l.expSKey, l.ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		server      *tls.Config
		ca          []byte
		cert, key   []byte
		serverName  string
		wantOK      bool
		force       bool   // present the certificate even if the server's CA list does not name its issuer
		clientErr   string // substring of the client's error
		refusedWant string // substring of the server's refusal ("" = server may not see one)
	}{
		{name: "accepted", server: srvCfg, ca: l.ca.CertPEM, cert: l.cliCert, key: l.cliKey, wantOK: true},
		{name: "accepted by name localhost", server: srvCfg, ca: l.ca.CertPEM, cert: l.cliCert, key: l.cliKey, serverName: "localhost", wantOK: true},
		{name: "client cert from wrong CA", server: srvCfg, ca: l.ca.CertPEM, cert: l.otherCert, key: l.otherKey, force: true,
			refusedWant: "unknown authority"},
		{name: "expired client cert", server: srvCfg, ca: l.ca.CertPEM, cert: l.expiredCli, key: l.expKey,
			refusedWant: "expired"},
		{name: "no client cert under mTLS", server: srvCfg, ca: l.ca.CertPEM,
			refusedWant: "didn't provide a certificate"},
		{name: "server from untrusted CA", server: srvCfg, ca: l.otherCA.CertPEM, cert: l.cliCert, key: l.cliKey,
			clientErr: "unknown authority"},
		{name: "expired server cert", server: expiredSrvCfg, ca: l.ca.CertPEM, cert: l.cliCert, key: l.cliKey,
			clientErr: "expired"},
		{name: "wrong server name", server: srvCfg, ca: l.ca.CertPEM, cert: l.cliCert, key: l.cliKey, serverName: "r9",
			clientErr: "r9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, refused, peers := serve(t, tt.server)
			cfg, err := pki.ClientTLSConfig(tt.ca, tt.cert, tt.key, tt.serverName)
			if err != nil {
				t.Fatal(err)
			}
			if tt.force {
				pair := cfg.Certificates[0]
				cfg.Certificates = nil
				cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
			}
			ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(10*time.Second))
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "ctl", Version: "1"}, nil)
			cs, err := client.Connect(ctx, tlsstream.ClientTransport{Addr: addr, Config: cfg}, nil)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				defer cs.Close()
				res, err := cs.ListTools(ctx, nil)
				if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "echo" {
					t.Fatalf("tools/list = %+v, %v", res, err)
				}
				out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
				if err != nil || out.Content[0].(*mcp.TextContent).Text != "hi" {
					t.Fatalf("tools/call = %+v, %v", out, err)
				}
				if cn := <-peers; cn != "alice" {
					t.Fatalf("server saw peer CN %q, want alice", cn)
				}
				return
			}
			if err == nil {
				cs.Close()
				t.Fatal("Connect succeeded, want refusal")
			}
			if tt.clientErr != "" && !strings.Contains(err.Error(), tt.clientErr) {
				t.Fatalf("client error %q does not mention %q", err, tt.clientErr)
			}
			if tt.refusedWant != "" {
				wantRefusal(t, refused, tt.refusedWant)
			}
			select {
			case cn := <-peers:
				t.Fatalf("a session was created for %q", cn)
			default:
			}
		})
	}
}

func TestALPNRequired(t *testing.T) {
	l := newLab(t)
	srvCfg, err := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		protos []string
		want   string
	}{
		{"other protocol", []string{"h2"}, "unsupported application protocols"},
		{"no ALPN offered", nil, `"mcp" is required`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, refused, _ := serve(t, srvCfg)
			cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "")
			cfg.NextProtos = tt.protos
			cfg.ServerName = "127.0.0.1"
			conn, err := tls.Dial("tcp", addr, cfg)
			if err == nil {
				// Handshake passed (no ALPN): the server must hang up without a session.
				conn.SetReadDeadline(time.Now().Add(testwait.Timeout(5 * time.Second)))
				if _, rerr := conn.Read(make([]byte, 1)); rerr == nil {
					t.Fatal("server kept a connection without ALPN mcp")
				}
				conn.Close()
			}
			wantRefusal(t, refused, tt.want)
		})
	}
}

func TestTLS12Refused(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	addr, refused, _ := serve(t, srvCfg)
	cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	cfg.NextProtos = []string{"mcp"}
	if conn, err := tls.Dial("tcp", addr, cfg); err == nil {
		conn.Close()
		t.Fatal("TLS 1.2 handshake accepted")
	}
	wantRefusal(t, refused, "version")
}

// TestServeNewServerHooks checks what Serve does with newServer's answer:
// an error refuses the connection and reaches OnRefused, and the end
// function runs once the session is over.
func TestServeNewServerHooks(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	cliCfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	for _, tt := range []struct {
		name    string
		refuse  error
		wantErr string // substring of the refusal; "" = a session opens
	}{
		{"accepted", nil, ""},
		{"refused by newServer", errors.New("no role for this peer"), "no role for this peer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			sl, err := tlsstream.NewListener(ln, srvCfg)
			if err != nil {
				t.Fatal(err)
			}
			refused := make(chan error, 1)
			sl.OnRefused = func(_ net.Addr, err error) { refused <- err }
			ended := make(chan string, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go tlsstream.Serve(ctx, sl, func(ct *tlsstream.ConnTransport) (*mcp.Server, func(), error) {
				sid := ct.SessionID()
				return echoServer(), func() { ended <- sid }, tt.refuse
			})
			cctx, ccancel := context.WithTimeout(ctx, testwait.Timeout(10*time.Second))
			defer ccancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
				Connect(cctx, tlsstream.ClientTransport{Addr: ln.Addr().String(), Config: cliCfg}, nil)
			if tt.wantErr != "" {
				if err == nil {
					cs.Close()
					t.Fatal("Connect succeeded, want refusal")
				}
				wantRefusal(t, refused, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			select {
			case sid := <-ended:
				t.Fatalf("end of session %s ran while it is open", sid)
			default:
			}
			cs.Close()
			select {
			case sid := <-ended:
				if len(sid) != 32 {
					t.Fatalf("session id %q, want 32 hex digits", sid)
				}
			case <-time.After(testwait.Timeout(5 * time.Second)):
				t.Fatal("end not called after the session closed")
			}
		})
	}
}

// TestOversizeFrame sends a header announcing 5 MiB: the server answers with
// a JSON-RPC error naming the limit and closes the connection.
func TestOversizeFrame(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	addr, _, _ := serve(t, srvCfg)
	cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	cfg.NextProtos = []string{"mcp"}
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write(binary.BigEndian.AppendUint32(nil, 5<<20)); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(testwait.Timeout(5 * time.Second)))
	fr := tlsstream.NewFrameReader(conn, 0)
	body, err := fr.ReadFrame()
	if err != nil {
		t.Fatalf("no error frame: %v", err)
	}
	if s := string(body); !strings.Contains(s, `"code":-32600`) || !strings.Contains(s, "exceeds the maximum frame size of 4194304 bytes") {
		t.Fatalf("error frame %s", s)
	}
	if _, err := fr.ReadFrame(); err != io.EOF && err != io.ErrUnexpectedEOF && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("connection not closed after oversize frame: %v", err)
	}
}

// TestManyConcurrentSessions runs several clients at once over one listener.
func TestManyConcurrentSessions(t *testing.T) {
	l := newLab(t)
	srvCfg, _ := pki.ServerTLSConfig(l.srvCert, l.srvKey, l.ca.CertPEM)
	addr, _, _ := serve(t, srvCfg)
	cfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, l.cliCert, l.cliKey, "")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(10*time.Second))
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).
				Connect(ctx, tlsstream.ClientTransport{Addr: addr, Config: cfg}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			if _, err := cs.ListTools(ctx, nil); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkCallTool measures one tools/call round trip over an established
// mutual-TLS stream session on loopback.
func BenchmarkCallTool(b *testing.B) {
	ca, _ := pki.NewCA("bench CA")
	sc, sk, _ := ca.Issue("r1", pki.KindServer, 0)
	cc, ck, _ := ca.Issue("alice", pki.KindClient, 0)
	srvCfg, _ := pki.ServerTLSConfig(sc, sk, ca.CertPEM)
	cliCfg, _ := pki.ClientTLSConfig(ca.CertPEM, cc, ck, "")
	l, err := tlsstream.Listen("127.0.0.1:0", srvCfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tlsstream.Serve(ctx, l, func(*tlsstream.ConnTransport) (*mcp.Server, func(), error) { return echoServer(), nil, nil })
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).
		Connect(ctx, tlsstream.ClientTransport{Addr: l.Addr().String(), Config: cliCfg}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.Logf("TLS 1.3 mTLS handshake + MCP initialize: %s", time.Since(start))
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}
	for b.Loop() {
		if _, err := cs.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}
