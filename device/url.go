package device

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// URLSpec describes the device URLs of one driver, for ParseURL.
type URLSpec struct {
	// Scheme is the driver's URL scheme ("netconf"); it also prefixes
	// every error ("netconf: ...").
	Scheme string
	// Usage is the URL's shape, shown when the URL is malformed, e.g.
	// "netconf://USER@HOST[:PORT]?key-file=PATH&known-hosts=PATH".
	Usage string
	// DefaultPort is the port when the URL names none.
	DefaultPort int
	// NeedUser requires a user name before the host (USER@HOST).
	NeedUser bool
	// Params are the query parameters the driver accepts; any other is
	// refused (a typo must not fall back silently to a default).
	Params []string
	// Credentials says how the driver takes its credentials, for the
	// error refusing a password written in the URL, e.g.
	// "?password-file=PATH or ?password-env=NAME".
	Credentials string
}

// DeviceURL is a device URL parsed by ParseURL: where the device is,
// whom to log in as, and its query. It holds no secret: credentials are
// given by reference (Query.Secret) and read when needed.
type DeviceURL struct {
	// Host is the host name or address, without brackets.
	Host string
	// Port is the URL's port, or URLSpec.DefaultPort.
	Port int
	// User is the user name before the host ("" when none). Some drivers
	// read it as something else (SNMP's community): it is never shown in
	// an error.
	User string
	// Query is the URL's query, every parameter known and given once.
	Query Query
}

// ParseURL checks a device URL against the driver's spec: its scheme, a
// host, no path or fragment, no password written in it (credentials are
// given by reference only), a user when the spec needs one, a port in
// 1..65535 and a query of known parameters, each given once. Errors name
// the host, never the user or a password (the user part may hold an
// SNMP community).
func ParseURL(u *url.URL, spec URLSpec) (*DeviceURL, error) {
	s := spec.Scheme
	if u.Scheme != s {
		return nil, fmt.Errorf("%s: URL scheme %q is not %q", s, u.Scheme, s)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("%s: device URL names no host (want %s)", s, spec.Usage)
	}
	if strings.Trim(u.Path, "/") != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("%s: device URL for %s has a path or fragment; want %s", s, host, spec.Usage)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return nil, fmt.Errorf("%s: device URL for %s carries a password; credentials are given by reference only: %s", s, host, spec.Credentials)
		}
	}
	d := &DeviceURL{Host: host, Port: spec.DefaultPort, Query: Query{scheme: s, host: host}}
	if u.User != nil {
		d.User = u.User.Username()
	}
	if spec.NeedUser && d.User == "" {
		return nil, fmt.Errorf("%s: device URL for %s names no user (want %s)", s, host, spec.Usage)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%s: port %q of %s: want 1..65535", s, p, host)
		}
		d.Port = int(n)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("%s: query of the device URL for %s: %v", s, host, err)
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(spec.Params, k) {
			return nil, fmt.Errorf("%s: unknown URL parameter %q (known: %s)", s, k, strings.Join(spec.Params, ", "))
		}
		if n := len(q[k]); n != 1 {
			return nil, fmt.Errorf("%s: URL parameter %q given %d times", s, k, n)
		}
	}
	d.Query.v = q
	return d, nil
}

// Query is the query of a device URL, with typed readers whose errors
// name the parameter and the host.
type Query struct {
	scheme, host string
	v            url.Values
}

// Get returns parameter key ("" when absent).
func (q Query) Get(key string) string { return q.v.Get(key) }

// Has tells whether parameter key is given (even empty).
func (q Query) Has(key string) bool { return q.v.Has(key) }

// Duration returns parameter key as a positive duration, or def when
// absent.
func (q Query) Duration(key string, def time.Duration) (time.Duration, error) {
	v := q.Get(key)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: %s=%q: want a positive duration such as 30s", q.scheme, key, v)
	}
	return d, nil
}

// Bool returns parameter key as a boolean (1, t, true, 0, f, false in
// any case, as strconv.ParseBool reads them); set is false when it is
// absent or empty.
func (q Query) Bool(key string) (value, set bool, err error) {
	v := q.Get(key)
	if v == "" {
		return false, false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, false, fmt.Errorf("%s: %s=%q: want 1 or 0 (true or false)", q.scheme, key, v)
	}
	return b, true, nil
}

// Secret returns the credential named NAME given by reference, by the
// parameter NAME-file (a file holding it) or NAME-env (an environment
// variable holding it). It is not read: Secret.Read reads it. Giving both,
// or either empty, is an error; giving neither is a Secret that is not
// set.
func (q Query) Secret(name string) (Secret, error) {
	file, env := q.Get(name+"-file"), q.Get(name+"-env")
	switch {
	case file != "" && env != "":
		return Secret{}, fmt.Errorf("%s: the device URL for %s gives both %s-file and %s-env; give one", q.scheme, q.host, name, name)
	case q.Has(name+"-file") && file == "", q.Has(name+"-env") && env == "":
		return Secret{}, fmt.Errorf("%s: %s-file/%s-env is empty in the device URL for %s", q.scheme, name, name, q.host)
	}
	return Secret{Scheme: q.scheme, Name: name, File: file, Env: env}, nil
}

// Secret is a credential given by reference: the file or the environment
// variable that holds it, never its value.
type Secret struct {
	// Scheme prefixes errors ("snmp: ..."); Name is the credential
	// ("password", "community"), as in its parameters NAME-file and NAME-env.
	Scheme, Name string
	// File or Env holds the credential; neither is set when none was given.
	File, Env string
}

// IsSet tells whether a file or a variable was named.
func (s Secret) IsSet() bool { return s.File != "" || s.Env != "" }

// String names where the credential is ("password-file PATH"), never
// the credential.
func (s Secret) String() string {
	switch {
	case s.File != "":
		return s.Name + "-file " + s.File
	case s.Env != "":
		return s.Name + "-env " + s.Env
	}
	return ""
}

// ErrNoSecret is returned by Secret.Read when no file or variable was
// named.
var ErrNoSecret = errors.New("no credential given")

// Read reads the credential: the file's one non-empty line (a trailing
// line break is dropped), or the variable's non-empty value. Errors name
// the file or the variable, never what they hold.
func (s Secret) Read() (string, error) {
	switch {
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			return "", fmt.Errorf("%s: %s-file: %v", s.Scheme, s.Name, err)
		}
		v := strings.TrimRight(string(b), "\r\n")
		if v == "" || strings.ContainsAny(v, "\r\n") {
			return "", fmt.Errorf("%s: %s-file %s: want exactly one non-empty line", s.Scheme, s.Name, s.File)
		}
		return v, nil
	case s.Env != "":
		v, ok := os.LookupEnv(s.Env)
		if !ok || v == "" {
			return "", fmt.Errorf("%s: %s-env: environment variable %s is not set or empty", s.Scheme, s.Name, s.Env)
		}
		return v, nil
	}
	return "", fmt.Errorf("%s: %s: %w", s.Scheme, s.Name, ErrNoSecret)
}
