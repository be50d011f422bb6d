package sshcli

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
)

// Scheme is the URL scheme of the driver.
const Scheme = "ssh"

// Defaults of a Config.
const (
	DefaultPort           = 22
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
)

// Config is a parsed ssh:// device URL. Secrets are never part of it: it
// names where they are (a file or an environment variable), and they are
// read only when a connection is made.
type Config struct {
	// User, Host and Port are whom to log in as and where.
	User string
	Host string
	Port int
	// Name is the device's name (default: Host).
	Name string
	// Dialect selects the CLI dialect (see Dialects).
	Dialect string
	// PasswordFile or PasswordEnv names the password; KeyFile an
	// unencrypted private key (OpenSSH or PEM format). At least one is set.
	PasswordFile string
	PasswordEnv  string
	KeyFile      string
	// KnownHosts is an OpenSSH known_hosts file the host key must be in.
	// InsecureIgnoreHostKey turns host key checking off instead (logged as
	// a warning); exactly one of the two is set.
	KnownHosts            string
	InsecureIgnoreHostKey bool
	// Timeout bounds one command (default DefaultTimeout); ConnectTimeout
	// bounds a login (default DefaultConnectTimeout).
	Timeout        time.Duration
	ConnectTimeout time.Duration
}

// urlSpec describes ssh:// URLs for device.ParseURL.
var urlSpec = device.URLSpec{
	Scheme:      Scheme,
	Usage:       "ssh://USER@HOST[:PORT]?dialect=NAME",
	DefaultPort: DefaultPort,
	NeedUser:    true,
	Params: []string{"dialect", "password-file", "password-env", "key-file", "known-hosts", "insecure-ignore-host-key",
		"timeout", "connect-timeout", "name"},
	Credentials: "?key-file=PATH, ?password-file=PATH or ?password-env=VAR",
}

// ParseURL parses ssh://USER@HOST[:PORT]?dialect=NAME&... A password in
// the URL itself is refused: credentials are given only by reference
// (password-file, password-env, key-file), and read when a connection is
// made.
func ParseURL(u *url.URL) (Config, error) {
	du, err := device.ParseURL(u, urlSpec)
	if err != nil {
		return Config{}, err
	}
	q := du.Query
	pw, err := q.Secret("password")
	if err != nil {
		return Config{}, err
	}
	c := Config{User: du.User, Host: du.Host, Port: du.Port, Name: q.Get("name"),
		Dialect: q.Get("dialect"), PasswordFile: pw.File, PasswordEnv: pw.Env,
		KeyFile: q.Get("key-file"), KnownHosts: q.Get("known-hosts")}
	if c.InsecureIgnoreHostKey, _, err = q.Bool("insecure-ignore-host-key"); err != nil {
		return Config{}, err
	}
	if c.Timeout, err = q.Duration("timeout", DefaultTimeout); err != nil {
		return Config{}, err
	}
	if c.ConnectTimeout, err = q.Duration("connect-timeout", DefaultConnectTimeout); err != nil {
		return Config{}, err
	}
	if err := c.check(); err != nil {
		return Config{}, fmt.Errorf("ssh: device URL for %s: %w", c.Host, err)
	}
	return c, nil
}

// check validates a Config built by hand or by ParseURL.
func (c *Config) check() error {
	if _, ok := dialects[c.Dialect]; !ok {
		if c.Dialect == "" {
			return fmt.Errorf("names no dialect: add ?dialect=NAME, one of %s", strings.Join(Dialects(), ", "))
		}
		return fmt.Errorf("unknown dialect %q (want one of %s)", c.Dialect, strings.Join(Dialects(), ", "))
	}
	if c.User == "" || c.Host == "" {
		return fmt.Errorf("needs a user and a host")
	}
	if c.PasswordFile == "" && c.PasswordEnv == "" && c.KeyFile == "" {
		return fmt.Errorf("names no credential: add ?key-file=PATH, ?password-file=PATH or ?password-env=VAR")
	}
	if c.PasswordFile != "" && c.PasswordEnv != "" {
		return fmt.Errorf("password-file and password-env both given; choose one")
	}
	switch {
	case c.KnownHosts == "" && !c.InsecureIgnoreHostKey:
		return fmt.Errorf("host key checking needs ?known-hosts=PATH (an OpenSSH known_hosts file); ?insecure-ignore-host-key=true turns it off")
	case c.KnownHosts != "" && c.InsecureIgnoreHostKey:
		return fmt.Errorf("known-hosts and insecure-ignore-host-key=true both given; choose one")
	}
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.Name == "" {
		c.Name = c.Host
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	return nil
}

// address is HOST:PORT.
func (c *Config) address() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// password reads the password from its file or environment variable; ""
// when none is configured. The value is never logged or put in an error.
func (c *Config) password() (string, error) {
	pw := device.Secret{Scheme: Scheme, Name: "password", File: c.PasswordFile, Env: c.PasswordEnv}
	if !pw.IsSet() {
		return "", nil
	}
	return pw.Read()
}
