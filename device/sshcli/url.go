package sshcli

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
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

// queryKeys are the URL query parameters ParseURL accepts.
var queryKeys = map[string]bool{
	"dialect": true, "password-file": true, "password-env": true, "key-file": true,
	"known-hosts": true, "insecure-ignore-host-key": true, "timeout": true,
	"connect-timeout": true, "name": true,
}

// ParseURL parses ssh://USER@HOST[:PORT]?dialect=NAME&... A password in
// the URL itself is refused: credentials are given only by reference
// (password-file, password-env, key-file).
func ParseURL(u *url.URL) (Config, error) {
	bad := func(format string, a ...any) (Config, error) {
		return Config{}, fmt.Errorf("ssh: device URL %s: %s", redacted(u), fmt.Sprintf(format, a...))
	}
	if u.Scheme != Scheme {
		return bad("scheme is %q, want %q", u.Scheme, Scheme)
	}
	if u.User == nil || u.User.Username() == "" {
		return bad("names no user (want ssh://USER@HOST:PORT?dialect=NAME)")
	}
	if _, has := u.User.Password(); has {
		return bad("carries a password; give it by reference instead: ?password-file=PATH or ?password-env=VAR")
	}
	if u.Hostname() == "" {
		return bad("names no host")
	}
	if p := strings.Trim(u.Path, "/"); p != "" || u.Fragment != "" {
		return bad("has a path or fragment; want ssh://USER@HOST:PORT?dialect=NAME")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	for k, v := range q {
		if !queryKeys[k] {
			return bad("unknown parameter %q (known: dialect, password-file, password-env, key-file, known-hosts, insecure-ignore-host-key, timeout, connect-timeout, name)", k)
		}
		if len(v) != 1 {
			return bad("parameter %q given %d times", k, len(v))
		}
	}
	c := Config{User: u.User.Username(), Host: u.Hostname(), Port: DefaultPort, Name: q.Get("name"),
		Dialect: q.Get("dialect"), PasswordFile: q.Get("password-file"), PasswordEnv: q.Get("password-env"),
		KeyFile: q.Get("key-file"), KnownHosts: q.Get("known-hosts"),
		Timeout: DefaultTimeout, ConnectTimeout: DefaultConnectTimeout}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("port %q is not 1..65535", p)
		}
		c.Port = n
	}
	if v := q.Get("insecure-ignore-host-key"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad("insecure-ignore-host-key=%q: want true or false", v)
		}
		c.InsecureIgnoreHostKey = b
	}
	for _, d := range []struct {
		key string
		dst *time.Duration
	}{{"timeout", &c.Timeout}, {"connect-timeout", &c.ConnectTimeout}} {
		if v := q.Get(d.key); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil || t <= 0 {
				return bad("%s=%q: want a positive duration such as 30s", d.key, v)
			}
			*d.dst = t
		}
	}
	if err := c.check(); err != nil {
		return Config{}, fmt.Errorf("ssh: device URL %s: %w", redacted(u), err)
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
	switch {
	case c.PasswordFile != "":
		b, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("ssh: password file: %w", err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	case c.PasswordEnv != "":
		v, ok := os.LookupEnv(c.PasswordEnv)
		if !ok || v == "" {
			return "", fmt.Errorf("ssh: environment variable %s (password-env) is not set", c.PasswordEnv)
		}
		return v, nil
	}
	return "", nil
}

// redacted prints a URL without any password it may carry.
func redacted(u *url.URL) string { return u.Redacted() }
