package client_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/pki"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
	"github.com/netmcp/netmcp/transport/tlsstream"
)

const (
	jwtIssuer   = "https://idp.test"
	jwtResource = "https://r1.test/mcp"
)

// securePKI writes a CA, a server certificate and a client certificate
// ("ctl-cert") into dir.
type securePKI struct {
	ca                 *pki.CA
	caFile             string
	serverCert, srvKey []byte
	certFile, keyFile  string
}

func newPKI(t *testing.T) *securePKI {
	t.Helper()
	dir := t.TempDir()
	ca, err := pki.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	p := &securePKI{ca: ca, caFile: filepath.Join(dir, "ca.pem")}
	if err := os.WriteFile(p.caFile, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if p.serverCert, p.srvKey, err = ca.Issue("r1", pki.KindServer, time.Hour); err != nil {
		t.Fatal(err)
	}
	cc, ck, err := ca.Issue("ctl-cert", pki.KindClient, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if p.certFile, p.keyFile, err = pki.WriteKeyPair(dir, "ctl", cc, ck); err != nil {
		t.Fatal(err)
	}
	return p
}

// secureR1 serves r1 of the lab through server.Secure over HTTPS with
// mutual TLS and JWT bearer tokens: the JWT subject "ctl-token" is a
// viewer; the client certificate and unauthenticated loopback peers get
// no role. It returns the URL and a signed token.
func secureR1(t *testing.T, p *securePKI) (url, token string) {
	t.Helper()
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	drv, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(drv, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	pol, err := policy.New(policy.File{
		JWT: &policy.JWTConfig{Resource: jwtResource, AuthorizationServers: []string{jwtIssuer},
			Issuers: []policy.IssuerConfig{{Issuer: jwtIssuer, Keys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))}}}},
		Identities: []policy.IdentityMapping{{Subject: "ctl-token", Source: policy.SourceJWT, Roles: []string{policy.RoleViewer}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ver, err := pol.Verifier()
	if err != nil {
		t.Fatal(err)
	}
	sec, err := srv.Secure(server.SecurityOptions{Policy: pol, Verifier: ver, LocalRole: server.NoRole})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := pki.ServerTLSConfig(p.serverCert, p.srvKey, p.ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := sec.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, transport.HTTPOptions{}))
	hs := &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)} // refused handshakes are expected
	go hs.Serve(transport.TLSListener(ln, tc))
	t.Cleanup(func() { hs.Close() })
	token, err = jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"iss": jwtIssuer, "aud": jwtResource, "sub": "ctl-token",
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "scope": "tool:* resource:* yang:*"}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return "https://" + ln.Addr().String() + transport.Path, token
}

// TestSecureHTTP: HTTPS with mutual TLS and a bearer token, all from the
// inventory's credential references (files and an environment variable).
func TestSecureHTTP(t *testing.T) {
	p := newPKI(t)
	url, token := secureR1(t, p)
	tokenFile := filepath.Join(t.TempDir(), "r1.token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NETMCP_TEST_R1_TOKEN", token)
	mtls := inventory.Credentials{CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile, ServerName: "localhost"}
	withFile, withEnv := mtls, mtls
	withFile.TokenFile = tokenFile
	withEnv.TokenEnv = "NETMCP_TEST_R1_TOKEN"
	for _, tc := range []struct {
		name    string
		creds   inventory.Credentials
		connect string // substring of the connect error; "" = connects
		call    string // substring of the call error; "" = succeeds
	}{
		{"token-file", withFile, "", ""},
		{"token-env", withEnv, "", ""},
		{"mtls-only", mtls, "", "-32083"}, // the certificate maps to no role
		{"no-client-cert", inventory.Credentials{CAFile: p.caFile, TokenFile: tokenFile}, "certificate", ""},
		{"unknown-ca", inventory.Credentials{CertFile: p.certFile, KeyFile: p.keyFile, TokenFile: tokenFile}, "certificate", ""},
		{"unset-env", inventory.Credentials{CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile, TokenEnv: "NETMCP_TEST_UNSET"}, "NETMCP_TEST_UNSET is not set", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := &inventory.Inventory{Devices: []inventory.Device{{Name: "r1", URL: url, Credentials: tc.creds}}}
			f, err := client.New(inv, client.Options{ConnectTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = f.Connect(context.Background())
			if tc.connect != "" {
				if err == nil || !strings.Contains(err.Error(), tc.connect) {
					t.Fatalf("connect error %v, want %q", err, tc.connect)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if nc, ok := f.Device("r1").Network(); !ok || nc.CLIDialect != "huawei-vrp" {
				t.Errorf("network capability %+v %v", nc, ok)
			}
			_, err = f.Device("r1").CallTool(context.Background(), netproto.ToolYangGet, map[string]any{"path": hostnamePath})
			if tc.call == "" && err != nil || tc.call != "" && (err == nil || !strings.Contains(errText(err), tc.call)) {
				t.Fatalf("call error %v, want %q", err, tc.call)
			}
		})
	}
}

// errText is the error's text with the code and data of a JSON-RPC error.
func errText(err error) string {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return fmt.Sprintf("%v (code %d, data %s)", err, je.Code, je.Data)
	}
	return err.Error()
}

// TestTLSStream: a device served over the MCP-NET TLS stream (mcps://,
// ALPN "mcp", mutual TLS) is reached from its inventory entry.
func TestTLSStream(t *testing.T) {
	p := newPKI(t)
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	drv, _ := lab.Device("r2")
	srv, err := server.New(drv, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tc, err := pki.ServerTLSConfig(p.serverCert, p.srvKey, p.ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tlsstream.Listen("127.0.0.1:0", tc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go tlsstream.Serve(ctx, l, func(*tlsstream.ConnTransport) (*mcp.Server, func(), error) { return srv.MCP(), nil, nil })
	defer l.Close()
	inv := &inventory.Inventory{Devices: []inventory.Device{{Name: "r2", URL: "mcps://" + l.Addr().String(),
		Credentials: inventory.Credentials{CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile}}}}
	f, err := client.New(inv, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if nc, ok := f.Device("r2").Network(); !ok || len(nc.YangModules) == 0 {
		t.Errorf("network capability %+v %v", nc, ok)
	}
	if err := client.Errors(f.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath})); err != nil {
		t.Fatal(err)
	}
}

// TestStdioCommand runs `netmcp serve --device sim://r1` as the device's
// stdio command.
func TestStdioCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the netmcp binary")
	}
	bin := filepath.Join(t.TempDir(), "netmcp")
	build := exec.Command("go", "build", "-o", bin, "github.com/netmcp/netmcp/cmd/netmcp")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	inv := &inventory.Inventory{Devices: []inventory.Device{
		{Name: "r1", Command: []string{bin, "serve", "--device", "sim://r1", "--no-state"}},
		{Name: "r3", Command: []string{bin, "serve", "--device", "sim://r3", "--no-state"}},
	}}
	f, err := client.New(inv, client.Options{ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range f.CallAll(ctx, nil, netproto.ToolYangGet, map[string]any{"path": hostnamePath}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if b, _ := json.Marshal(r.Value.StructuredContent); !strings.Contains(string(b), r.Device.Name()) {
			t.Errorf("%s: %s", r.Device.Name(), b)
		}
		if _, ok := r.Device.Network(); !ok {
			t.Errorf("%s: no capabilities.network over stdio", r.Device.Name())
		}
	}
}
