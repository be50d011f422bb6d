package diag

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// ErrInvalidRequest is wrapped by every validation error.
var ErrInvalidRequest = errors.New("diag: invalid request")

// Bounds of a Request's numeric fields.
const (
	MaxCount      = 100   // ping probes, mtr cycles
	MaxHops       = 64    // traceroute, tracepath, mtr
	MaxTTL        = 255   // ping's time to live
	MaxPacketSize = 9000  // bytes of payload
	MaxTimeout    = 30    // seconds to wait for one reply
	MinIntervalMs = 200   // older iputils refuse less without root (20221126 refuses < 2 ms)
	MaxIntervalMs = 10000 // ms between probes
	maxNameLen    = 253
)

// Request is a diagnostic request: the arguments of the MCP tools, what
// the local runner runs, and what a device driver's Diagnose receives.
// Validate checks it and fills in the defaults; a driver may trust a
// validated request's fields. Zero values select the defaults.
type Request struct {
	// Tool is "ping", "traceroute", "tracepath", "dig" or "mtr".
	Tool string `json:"tool"`
	// Destination is an IP address or an RFC 1123 host name (for dig: the
	// name to query, or an address for a reverse lookup).
	Destination string `json:"destination"`
	// Count is the number of ping probes or mtr cycles (default 4, 1..100).
	Count int `json:"count,omitempty"`
	// IntervalMs is the time between ping probes (default 1000, 200..10000).
	IntervalMs int `json:"intervalMs,omitempty"`
	// Timeout is the seconds to wait for each reply (default 2, 1..30).
	Timeout int `json:"timeout,omitempty"`
	// PacketSize is the payload size in bytes (0 = tool default, ..9000).
	PacketSize int `json:"packetSize,omitempty"`
	// DontFragment sets the DF bit (ping, traceroute).
	DontFragment bool `json:"dontFragment,omitempty"`
	// MaxHops bounds traceroute, tracepath and mtr (default 30, 1..64).
	MaxHops int `json:"maxHops,omitempty"`
	// TTL is ping's time to live (1..255; 0 leaves ping's default, 64).
	TTL int `json:"ttl,omitempty"`
	// IPv6 forces IPv6 (by default the tool chooses).
	IPv6 bool `json:"ipv6,omitempty"`
	// IPv4 forces IPv4.
	IPv4 bool `json:"ipv4,omitempty"`
	// Source is a source address (an IP address only).
	Source string `json:"source,omitempty"`
	// VRF names a VRF on devices that have them (not used locally).
	VRF string `json:"vrf,omitempty"`
	// QueryType is dig's record type (default A).
	QueryType string `json:"queryType,omitempty"`
	// Server is dig's server (an IP address only).
	Server string `json:"server,omitempty"`
	// Resolve asks traceroute/tracepath/mtr to print host names (default
	// numeric, which never waits on DNS).
	Resolve bool `json:"resolve,omitempty"`
}

// QueryTypes are the record types dig may ask for.
var QueryTypes = []string{"A", "AAAA", "MX", "NS", "SOA", "TXT", "PTR", "CNAME", "SRV", "CAA", "DS", "DNSKEY", "NAPTR", "SSHFP", "TLSA", "HTTPS", "SVCB"}

// RunTools are the tools the runner executes.
var RunTools = []string{"ping", "traceroute", "tracepath", "dig", "mtr"}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// Validate checks r and fills its defaults. Every field is bounded; the
// destination must be an IP address or an ASCII RFC 1123 host name, so no
// value can be taken for an option or shell syntax.
func (r *Request) Validate() error {
	if !slices.Contains(RunTools, r.Tool) {
		return invalid("tool %q is not one of %s", r.Tool, strings.Join(RunTools, ", "))
	}
	if err := ValidateDestination(r.Destination); err != nil {
		return err
	}
	if r.IPv4 && r.IPv6 {
		return invalid("ipv4 and ipv6 are exclusive")
	}
	if a, err := netip.ParseAddr(r.Destination); err == nil {
		if (r.IPv4 && !a.Is4()) || (r.IPv6 && !a.Is6()) {
			return invalid("destination %s does not match the address family asked for", r.Destination)
		}
	}
	if err := bound("count", &r.Count, 4, 1, MaxCount); err != nil {
		return err
	}
	if err := bound("intervalMs", &r.IntervalMs, 1000, MinIntervalMs, MaxIntervalMs); err != nil {
		return err
	}
	if err := bound("timeout", &r.Timeout, 2, 1, MaxTimeout); err != nil {
		return err
	}
	if err := bound("maxHops", &r.MaxHops, 30, 1, MaxHops); err != nil {
		return err
	}
	if r.TTL != 0 {
		if r.Tool != "ping" {
			return invalid("ttl applies to ping only (traceroute, tracepath and mtr take maxHops)")
		}
		if r.TTL < 1 || r.TTL > MaxTTL {
			return invalid("ttl %d out of range 1..%d", r.TTL, MaxTTL)
		}
	}
	if r.PacketSize < 0 || r.PacketSize > MaxPacketSize {
		return invalid("packetSize %d out of range 0..%d", r.PacketSize, MaxPacketSize)
	}
	if r.Source != "" {
		if _, err := netip.ParseAddr(r.Source); err != nil || strings.Contains(r.Source, "%") {
			return invalid("source %q is not an IP address", r.Source)
		}
	}
	if r.Server != "" {
		if r.Tool != "dig" {
			return invalid("server applies to dig only")
		}
		if _, err := netip.ParseAddr(r.Server); err != nil || strings.Contains(r.Server, "%") {
			return invalid("server %q is not an IP address", r.Server)
		}
	}
	if r.QueryType != "" {
		if r.Tool != "dig" {
			return invalid("queryType applies to dig only")
		}
		r.QueryType = strings.ToUpper(r.QueryType)
		if !slices.Contains(QueryTypes, r.QueryType) {
			return invalid("queryType %q is not one of %s", r.QueryType, strings.Join(QueryTypes, " "))
		}
	} else if r.Tool == "dig" {
		r.QueryType = "A"
	}
	if r.VRF != "" && !isWord(r.VRF, 32) {
		return invalid("vrf %q must be 1..32 letters, digits, '_', '-' or '.'", r.VRF)
	}
	return nil
}

func bound(name string, v *int, def, lo, hi int) error {
	if *v == 0 {
		*v = def
	}
	if *v < lo || *v > hi {
		return invalid("%s %d out of range %d..%d", name, *v, lo, hi)
	}
	return nil
}

// ValidateDestination accepts an IP address (an IPv6 zone limited to
// interface-name characters) or an RFC 1123 host name: ASCII letters,
// digits and hyphens in dot-separated labels of 1..63, at most 253
// characters, no label starting or ending with '-'. Everything else
// (spaces, shell syntax, NUL, newlines, option-like "-x", look-alike
// Unicode) is refused.
func ValidateDestination(d string) error {
	if d == "" {
		return invalid("destination is empty")
	}
	if len(d) > maxNameLen {
		return invalid("destination is longer than %d characters", maxNameLen)
	}
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < 0x21 || c > 0x7e {
			return invalid("destination contains a forbidden character %q at byte %d (ASCII host names and IP addresses only)", c, i)
		}
	}
	if d[0] == '-' {
		return invalid("destination %q starts with '-'", d)
	}
	if a, err := netip.ParseAddr(d); err == nil {
		if z := a.Zone(); z != "" && !isWord(z, 15) {
			return invalid("destination zone %q is not an interface name", z)
		}
		return nil
	}
	name := strings.TrimSuffix(d, ".")
	for _, label := range strings.Split(name, ".") {
		if len(label) == 0 || len(label) > 63 {
			return invalid("destination %q: empty or over-long label", d)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return invalid("destination %q: a label starts or ends with '-'", d)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return invalid("destination %q: character %q is not allowed in a host name", d, c)
			}
		}
	}
	return nil
}

func isWord(s string, max int) bool {
	if len(s) == 0 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return s[0] != '-'
}

// Interval is the time between ping probes (IntervalMs; 0 when unset).
func (r *Request) Interval() time.Duration {
	return time.Duration(r.IntervalMs) * time.Millisecond
}

// ReplyTimeout is the time to wait for each reply (Timeout; 0 when unset).
func (r *Request) ReplyTimeout() time.Duration {
	return time.Duration(r.Timeout) * time.Second
}

// TimeLimit is the longest the request may run: the probes' worst case
// plus a margin, at most two minutes.
func (r *Request) TimeLimit() time.Duration {
	per := time.Duration(r.Timeout) * time.Second
	var d time.Duration
	switch r.Tool {
	case "ping":
		d = time.Duration(r.Count)*time.Duration(r.IntervalMs)*time.Millisecond + per
	case "traceroute":
		d = time.Duration(r.MaxHops) * per // probes of a hop run in parallel
	case "tracepath":
		d = time.Duration(r.MaxHops) * 2 * per
	case "dig":
		d = 3 * per
	case "mtr":
		d = time.Duration(r.Count)*time.Second + per
	}
	d += 5 * time.Second
	if d > 2*time.Minute {
		d = 2 * time.Minute
	}
	return d
}
