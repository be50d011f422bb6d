package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// Dialects the simulator speaks.
const (
	DialectVRP = "huawei-vrp"
	DialectXR  = "cisco-iosxr"
)

// devConfig is a device's configuration as the CLI parsers edit it: the
// topology device plus the hostname (which may differ from the lab name).
type devConfig struct {
	dev      topology.Device
	hostname string
}

// mode is one level of the configuration mode stack.
type mode struct {
	kind string // top, interface, vlan, acl, vrf, user, aaa, static, static-af, static-vrf, static-vrf-af
	name string // interface, ACL, VRF or user name
	vlan int
	v6   bool // static-*-af: IPv6
	vrf  string
}

// cfgSession applies configuration lines of one dialect to a devConfig.
type cfgSession struct {
	c       *devConfig
	dialect string
	stack   []mode
	// handler parses one line in one mode; handled=false means "not a
	// command of this mode" and the parent mode is tried, as IOS and VRP do.
	handler func(s *cfgSession, m mode, words []string, line string) (handled bool, err error)
}

func newSession(c *devConfig, dialect string) (*cfgSession, error) {
	s := &cfgSession{c: c, dialect: dialect, stack: []mode{{kind: "top"}}}
	switch dialect {
	case DialectVRP:
		s.handler = vrpConfigLine
	case DialectXR:
		s.handler = xrConfigLine
	default:
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "CLI dialect %q has no configuration parser", dialect)
	}
	return s, nil
}

// apply parses lines. Indented text (a configuration file) uses the
// indentation: a line starting in column 0 returns to the top mode.
// Flat lines (typed commands) fall back from the current mode to its
// parents until one accepts the command.
func (s *cfgSession) apply(lines []string) error {
	structured := false
	for _, l := range lines {
		if len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
			structured = true
			break
		}
	}
	for i, raw := range lines {
		line := strings.TrimRight(raw, " \t\r")
		trim := strings.TrimSpace(line)
		if trim == "" || trim == "!" || trim == "#" || strings.HasPrefix(trim, "!") || (s.dialect == DialectVRP && strings.HasPrefix(trim, "#")) {
			continue
		}
		if structured && line[0] != ' ' && line[0] != '\t' {
			s.stack = s.stack[:1]
		}
		if err := s.line(trim); err != nil {
			if e, ok := err.(*netproto.Error); ok {
				if len(lines) > 1 {
					e.Detail = fmt.Sprintf("line %d: %s", i+1, e.Detail)
				}
				return e
			}
			return netproto.Errorf(netproto.CodeConfigIncompatible, "line %d %q: %v", i+1, trim, err)
		}
	}
	return nil
}

func (s *cfgSession) line(line string) error {
	words := strings.Fields(line)
	for depth := len(s.stack) - 1; depth >= 0; depth-- {
		handled, err := s.handler(s, s.stack[depth], words, line)
		if err != nil {
			return err
		}
		if handled {
			return nil
		}
		if depth > 0 {
			s.stack = s.stack[:depth] // leave the mode that did not know the command
		}
	}
	return unknownConfig(s.dialect, line)
}

// enter pushes a mode above the current one.
func (s *cfgSession) enter(m mode) { s.stack = append(s.stack, m) }

// exit leaves the current mode.
func (s *cfgSession) exit() {
	if len(s.stack) > 1 {
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// top returns to the top mode.
func (s *cfgSession) top() { s.stack = s.stack[:1] }

func unknownConfig(dialect, line string) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible,
		"unsupported configuration command %q for CLI dialect %s", line, dialect)
}

func badArgs(dialect, line, why string) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %q: %s", dialect, line, why)
}

// iface returns the interface named name, creating it if create is set.
func (c *devConfig) iface(name string, create bool) *topology.Interface {
	for i := range c.dev.Interfaces {
		if strings.EqualFold(c.dev.Interfaces[i].Name, name) {
			return &c.dev.Interfaces[i]
		}
	}
	if !create {
		return nil
	}
	it := topology.Interface{Name: name}
	if t := guessType(name); t != "ethernetCsmacd" {
		it.Type = t
	}
	if it.Type == "l3ipvlan" {
		it.RoutedVLAN = trailingNumber(name)
	}
	c.dev.Interfaces = append(c.dev.Interfaces, it)
	return &c.dev.Interfaces[len(c.dev.Interfaces)-1]
}

// removeInterface deletes a (logical) interface.
func (c *devConfig) removeInterface(name string) bool {
	n := len(c.dev.Interfaces)
	c.dev.Interfaces = slices.DeleteFunc(c.dev.Interfaces, func(it topology.Interface) bool {
		return strings.EqualFold(it.Name, name)
	})
	return len(c.dev.Interfaces) != n
}

func trailingNumber(s string) int {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return n
}

// setAddress adds an address to an interface; a primary IPv4 address
// replaces the previous IPv4 addresses, as on routers.
func setAddress(it *topology.Interface, p netip.Prefix, secondary bool) {
	s := netip.PrefixFrom(p.Addr(), p.Bits()).String()
	if p.Addr().Is4() && !secondary {
		it.Addresses = slices.DeleteFunc(it.Addresses, func(a string) bool { return !strings.Contains(a, ":") })
	}
	if !slices.Contains(it.Addresses, s) {
		it.Addresses = append(it.Addresses, s)
	}
}

// editAddress applies the arguments of an "ip address" (v6: "ipv6
// address") command to an interface: "A M|A/LEN [SECONDARY]" adds, and
// with remove deletes that address, or every address of the family when
// args is empty. secondary is the dialect's keyword for an IPv4 address
// that does not replace the primary. It reports false when args do not
// parse as an address of the family.
func editAddress(it *topology.Interface, args []string, remove, v6 bool, secondary string) bool {
	if remove && len(args) == 0 {
		removeAddress(it, netip.Prefix{}, v6)
		return true
	}
	p, used, err := parseAddrMask(args, 0)
	if err != nil || p.Addr().Is6() != v6 {
		return false
	}
	if remove {
		removeAddress(it, p, v6)
	} else {
		setAddress(it, p, v6 || (len(args) > used && args[used] == secondary))
	}
	return true
}

// removeAddress removes an address (all of a family when p is invalid).
func removeAddress(it *topology.Interface, p netip.Prefix, v6 bool) {
	it.Addresses = slices.DeleteFunc(it.Addresses, func(a string) bool {
		ap, err := netip.ParsePrefix(a)
		if err != nil || ap.Addr().Is6() != v6 {
			return false
		}
		return !p.IsValid() || ap.Addr() == p.Addr()
	})
}

// findOrAppend returns the element of *list that match accepts, appending
// fresh when there is none.
func findOrAppend[T any](list *[]T, match func(T) bool, fresh T) *T {
	if i := slices.IndexFunc(*list, match); i >= 0 {
		return &(*list)[i]
	}
	*list = append(*list, fresh)
	return &(*list)[len(*list)-1]
}

// vlan returns the VLAN with id, creating it.
func (c *devConfig) vlan(id int) *topology.VLAN {
	return findOrAppend(&c.dev.VLANs, func(v topology.VLAN) bool { return v.ID == id }, topology.VLAN{ID: id})
}

// vrf returns the VRF named name, creating it.
func (c *devConfig) vrf(name string) *topology.VRF {
	return findOrAppend(&c.dev.VRFs, func(v topology.VRF) bool { return v.Name == name }, topology.VRF{Name: name})
}

// acl returns the ACL named name, creating it.
func (c *devConfig) acl(name string) *topology.ACL {
	return findOrAppend(&c.dev.ACLs, func(a topology.ACL) bool { return a.Name == name }, topology.ACL{Name: name})
}

// setRule adds or replaces an ACL rule; seq 0 picks the next multiple of step.
func setRule(a *topology.ACL, r topology.ACLEntry, step int) {
	if r.Seq == 0 {
		for _, e := range a.Rules {
			r.Seq = max(r.Seq, e.Seq)
		}
		r.Seq = (r.Seq/step + 1) * step
	}
	a.Rules = slices.DeleteFunc(a.Rules, func(e topology.ACLEntry) bool { return e.Seq == r.Seq })
	a.Rules = append(a.Rules, r)
	slices.SortFunc(a.Rules, func(x, y topology.ACLEntry) int { return x.Seq - y.Seq })
}

// user returns the local user named name, creating it.
func (c *devConfig) user(name string) *topology.User {
	return findOrAppend(&c.dev.Users, func(u topology.User) bool { return u.Name == name }, topology.User{Name: name})
}

// routeChange adds a static route, or removes it when remove is set (only
// the routes with its next hop when the command names one).
func routeChange(s *cfgSession, r topology.StaticRoute, remove bool, line string) (bool, error) {
	if remove {
		exact := r.NextHop != "" || r.Interface != "" || r.Discard
		if s.c.removeRoute(r, exact) == 0 {
			return true, badArgs(s.dialect, line, "no such static route")
		}
		return true, nil
	}
	s.c.addRoute(r)
	return true, nil
}

// addRoute adds a static route, replacing one with the same prefix, VRF
// and next hop.
func (c *devConfig) addRoute(r topology.StaticRoute) {
	c.removeRoute(r, true)
	c.dev.Routes = append(c.dev.Routes, r)
}

// removeRoute removes static routes of a prefix and VRF (only those with
// r's next hop when exact).
func (c *devConfig) removeRoute(r topology.StaticRoute, exact bool) int {
	n := len(c.dev.Routes)
	c.dev.Routes = slices.DeleteFunc(c.dev.Routes, func(x topology.StaticRoute) bool {
		if x.Prefix != r.Prefix || x.VRF != r.VRF {
			return false
		}
		return !exact || (x.NextHop == r.NextHop && x.Interface == r.Interface && x.Discard == r.Discard)
	})
	return n - len(c.dev.Routes)
}

// parseAddrMask parses "A M" (dotted mask), "A LEN" or "A/LEN" starting at
// words[i]; it returns the prefix (address kept, not masked) and the
// number of words used.
func parseAddrMask(words []string, i int) (netip.Prefix, int, error) {
	if i >= len(words) {
		return netip.Prefix{}, 0, fmt.Errorf("missing address")
	}
	if strings.Contains(words[i], "/") {
		p, err := netip.ParsePrefix(words[i])
		return p, 1, err
	}
	a, err := netip.ParseAddr(words[i])
	if err != nil {
		return netip.Prefix{}, 0, fmt.Errorf("bad address %q", words[i])
	}
	if i+1 >= len(words) {
		return netip.Prefix{}, 0, fmt.Errorf("missing mask after %s", words[i])
	}
	bits, err := maskBits(words[i+1], a.Is4(), false)
	if err != nil {
		return netip.Prefix{}, 0, err
	}
	return netip.PrefixFrom(a, bits), 2, nil
}

// maskBits reads a prefix length, a dotted mask, or (wildcard) a dotted
// wildcard mask.
func maskBits(s string, v4, wildcard bool) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || (v4 && n > 32) || n > 128 {
			return 0, fmt.Errorf("bad prefix length %s", s)
		}
		return n, nil
	}
	m, err := netip.ParseAddr(s)
	if err != nil || !m.Is4() {
		return 0, fmt.Errorf("bad mask %q", s)
	}
	b := m.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if wildcard {
		v = ^v
	}
	bits := 0
	for v&0x80000000 != 0 {
		bits++
		v <<= 1
	}
	if v != 0 {
		return 0, fmt.Errorf("non-contiguous mask %q", s)
	}
	return bits, nil
}

// dottedMask returns the dotted mask (or wildcard) of an IPv4 prefix length.
func dottedMask(bits int, wildcard bool) string {
	v := uint32(0)
	if bits > 0 {
		v = ^uint32(0) << (32 - bits)
	}
	if wildcard {
		v = ^v
	}
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff)
}

// isNull tells whether an interface name is the discard interface.
func isNull(s string) bool { return strings.EqualFold(s, "null0") }

// parseVLANList reads "10 20 30 to 40" (VRP) or "10,20,30-40" (IOS).
func parseVLANList(words []string) ([]int, error) {
	var out []int
	toks := strings.FieldsFunc(strings.Join(words, " "), func(r rune) bool { return r == ',' || r == ' ' })
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		lo, hi := t, t
		if a, b, ok := strings.Cut(t, "-"); ok {
			lo, hi = a, b
		} else if i+2 < len(toks) && toks[i+1] == "to" {
			hi = toks[i+2]
			i += 2
		}
		l, err1 := strconv.Atoi(lo)
		h, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || h < l || h-l > 4094 {
			return nil, fmt.Errorf("bad VLAN list %q", strings.Join(words, " "))
		}
		for v := l; v <= h; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}

// parseWildcard reads "A W" (wildcard mask), "A LEN", "A/LEN", "A 0" or
// "host A" at words[i]; it returns the prefix in CIDR form and the words used.
func parseWildcard(words []string, i int) (string, int, error) {
	if i < len(words) && words[i] == "host" {
		if i+1 >= len(words) {
			return "", 0, fmt.Errorf("missing address after host")
		}
		a, err := netip.ParseAddr(words[i+1])
		if err != nil {
			return "", 0, fmt.Errorf("bad address %q", words[i+1])
		}
		return netip.PrefixFrom(a, a.BitLen()).String(), 2, nil
	}
	if i < len(words) && strings.Contains(words[i], "/") {
		p, err := netip.ParsePrefix(words[i])
		if err != nil {
			return "", 0, fmt.Errorf("bad prefix %q", words[i])
		}
		return p.Masked().String(), 1, nil
	}
	if i+1 >= len(words) {
		return "", 0, fmt.Errorf("missing address and wildcard")
	}
	a, err := netip.ParseAddr(words[i])
	if err != nil {
		return "", 0, fmt.Errorf("bad address %q", words[i])
	}
	bits := a.BitLen()
	if words[i+1] != "0" {
		if bits, err = maskBits(words[i+1], a.Is4(), true); err != nil {
			return "", 0, err
		}
	}
	return netip.PrefixFrom(a, bits).Masked().String(), 2, nil
}

// errf is fmt.Errorf, for parsers.
func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }
