package gnmi

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
)

// Scheme is the device URL scheme of this driver.
const Scheme = "gnmi"

// Defaults of the URL's query parameters.
const (
	// DefaultPort is gNMI's IANA port.
	DefaultPort    = 9339
	DefaultTimeout = 30 * time.Second
)

// urlSpec describes gnmi:// URLs for device.ParseURL.
var urlSpec = device.URLSpec{
	Scheme:      Scheme,
	Usage:       "gnmi://[USER@]HOST[:PORT]?ca-file=PATH[&cert-file=PATH&key-file=PATH][&password-file=PATH]",
	DefaultPort: DefaultPort,
	Params: []string{"ca-file", "cert-file", "key-file", "server-name", "insecure",
		"password-file", "password-env", "timeout", "name", "commit-confirmed"},
	Credentials: "?password-file=PATH or ?password-env=NAME (sent as gRPC metadata with the user), or a client certificate (?cert-file=PATH&key-file=PATH)",
}

// Commit-confirmed modes (?commit-confirmed=).
const (
	// CommitAuto probes the target for the Commit extension when the
	// driver opens.
	CommitAuto = ""
	// CommitExtension uses the Commit extension without probing.
	CommitExtension = "extension"
	// CommitSnapshot never uses it: netmcp keeps the configuration from
	// before a confirmed commit and sets it back itself.
	CommitSnapshot = "snapshot"
)

// Config is a parsed gnmi:// device URL with its credentials read. Its
// String method never shows a secret.
type Config struct {
	Host    string // host name or address, without brackets
	Port    int
	User    string        // sent as the "username" metadata ("" = none)
	Name    string        // device name in Info (?name=, default host)
	Timeout time.Duration // bound of each unary call without a deadline
	// CommitConfirmed is CommitAuto, CommitExtension or CommitSnapshot.
	CommitConfirmed string
	// StateDir keeps the candidate's history and a pending confirmed
	// commit across restarts ("" = in memory).
	StateDir string

	// TLS is the client's TLS configuration; nil with Insecure.
	TLS *tls.Config
	// Insecure is ?insecure=1: plaintext gRPC, no TLS at all.
	Insecure bool

	password string
	desc     []string // how it authenticates, never a secret
}

// ParseURL parses a gnmi:// device URL and reads the files it names:
// TLS with the system's roots or ?ca-file= (PEM), ?server-name= to check
// another name than the host, mutual TLS with ?cert-file= and ?key-file=,
// ?insecure=1 for plaintext (none of the former then), a password by
// reference with the user of the URL, ?timeout= (default 30s), ?name=,
// ?commit-confirmed=extension|snapshot (default: probe the target).
// Errors name files and variables, never their contents.
func ParseURL(u *url.URL) (*Config, error) {
	du, err := device.ParseURL(u, urlSpec)
	if err != nil {
		return nil, err
	}
	q := du.Query
	c := &Config{Host: du.Host, Port: du.Port, User: du.User, Name: du.Host}
	if v := q.Get("name"); v != "" {
		c.Name = v
	}
	if c.Timeout, err = q.Duration("timeout", DefaultTimeout); err != nil {
		return nil, err
	}
	switch v := q.Get("commit-confirmed"); v {
	case "", "auto":
	case CommitExtension, CommitSnapshot:
		c.CommitConfirmed = v
	default:
		return nil, fmt.Errorf("gnmi: commit-confirmed=%q: want extension, snapshot or auto", v)
	}
	pw, err := q.Secret("password")
	if err != nil {
		return nil, err
	}
	if pw.IsSet() {
		if c.User == "" {
			return nil, fmt.Errorf("gnmi: the device URL for %s gives a password but no user (want gnmi://USER@%s?%s)", c.Host, c.Host, pw)
		}
		if c.password, err = pw.Read(); err != nil {
			return nil, err
		}
		c.desc = append(c.desc, "user "+c.User+" with "+pw.String())
	} else if c.User != "" {
		c.desc = append(c.desc, "user "+c.User+" without a password")
	}
	if c.Insecure, _, err = q.Bool("insecure"); err != nil {
		return nil, err
	}
	caFile, certFile, keyFile, serverName := q.Get("ca-file"), q.Get("cert-file"), q.Get("key-file"), q.Get("server-name")
	if c.Insecure {
		if caFile != "" || certFile != "" || keyFile != "" || serverName != "" {
			return nil, errors.New("gnmi: insecure=1 turns TLS off: ca-file, cert-file, key-file and server-name cannot go with it")
		}
		c.desc = append(c.desc, "NO TLS (insecure=1)")
		return c, nil
	}
	c.TLS = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.Host}
	if serverName != "" {
		c.TLS.ServerName = serverName
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("gnmi: ca-file: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("gnmi: ca-file %s holds no PEM certificate", caFile)
		}
		c.TLS.RootCAs = pool
		c.desc = append(c.desc, "TLS, server checked against ca-file "+caFile)
	} else {
		c.desc = append(c.desc, "TLS, server checked against the system's roots")
	}
	switch {
	case (certFile == "") != (keyFile == ""):
		return nil, errors.New("gnmi: give cert-file and key-file together (the client certificate of mutual TLS)")
	case certFile != "":
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			// The error names the files' contents' problems, never the key.
			return nil, fmt.Errorf("gnmi: cert-file %s / key-file %s: %v", certFile, keyFile, err)
		}
		c.TLS.Certificates = []tls.Certificate{pair}
		c.desc = append(c.desc, "client certificate "+certFile)
	}
	return c, nil
}

// Address is host:port.
func (c *Config) Address() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// String describes the configuration without any secret.
func (c *Config) String() string {
	return fmt.Sprintf("gnmi://%s (%s)", c.Address(), strings.Join(c.desc, "; "))
}
