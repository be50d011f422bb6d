package eval

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/device"
	_ "github.com/netmcp/netmcp/device/gnmi" // gnmi://, the routers' driver with Options.GNMI
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/pki"
)

// gnmiFront serves a case's routers over gNMI, as `netmcp lab up --gnmi`
// does (mutual TLS with certificates of a CA of the case's own: a client
// presents the case's client certificate, in the front's private
// directory), and opens each one's gnmi:// driver: the routers' MCP
// servers then reach them through gNMI only, as `netmcp serve --device
// gnmi://...` would.
type gnmiFront struct {
	dir    string // the CA's certificate
	ca     *pki.CA
	cancel context.CancelFunc
	ctx    context.Context
	done   []chan error
	drvs   []device.Driver
}

// The files of the front's client certificate, in its directory.
const (
	gnmiClientCert = "client.pem"
	gnmiClientKey  = "client.key"
)

func newGNMIFront() (*gnmiFront, error) {
	ca, err := pki.NewCA("netmcp eval CA")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "netmcp-eval-gnmi-")
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := ca.Issue("netmcp-eval", pki.KindClient, time.Hour)
	if err == nil {
		err = pki.WriteFile(filepath.Join(dir, pki.CACertFile), ca.CertPEM, 0o644)
	}
	if err == nil {
		err = pki.WriteFile(filepath.Join(dir, gnmiClientCert), certPEM, 0o600)
	}
	if err == nil {
		err = pki.WriteFile(filepath.Join(dir, gnmiClientKey), keyPEM, 0o600)
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &gnmiFront{dir: dir, ca: ca, ctx: ctx, cancel: cancel}, nil
}

// front serves router name's driver over gNMI and returns the gnmi://
// driver that reaches it, and its URL.
func (g *gnmiFront) front(name string, drv device.Driver) (device.Driver, string, error) {
	certPEM, keyPEM, err := g.ca.Issue(name, pki.KindServer, time.Hour)
	if err != nil {
		return nil, "", err
	}
	cfg, err := pki.ServerTLSConfig(certPEM, keyPEM, g.ca.CertPEM)
	if err != nil {
		return nil, "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := gnmiserver.New(drv, gnmiserver.Options{TLS: cfg})
	done := make(chan error, 1)
	g.done = append(g.done, done)
	go func() { done <- srv.Serve(g.ctx, ln) }()
	q := url.Values{"ca-file": {filepath.Join(g.dir, pki.CACertFile)}, "cert-file": {filepath.Join(g.dir, gnmiClientCert)},
		"key-file": {filepath.Join(g.dir, gnmiClientKey)}, "server-name": {name}, "name": {name}}
	u := (&url.URL{Scheme: "gnmi", Host: ln.Addr().String(), RawQuery: q.Encode()}).String()
	ctx, cancel := context.WithTimeout(g.ctx, 30*time.Second)
	defer cancel()
	gd, err := device.Open(ctx, u, device.Options{})
	if err != nil {
		return nil, "", fmt.Errorf("%s over gNMI: %w", name, err)
	}
	g.drvs = append(g.drvs, gd)
	return gd, u, nil
}

// close closes the drivers, then the servers, and removes the CA's file.
// A nil gnmiFront is none.
func (g *gnmiFront) close() {
	if g == nil {
		return
	}
	for _, d := range g.drvs {
		_ = d.Close()
	}
	g.cancel()
	for _, done := range g.done {
		<-done
	}
	_ = os.RemoveAll(g.dir)
}
