package netconf

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Scheme is the device URL scheme of this driver.
const Scheme = "netconf"

// Defaults of the URL's query parameters.
const (
	DefaultPort    = 830
	DefaultTimeout = 30 * time.Second
	// DefaultConfirmTimeout is the confirm-timeout of a confirmed commit
	// when the caller gives none (RFC 6241's default).
	DefaultConfirmTimeout = 600
)

// queryParams lists the URL query parameters the driver accepts.
var queryParams = []string{"key-file", "password-file", "password-env", "known-hosts", "insecure-host-key", "timeout", "name", "persist"}

// Config is a parsed netconf:// device URL with its credentials resolved.
// Its String method never shows a secret.
type Config struct {
	User    string
	Host    string // host name or address, without brackets
	Port    int
	Timeout time.Duration // dial, SSH handshake and <hello>
	Name    string        // device name in Info (?name=, default host)
	// Persist is ?persist=: "1" makes confirmed commits with <persist>
	// (where :confirmed-commit:1.1 is advertised), "0" without (the device
	// then rolls back as soon as the session ends, and only that session
	// can confirm), "" decides by device (see the package documentation).
	Persist string
	// MaxReplyBytes and MaxReplyDepth bound each message from the device
	// (0: DefaultMaxReplyBytes, DefaultMaxReplyDepth); a message above
	// either closes the session with a *ReplyLimitError.
	MaxReplyBytes int64
	MaxReplyDepth int
	// StateDir, when set, keeps the YANG sources fetched from the device
	// (keyed by its module set) so that a restart fetches none again.
	StateDir string

	auth            []ssh.AuthMethod
	authDesc        []string // "key-file PATH", "password-file PATH": never the secret
	hostKeyCallback ssh.HostKeyCallback
	knownHosts      string
	insecureHostKey bool
}

// ParseURL parses netconf://user@host[:port]?key-file=...&known-hosts=...
// and reads the credentials it names. Errors name files and variables,
// never their contents. A password in the URL itself is refused.
func ParseURL(u *url.URL) (*Config, error) {
	if u.Scheme != Scheme {
		return nil, fmt.Errorf("netconf: URL scheme %q is not %q", u.Scheme, Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("netconf: device URL names no host (want netconf://USER@HOST[:PORT]?key-file=PATH&known-hosts=PATH)")
	}
	if strings.Trim(u.Path, "/") != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("netconf: device URL for %s has a path or fragment; want netconf://USER@HOST[:PORT]?...", host)
	}
	if u.User == nil || u.User.Username() == "" {
		return nil, fmt.Errorf("netconf: device URL for %s names no user (want netconf://USER@%s)", host, host)
	}
	if _, has := u.User.Password(); has {
		return nil, fmt.Errorf("netconf: device URL for %s carries a password in clear: give ?password-file=PATH or ?password-env=NAME instead", host)
	}
	c := &Config{User: u.User.Username(), Host: host, Port: DefaultPort, Timeout: DefaultTimeout, Name: host}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("netconf: port %q of %s: want 1..65535", p, host)
		}
		c.Port = int(n)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("netconf: query of the device URL for %s: %v", host, err)
	}
	for k, v := range q {
		if !slices.Contains(queryParams, k) {
			return nil, fmt.Errorf("netconf: unknown URL parameter %q (want one of %s)", k, strings.Join(queryParams, ", "))
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("netconf: URL parameter %q given %d times", k, len(v))
		}
	}
	if v := q.Get("name"); v != "" {
		c.Name = v
	}
	switch v := q.Get("persist"); v {
	case "":
	case "1", "true":
		c.Persist = "1"
	case "0", "false":
		c.Persist = "0"
	default:
		return nil, fmt.Errorf("netconf: persist=%q: want 1 or 0", v)
	}
	if v := q.Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("netconf: timeout %q: want a positive duration such as 30s", v)
		}
		c.Timeout = d
	}
	if f := q.Get("key-file"); f != "" {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("netconf: key-file: %v", err)
		}
		signer, err := ssh.ParsePrivateKey(pem)
		if err != nil {
			// The parser's error never quotes the key.
			return nil, fmt.Errorf("netconf: key-file %s: %v (an encrypted key is not supported: use an agent-less unencrypted key readable only by netmcp)", f, err)
		}
		c.auth = append(c.auth, ssh.PublicKeys(signer))
		c.authDesc = append(c.authDesc, "key-file "+f)
	}
	pf, pe := q.Get("password-file"), q.Get("password-env")
	switch {
	case pf != "" && pe != "":
		return nil, errors.New("netconf: give one of password-file and password-env, not both")
	case pf != "":
		b, err := os.ReadFile(pf)
		if err != nil {
			return nil, fmt.Errorf("netconf: password-file: %v", err)
		}
		pw := strings.TrimRight(string(b), "\r\n")
		if pw == "" {
			return nil, fmt.Errorf("netconf: password-file %s is empty", pf)
		}
		c.auth = append(c.auth, ssh.Password(pw), keyboardInteractive(pw))
		c.authDesc = append(c.authDesc, "password-file "+pf)
	case pe != "":
		pw, ok := os.LookupEnv(pe)
		if !ok || pw == "" {
			return nil, fmt.Errorf("netconf: password-env: environment variable %s is not set or empty", pe)
		}
		c.auth = append(c.auth, ssh.Password(pw), keyboardInteractive(pw))
		c.authDesc = append(c.authDesc, "password-env "+pe)
	}
	if len(c.auth) == 0 {
		return nil, fmt.Errorf("netconf: device URL for %s gives no credential: add ?key-file=PATH, ?password-file=PATH or ?password-env=NAME", host)
	}
	kh, insecure := q.Get("known-hosts"), q.Get("insecure-host-key")
	switch insecure {
	case "", "0", "false":
	case "1", "true":
		c.insecureHostKey = true
	default:
		return nil, fmt.Errorf("netconf: insecure-host-key=%q: want 1 or 0", insecure)
	}
	switch {
	case kh != "" && c.insecureHostKey:
		return nil, errors.New("netconf: give known-hosts or insecure-host-key=1, not both")
	case kh != "":
		cb, err := knownhosts.New(kh)
		if err != nil {
			return nil, fmt.Errorf("netconf: known-hosts: %v", err)
		}
		c.hostKeyCallback = cb
		c.knownHosts = kh
	case c.insecureHostKey:
		c.hostKeyCallback = ssh.InsecureIgnoreHostKey()
	default:
		return nil, fmt.Errorf("netconf: device URL for %s does not say how to check the host key: add ?known-hosts=PATH (OpenSSH format), or ?insecure-host-key=1 to accept any key (logged as a warning)", host)
	}
	return c, nil
}

// keyboardInteractive answers every prompt with the password (devices that
// offer only keyboard-interactive authentication ask for it once).
func keyboardInteractive(pw string) ssh.AuthMethod {
	return ssh.KeyboardInteractive(func(_, _ string, questions []string, _ []bool) ([]string, error) {
		answers := make([]string, len(questions))
		for i := range answers {
			answers[i] = pw
		}
		return answers, nil
	})
}

// Address is host:port.
func (c *Config) Address() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// String describes the configuration without any secret.
func (c *Config) String() string {
	hk := "known-hosts " + c.knownHosts
	if c.insecureHostKey {
		hk = "host key NOT checked (insecure-host-key=1)"
	}
	return fmt.Sprintf("netconf://%s@%s (%s; %s)", c.User, c.Address(), strings.Join(c.authDesc, ", "), hk)
}

func (c *Config) sshConfig() *ssh.ClientConfig {
	return &ssh.ClientConfig{User: c.User, Auth: c.auth, HostKeyCallback: c.hostKeyCallback, Timeout: c.Timeout}
}
