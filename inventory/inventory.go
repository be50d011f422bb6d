// Package inventory reads and writes the fleet file of netmcp: the devices
// a controller (netmcp ask, netmcp controller serve) or an agent talks to,
// each with the MCP endpoint that serves it and the credentials to use,
// given by reference (a file path or an environment variable name), never
// inline. `netmcp lab up` writes one for the lab it starts.
//
//	name: lab
//	devices:
//	  - name: r1
//	    url: http://127.0.0.1:41001/mcp
//	    device: sim://r1
//	    dialect: huawei-vrp
//	    site: site-a
//	    role: pe
//	    tags: [core]
//	    credentials:
//	      token-file: /run/netmcp/r1.token
//	  - name: r9
//	    command: [netmcp, serve, --device, "ssh://admin@10.0.0.9?dialect=cisco-iosxr"]
package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Inventory is a fleet of devices.
type Inventory struct {
	// Name labels the fleet (a lab's topology name).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Domains are the DNS zones the fleet's names live in, first the one
	// whose records name the devices ("lab.example": r1.lab.example is
	// r1): the controller checks the devices' records there.
	Domains []string `yaml:"domains,omitempty" json:"domains,omitempty"`
	Devices []Device `yaml:"devices" json:"devices"`
}

// Transports of a device's MCP endpoint, derived from Device.URL or Command.
const (
	TransportHTTP      = "http"       // Streamable HTTP: http:// or https:// URL
	TransportTLSStream = "tls-stream" // the troubleshooting draft's TLS stream: mcps:// URL
	TransportStdio     = "stdio"      // a command whose stdin/stdout speak MCP
)

// Device is one device of the fleet and the MCP server that serves it.
type Device struct {
	// Name identifies the device in the fleet (letters, digits, '.', '_', '-').
	Name string `yaml:"name" json:"name"`
	// URL is the MCP endpoint: https://host:port/mcp (Streamable HTTP) or
	// mcps://host:port (TLS stream, ALPN "mcp"). Exactly one of URL and
	// Command is set.
	URL string `yaml:"url,omitempty" json:"url,omitempty"`
	// Command runs an MCP server over stdio (argv, no shell).
	Command []string `yaml:"command,omitempty" json:"command,omitempty"`
	// Device is the device URL behind the server (sim://r1, netconf://...),
	// for information.
	Device string `yaml:"device,omitempty" json:"device,omitempty"`
	// GNMI is the device's gnmi:// URL, when it is also reachable over
	// gNMI (a lab's routers with `netmcp lab up --gnmi`): `netmcp
	// controller serve` follows the device's changes through its ON_CHANGE
	// stream for the resource subscriptions.
	GNMI string `yaml:"gnmi,omitempty" json:"gnmi,omitempty"`
	// Dialect is the CLI dialect, when known before connecting.
	Dialect string `yaml:"dialect,omitempty" json:"dialect,omitempty"`
	// Site, Role and Tags group devices for intents ("between site-a and site-b").
	Site string   `yaml:"site,omitempty" json:"site,omitempty"`
	Role string   `yaml:"role,omitempty" json:"role,omitempty"`
	Tags []string `yaml:"tags,omitempty" json:"tags,omitempty"`
	// Addresses are the addresses the operator assigned the device (its
	// IPAM record: "10.3.0.10/24" or "10.3.0.10"), for a host: the
	// controller places a host that answers nothing (host_crash) on the
	// router LAN they belong to.
	Addresses []string `yaml:"addresses,omitempty" json:"addresses,omitempty"`
	// Credentials are references to the secrets used to connect.
	Credentials Credentials `yaml:"credentials,omitempty" json:"credentials,omitzero"`
}

// Credentials name where the secrets are, never the secrets themselves.
type Credentials struct {
	// TokenFile or TokenEnv hold a bearer token (JWT) sent over HTTP.
	TokenFile string `yaml:"token-file,omitempty" json:"token-file,omitempty"`
	TokenEnv  string `yaml:"token-env,omitempty" json:"token-env,omitempty"`
	// CertFile and KeyFile are the client certificate for mutual TLS.
	CertFile string `yaml:"cert-file,omitempty" json:"cert-file,omitempty"`
	KeyFile  string `yaml:"key-file,omitempty" json:"key-file,omitempty"`
	// CAFile verifies the server's certificate (default: system roots).
	CAFile string `yaml:"ca-file,omitempty" json:"ca-file,omitempty"`
	// ServerName overrides the TLS server name checked.
	ServerName string `yaml:"server-name,omitempty" json:"server-name,omitempty"`
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// domainRE is a DNS name: labels of letters, digits and '-' (not at either
// end), at most 63 characters each, dot-separated, an optional final dot.
var domainRE = regexp.MustCompile(`^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?$`)
var envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Transport tells how the device's server is reached.
func (d Device) Transport() string {
	if len(d.Command) > 0 {
		return TransportStdio
	}
	if strings.HasPrefix(d.URL, "mcps://") {
		return TransportTLSStream
	}
	return TransportHTTP
}

// Token returns the bearer token the credentials name ("" when none).
func (c Credentials) Token() (string, error) {
	switch {
	case c.TokenFile != "":
		b, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return "", fmt.Errorf("token-file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	case c.TokenEnv != "":
		v, ok := os.LookupEnv(c.TokenEnv)
		if !ok {
			return "", fmt.Errorf("token-env: environment variable %s is not set", c.TokenEnv)
		}
		return strings.TrimSpace(v), nil
	}
	return "", nil
}

// Validate checks the inventory: unique valid names, one endpoint per
// device with a known scheme, credentials by reference only.
func (inv *Inventory) Validate() error {
	if len(inv.Devices) == 0 {
		return errors.New("inventory: no devices")
	}
	for _, z := range inv.Domains {
		if !domainRE.MatchString(z) {
			return fmt.Errorf("inventory: domain %q is not a DNS name (labels of letters, digits and '-', dot-separated)", z)
		}
	}
	seen := map[string]bool{}
	for i, d := range inv.Devices {
		where := fmt.Sprintf("inventory: device %d (%s)", i+1, d.Name)
		if !nameRE.MatchString(d.Name) {
			return fmt.Errorf("%s: bad name %q: letters, digits, '.', '_', '-', at most 63", where, d.Name)
		}
		if seen[d.Name] {
			return fmt.Errorf("inventory: duplicate device %q", d.Name)
		}
		seen[d.Name] = true
		switch {
		case d.URL != "" && len(d.Command) > 0:
			return fmt.Errorf("%s: set url or command, not both", where)
		case d.URL == "" && len(d.Command) == 0:
			return fmt.Errorf("%s: needs url or command", where)
		case d.URL != "":
			u, err := url.Parse(d.URL)
			if err != nil {
				return fmt.Errorf("%s: bad url: %v", where, err)
			}
			switch u.Scheme {
			case "http", "https", "mcps":
			default:
				return fmt.Errorf("%s: url scheme %q: want https, http or mcps", where, u.Scheme)
			}
			if u.Host == "" {
				return fmt.Errorf("%s: url %q has no host", where, d.URL)
			}
			if u.User != nil {
				return fmt.Errorf("%s: url carries user information: put credentials in credentials (by reference)", where)
			}
		}
		for _, a := range d.Addresses {
			if _, err := d.addr(a); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
		}
		c := d.Credentials
		if c.TokenFile != "" && c.TokenEnv != "" {
			return fmt.Errorf("%s: set token-file or token-env, not both", where)
		}
		if c.TokenEnv != "" && !envRE.MatchString(c.TokenEnv) {
			return fmt.Errorf("%s: token-env %q is not an environment variable name", where, c.TokenEnv)
		}
		if (c.CertFile == "") != (c.KeyFile == "") {
			return fmt.Errorf("%s: cert-file and key-file go together", where)
		}
	}
	return nil
}

// Addrs returns the device's Addresses, parsed (Validate checked them).
func (d Device) Addrs() []netip.Addr {
	var out []netip.Addr
	for _, s := range d.Addresses {
		if a, err := d.addr(s); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// addr parses one of Addresses: an address, or one with its prefix length.
func (d Device) addr(s string) (netip.Addr, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Addr(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("address %q: want an IP address, with or without its prefix length (10.3.0.10/24)", s)
	}
	return a, nil
}

// Device returns the device called name.
func (inv *Inventory) Device(name string) (Device, bool) {
	for _, d := range inv.Devices {
		if d.Name == name {
			return d, true
		}
	}
	return Device{}, false
}

// Parse reads an inventory from YAML (or JSON). Unknown keys are errors,
// so an inline secret ("token: ...") is refused rather than ignored.
func Parse(data []byte) (*Inventory, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var inv Inventory
	if err := dec.Decode(&inv); err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	if err := inv.Validate(); err != nil {
		return nil, err
	}
	return &inv, nil
}

// Load reads and validates an inventory file. Relative credential paths
// are taken relative to the file's directory.
func Load(file string) (*Inventory, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	inv, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	dir := filepath.Dir(file)
	for i := range inv.Devices {
		c := &inv.Devices[i].Credentials
		for _, p := range []*string{&c.TokenFile, &c.CertFile, &c.KeyFile, &c.CAFile} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(dir, *p)
			}
		}
	}
	return inv, nil
}

// Save writes the inventory as YAML, atomically (a temporary file renamed
// over file), readable by its owner only.
func Save(file string, inv *Inventory) error {
	if err := inv.Validate(); err != nil {
		return err
	}
	data, err := yaml.Marshal(inv)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".inventory-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
