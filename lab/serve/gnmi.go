package serve

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/pki"
)

// gnmiCertTTL is the lifetime of the routers' gNMI server certificates,
// issued afresh at every start.
const gnmiCertTTL = 30 * 24 * time.Hour

// labGNMI is the gNMI face of a lab (`netmcp lab up --gnmi`): every
// router's driver served by its own gNMI server on 127.0.0.1, over mutual
// TLS with certificates of the lab's CA: a client must present the lab's
// client certificate (client.pem, client.key, 0600 in the gnmi directory,
// named by the inventory's gnmi:// URLs), so that no other local process
// reads or changes the routers. The CA is kept in the lab's gnmi directory
// (ca.pem, ca.key) and reused by later runs, so that its ca.pem stays the
// one file a client trusts.
type labGNMI struct {
	dir   string // holds the CA
	temp  bool   // dir was made for this run: removed at stop
	urls  map[string]string
	done  []chan error // one per server: its Serve's result
	caPEM string       // path of the CA certificate
}

// startGNMI serves every router of the lab over gNMI. The CA lives in
// stateDir/gnmi, or in a temporary directory removed at stop.
func (l *Lab) startGNMI(stateDir string, o Options) error {
	g := &labGNMI{urls: map[string]string{}}
	if stateDir != "" {
		g.dir = filepath.Join(stateDir, "gnmi")
		if err := os.MkdirAll(g.dir, 0o700); err != nil {
			return fmt.Errorf("lab gnmi: %w", err)
		}
	} else {
		d, err := os.MkdirTemp("", "netmcp-lab-gnmi-")
		if err != nil {
			return fmt.Errorf("lab gnmi: %w", err)
		}
		g.dir, g.temp = d, true
	}
	l.gnmi = g
	ca, err := labCA(g.dir)
	if err != nil {
		return fmt.Errorf("lab gnmi: %w", err)
	}
	g.caPEM = filepath.Join(g.dir, pki.CACertFile)
	// The lab's client certificate, new at every run (the CA is kept).
	clientCert, clientKey, err := ca.Issue(gnmiClientName, pki.KindClient, gnmiCertTTL)
	if err != nil {
		return fmt.Errorf("lab gnmi: %w", err)
	}
	certFile, keyFile := filepath.Join(g.dir, gnmiClientCert), filepath.Join(g.dir, gnmiClientKey)
	for _, f := range []struct {
		path string
		data []byte
	}{{certFile, clientCert}, {keyFile, clientKey}} {
		if err := pki.WriteFile(f.path, f.data, 0o600); err != nil {
			return fmt.Errorf("lab gnmi: %w", err)
		}
	}
	for _, d := range l.devs[:l.routers] {
		certPEM, keyPEM, err := ca.Issue(d.name, pki.KindServer, gnmiCertTTL)
		if err != nil {
			return fmt.Errorf("lab gnmi: %w", err)
		}
		cfg, err := pki.ServerTLSConfig(certPEM, keyPEM, ca.CertPEM)
		if err != nil {
			return fmt.Errorf("lab gnmi: %w", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("lab gnmi: %s: %w", d.name, err)
		}
		srv := gnmiserver.New(d.drv, gnmiserver.Options{TLS: cfg, Log: o.Logger})
		done := make(chan error, 1)
		g.done = append(g.done, done)
		go func() { done <- srv.Serve(l.srvCtx, ln) }()
		q := url.Values{"ca-file": {g.caPEM}, "cert-file": {certFile}, "key-file": {keyFile}, "name": {d.name}}
		g.urls[d.name] = (&url.URL{Scheme: "gnmi", Host: ln.Addr().String(), RawQuery: q.Encode()}).String()
	}
	return nil
}

// The lab's gNMI client certificate: its name and files in the gnmi
// directory.
const (
	gnmiClientName = "netmcp-lab"
	gnmiClientCert = "client.pem"
	gnmiClientKey  = "client.key"
)

// labCA loads the CA saved in dir, or makes one and saves it there.
func labCA(dir string) (*pki.CA, error) {
	if _, err := os.Stat(filepath.Join(dir, pki.CAKeyFile)); err == nil {
		return pki.LoadCA(dir)
	}
	ca, err := pki.NewCA("netmcp lab CA")
	if err != nil {
		return nil, err
	}
	return ca, ca.Save(dir)
}

// close waits for the servers, stopped by the end of the lab's server
// context, and removes a temporary directory. A nil labGNMI is none.
func (g *labGNMI) close() error {
	if g == nil {
		return nil
	}
	var errs []error
	for _, done := range g.done {
		errs = append(errs, <-done)
	}
	if g.temp {
		errs = append(errs, os.RemoveAll(g.dir))
	}
	return errors.Join(errs...)
}
