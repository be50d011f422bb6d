package tlsstream_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

// Example runs an MCP server over the TLS stream with mutual TLS on a
// loopback port and lists its tools from a client.
func Example() {
	ca, _ := pki.NewCA("lab CA")
	srvCert, srvKey, _ := ca.Issue("r1", pki.KindServer, 0)
	cliCert, cliKey, _ := ca.Issue("alice", pki.KindClient, 0)
	srvCfg, _ := pki.ServerTLSConfig(srvCert, srvKey, ca.CertPEM) // mutual TLS
	cliCfg, _ := pki.ClientTLSConfig(ca.CertPEM, cliCert, cliKey, "")

	l, err := tlsstream.Listen("127.0.0.1:0", srvCfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tlsstream.Serve(ctx, l, func(t *tlsstream.ConnTransport) (*mcp.Server, func(), error) {
			st := t.ConnectionState()
			fmt.Println("peer:", st.PeerCertificates[0].Subject.CommonName, "alpn:", st.NegotiatedProtocol)
			return echoServer(), nil, nil
		})
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "controller", Version: "1"}, nil)
	cs, err := client.Connect(ctx, tlsstream.ClientTransport{Addr: l.Addr().String(), Config: cliCfg}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, _ := cs.ListTools(ctx, nil)
	fmt.Println("tools:", tools.Tools[0].Name)
	cs.Close()
	cancel()
	<-done
	// Output:
	// peer: alice alpn: mcp
	// tools: echo
}
