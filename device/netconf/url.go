package netconf

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/netmcp/netmcp/device"
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

// urlSpec describes netconf:// URLs for device.ParseURL.
var urlSpec = device.URLSpec{
	Scheme:      Scheme,
	Usage:       "netconf://USER@HOST[:PORT]?key-file=PATH&known-hosts=PATH",
	DefaultPort: DefaultPort,
	NeedUser:    true,
	Params:      []string{"key-file", "password-file", "password-env", "known-hosts", "insecure-host-key", "timeout", "name", "persist"},
	Credentials: "?key-file=PATH, ?password-file=PATH or ?password-env=NAME",
}

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
	du, err := device.ParseURL(u, urlSpec)
	if err != nil {
		return nil, err
	}
	host, q := du.Host, du.Query
	c := &Config{User: du.User, Host: host, Port: du.Port, Name: host}
	if v := q.Get("name"); v != "" {
		c.Name = v
	}
	switch persist, set, err := q.Bool("persist"); {
	case err != nil:
		return nil, err
	case set && persist:
		c.Persist = "1"
	case set:
		c.Persist = "0"
	}
	if c.Timeout, err = q.Duration("timeout", DefaultTimeout); err != nil {
		return nil, err
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
	pw, err := q.Secret("password")
	if err != nil {
		return nil, err
	}
	if pw.IsSet() {
		v, err := pw.Read()
		if err != nil {
			return nil, err
		}
		c.auth = append(c.auth, ssh.Password(v), keyboardInteractive(v))
		c.authDesc = append(c.authDesc, pw.String())
	}
	if len(c.auth) == 0 {
		return nil, fmt.Errorf("netconf: device URL for %s gives no credential: add ?key-file=PATH, ?password-file=PATH or ?password-env=NAME", host)
	}
	kh := q.Get("known-hosts")
	if c.insecureHostKey, _, err = q.Bool("insecure-host-key"); err != nil {
		return nil, err
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
