package tlsstream_test

import (
	"context"
	"crypto/tls"
	"net"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// TestAcceptSkipsRefused checks Listener.Accept on its own (without Serve):
// a connection that does not offer ALPN "mcp" is reported to OnRefused and
// skipped, the next good one is returned with its peer's address, and an
// MCP session runs over it.
func TestAcceptSkipsRefused(t *testing.T) {
	l := newLab(t)
	srvCfg, err := pki.ServerTLSConfig(l.srvCert, l.srvKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tlsstream.Listen("127.0.0.1:0", srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	refused := make(chan error, 2)
	ln.OnRefused = func(_ net.Addr, err error) { refused <- err }

	type accepted struct {
		t   *tlsstream.ConnTransport
		err error
	}
	got := make(chan accepted, 1)
	go func() {
		ct, err := ln.Accept()
		got <- accepted{ct, err}
	}()

	// First a client speaking another protocol: refused and skipped.
	bad, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "127.0.0.1")
	bad.NextProtos = []string{"h2"}
	if conn, err := tls.Dial("tcp", ln.Addr().String(), bad); err == nil {
		conn.Close()
		t.Fatal("handshake offering only h2 succeeded")
	}
	wantRefusal(t, refused, "unsupported application protocols")

	// Then an MCP client: Accept returns its transport.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cliCfg, _ := pki.ClientTLSConfig(l.ca.CertPEM, nil, nil, "")
	client := mcp.NewClient(&mcp.Implementation{Name: "controller", Version: "1"}, nil)
	type session struct {
		cs  *mcp.ClientSession
		err error
	}
	clientDone := make(chan session, 1)
	go func() {
		cs, err := client.Connect(ctx, tlsstream.ClientTransport{Addr: ln.Addr().String(), Config: cliCfg}, nil)
		clientDone <- session{cs, err}
	}()
	a := <-got
	if a.err != nil {
		t.Fatalf("Accept: %v", a.err)
	}
	if ip := a.t.RemoteAddr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		t.Errorf("RemoteAddr = %v, want the loopback client", a.t.RemoteAddr())
	}
	if p := a.t.ConnectionState().NegotiatedProtocol; p != "mcp" {
		t.Errorf("negotiated protocol %q, want mcp", p)
	}
	ss, err := echoServer().Connect(ctx, a.t, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := <-clientDone
	if c.err != nil {
		t.Fatalf("client: %v", c.err)
	}
	defer c.cs.Close()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "hello" {
		t.Errorf("echo returned %q", txt)
	}

	// A closed listener ends Accept with an error.
	ln.Close()
	if _, err := ln.Accept(); err == nil {
		t.Error("Accept on a closed listener returned no error")
	}
}
