package snmp

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/netmcp/netmcp/device"
)

// Defaults of the URL's query parameters.
const (
	DefaultPort     = 161
	DefaultTimeout  = 3 * time.Second
	DefaultRetries  = 1
	DefaultPoll     = 30 * time.Second
	PublicCommunity = "public"
)

// Config is a parsed snmp:// device URL with its credentials resolved.
// Its String method never shows a secret.
type Config struct {
	Host    string // host name or address, without brackets
	Port    uint16
	Version gosnmp.SnmpVersion // Version2c or Version3
	Timeout time.Duration      // one request's timeout
	Retries int                // retries after the first attempt
	Poll    time.Duration      // telemetry polling interval

	community string // v2c

	// SNMPv3 (User-based Security Model).
	User      string
	AuthProto gosnmp.SnmpV3AuthProtocol
	PrivProto gosnmp.SnmpV3PrivProtocol
	Context   string
	authKey   string
	privKey   string
}

// urlSpec describes snmp:// URLs for device.ParseURL.
var urlSpec = device.URLSpec{
	Scheme:      Scheme,
	Usage:       "snmp://HOST[:PORT]?version=2c|3",
	DefaultPort: DefaultPort,
	Params: []string{"version", "community-file", "community-env", "user", "auth", "auth-file", "auth-env",
		"priv", "priv-file", "priv-env", "context", "timeout", "retries", "poll"},
	Credentials: "?community-file=PATH, ?community-env=NAME, ?auth-file=/?auth-env= and ?priv-file=/?priv-env=",
}

var authProtos = map[string]gosnmp.SnmpV3AuthProtocol{"MD5": gosnmp.MD5, "SHA": gosnmp.SHA, "SHA224": gosnmp.SHA224,
	"SHA256": gosnmp.SHA256, "SHA384": gosnmp.SHA384, "SHA512": gosnmp.SHA512}

var privProtos = map[string]gosnmp.SnmpV3PrivProtocol{"DES": gosnmp.DES, "AES": gosnmp.AES, "AES192": gosnmp.AES192,
	"AES256": gosnmp.AES256, "AES192C": gosnmp.AES192C, "AES256C": gosnmp.AES256C}

// ParseURL parses snmp://[community@]host[:port]?version=2c|3&... and
// reads the credentials it names (see the package documentation). Errors
// name files and variables, never their contents.
func ParseURL(u *url.URL) (*Config, error) {
	du, err := device.ParseURL(u, urlSpec)
	if err != nil {
		return nil, err
	}
	q := du.Query
	c := &Config{Host: du.Host, Port: uint16(du.Port), Timeout: DefaultTimeout, Retries: DefaultRetries, Poll: DefaultPoll}
	if d := q.Get("timeout"); d != "" {
		if c.Timeout, err = time.ParseDuration(d); err != nil || c.Timeout <= 0 || c.Timeout > time.Minute {
			return nil, fmt.Errorf("snmp: timeout=%q: want a duration in (0, 1m], e.g. 2s", d)
		}
	}
	if r := q.Get("retries"); r != "" {
		if c.Retries, err = strconv.Atoi(r); err != nil || c.Retries < 0 || c.Retries > 10 {
			return nil, fmt.Errorf("snmp: retries=%q: want 0..10", r)
		}
	}
	if d := q.Get("poll"); d != "" {
		if c.Poll, err = time.ParseDuration(d); err != nil || c.Poll < 100*time.Millisecond {
			return nil, fmt.Errorf("snmp: poll=%q: want a duration of at least 100ms, e.g. 30s", d)
		}
	}
	switch v := q.Get("version"); v {
	case "", "2c", "v2c":
		c.Version = gosnmp.Version2c
		if err := c.parseV2c(du.User, q); err != nil {
			return nil, err
		}
	case "3", "v3":
		c.Version = gosnmp.Version3
		if err := c.parseV3(du.User, q); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("snmp: version=%q: want 2c or 3 (SNMPv1 has no 64-bit counters and is not supported)", v)
	}
	return c, nil
}

// parseV2c reads the community: inline (only "public") or by reference.
func (c *Config) parseV2c(inline string, q device.Query) error {
	for _, k := range []string{"user", "auth", "auth-file", "auth-env", "priv", "priv-file", "priv-env", "context"} {
		if q.Has(k) {
			return fmt.Errorf("snmp: URL parameter %q is for SNMPv3; add version=3", k)
		}
	}
	ref, err := secret(q, "community")
	if err != nil {
		return err
	}
	switch {
	case inline != "" && ref != "":
		return fmt.Errorf("snmp: the device URL for %s gives a community both inline and by reference; give one", c.Host)
	case inline != "" && inline != PublicCommunity:
		// The value is not echoed: it may be a real secret typed by mistake.
		return fmt.Errorf("snmp: the device URL for %s carries a community inline; only the well-known read-only %q may be written there, any other must be given by reference (?community-file=PATH or ?community-env=NAME) so that it stays out of command lines, logs and audit records", c.Host, PublicCommunity)
	case ref != "":
		c.community = ref
	default:
		c.community = PublicCommunity
	}
	return nil
}

// parseV3 reads the user (user@ or user=) and its keys.
func (c *Config) parseV3(user string, q device.Query) error {
	if q.Has("community-file") || q.Has("community-env") {
		return fmt.Errorf("snmp: a community is for SNMPv2c; SNMPv3 takes user=, auth-file=/auth-env= and priv-file=/priv-env=")
	}
	c.User = user
	if n := q.Get("user"); n != "" {
		if c.User != "" && c.User != n {
			return fmt.Errorf("snmp: the device URL for %s names two SNMPv3 users (%q and user=%q)", c.Host, c.User, n)
		}
		c.User = n
	}
	if c.User == "" {
		return fmt.Errorf("snmp: SNMPv3 needs a user name: snmp://USER@%s?version=3 (or user=USER)", c.Host)
	}
	c.Context = q.Get("context")
	var err error
	if c.authKey, err = secret(q, "auth"); err != nil {
		return err
	}
	if c.privKey, err = secret(q, "priv"); err != nil {
		return err
	}
	if c.privKey != "" && c.authKey == "" {
		return fmt.Errorf("snmp: SNMPv3 privacy without authentication is not a security level; give auth-file= or auth-env= too")
	}
	a := strings.ToUpper(q.Get("auth"))
	if a == "" {
		a = "SHA"
	}
	var ok bool
	if c.AuthProto, ok = authProtos[a]; !ok {
		return fmt.Errorf("snmp: auth=%q: want one of %s", q.Get("auth"), keys(authProtos))
	}
	p := strings.ToUpper(q.Get("priv"))
	if p == "" {
		p = "AES"
	}
	if c.PrivProto, ok = privProtos[p]; !ok {
		return fmt.Errorf("snmp: priv=%q: want one of %s", q.Get("priv"), keys(privProtos))
	}
	if c.authKey == "" {
		c.AuthProto = gosnmp.NoAuth
	}
	if c.privKey == "" {
		c.PrivProto = gosnmp.NoPriv
	}
	for _, k := range []string{c.authKey, c.privKey} {
		if k != "" && len(k) < 8 {
			return fmt.Errorf("snmp: an SNMPv3 pass phrase of user %q is shorter than 8 characters (RFC 3414 requires at least 8)", c.User)
		}
	}
	return nil
}

// SecurityLevel returns the SNMPv3 security level the configuration
// yields: noAuthNoPriv, authNoPriv or authPriv ("" for SNMPv2c).
func (c *Config) SecurityLevel() string {
	switch {
	case c.Version != gosnmp.Version3:
		return ""
	case c.privKey != "":
		return "authPriv"
	case c.authKey != "":
		return "authNoPriv"
	}
	return "noAuthNoPriv"
}

// Address returns host:port.
func (c *Config) Address() string { return net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))) }

// String describes the configuration without any secret.
func (c *Config) String() string {
	if c.Version == gosnmp.Version3 {
		return fmt.Sprintf("snmp://%s@%s (SNMPv3 %s)", c.User, c.Address(), c.SecurityLevel())
	}
	return fmt.Sprintf("snmp://%s (SNMPv2c)", c.Address())
}

// secret reads the credential named by NAME-file or NAME-env; "" if
// neither is given. Only the file's or variable's name appears in errors.
func secret(q device.Query, name string) (string, error) {
	ref, err := q.Secret(name)
	if err != nil || !ref.IsSet() {
		return "", err
	}
	return ref.Read()
}

func keys[V any](m map[string]V) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
