package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/netmcp/netmcp/lab/sim/simssh"
)

// labSSH is the SSH face of a lab (`netmcp lab up --ssh`): every router's
// CLI on its own SSH server on 127.0.0.1, as users practise automation
// against it and as the ssh:// driver reaches it. One host key serves all
// routers; one client key, written to the lab's ssh directory with a
// known_hosts file naming every server, is the only key let in.
type labSSH struct {
	dir     string // holds id_ed25519 and known_hosts
	temp    bool   // dir was made for this run: removed at stop
	servers map[string]*simssh.Server
	urls    map[string]string // device -> ssh:// URL for the ssh driver
}

// startSSH serves every router of the simulated lab over SSH. The key files go to
// stateDir/ssh, or to a temporary directory removed at stop.
func (l *Lab) startSSH(stateDir string) error {
	ls := &labSSH{servers: map[string]*simssh.Server{}, urls: map[string]string{}}
	if stateDir != "" {
		ls.dir = filepath.Join(stateDir, "ssh")
		if err := os.MkdirAll(ls.dir, 0o700); err != nil {
			return fmt.Errorf("lab ssh: %w", err)
		}
	} else {
		d, err := os.MkdirTemp("", "netmcp-lab-ssh-")
		if err != nil {
			return fmt.Errorf("lab ssh: %w", err)
		}
		ls.dir, ls.temp = d, true
	}
	l.ssh = ls
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	hostKey, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		return err
	}
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	authorized, err := ssh.NewPublicKey(clientPub)
	if err != nil {
		return err
	}
	block, err := ssh.MarshalPrivateKey(clientPriv, "netmcp lab")
	if err != nil {
		return err
	}
	keyFile := filepath.Join(ls.dir, "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		return fmt.Errorf("lab ssh: %w", err)
	}
	var known strings.Builder
	for _, name := range l.sim.Routers() {
		drv, err := l.sim.Device(name)
		if err != nil {
			return err
		}
		srv, err := simssh.Start(drv, hostKey, authorized)
		if err != nil {
			return fmt.Errorf("lab ssh: device %s: %w", name, err)
		}
		ls.servers[name] = srv
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(srv.Addr().Port))
		known.WriteString(knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostKey.PublicKey()))
		known.WriteByte('\n')
		q := url.Values{}
		q.Set("dialect", drv.Info().CLIDialect)
		q.Set("key-file", keyFile)
		q.Set("known-hosts", filepath.Join(ls.dir, "known_hosts"))
		q.Set("name", name)
		ls.urls[name] = (&url.URL{Scheme: "ssh", User: url.User("admin"), Host: addr, RawQuery: q.Encode()}).String()
	}
	if err := os.WriteFile(filepath.Join(ls.dir, "known_hosts"), []byte(known.String()), 0o600); err != nil {
		return fmt.Errorf("lab ssh: %w", err)
	}
	return nil
}

// close stops the SSH servers and removes a temporary key directory.
func (ls *labSSH) close() error {
	if ls == nil {
		return nil
	}
	var first error
	for _, s := range ls.servers {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	if ls.temp {
		if err := os.RemoveAll(ls.dir); err != nil && first == nil {
			first = err
		}
	}
	return first
}
