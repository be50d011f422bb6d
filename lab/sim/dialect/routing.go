package dialect

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// This file holds what the OSPF and BGP configuration parsers and
// renderers of the dialects share: finding or creating the processes,
// peers and interface settings they edit, and the checks a configuration
// must pass before it becomes candidate edits.

// OSPFProc returns the device's OSPF process, creating it.
func (c *Config) OSPFProc() *topology.OSPF {
	if c.Dev.OSPF == nil {
		c.Dev.OSPF = &topology.OSPF{}
	}
	return c.Dev.OSPF
}

// RemoveOSPF deletes the OSPF process and every interface's OSPF settings.
func (c *Config) RemoveOSPF() {
	c.Dev.OSPF = nil
	for i := range c.Dev.Interfaces {
		c.Dev.Interfaces[i].OSPF = nil
	}
}

// LeaveArea takes every interface of area (dotted) out of OSPF.
func (c *Config) LeaveArea(area string) {
	for i := range c.Dev.Interfaces {
		if it := &c.Dev.Interfaces[i]; it.OSPF != nil && DottedArea(it.OSPF.Area) == area {
			it.OSPF = nil
		}
	}
}

// BGPProc returns the BGP process of AS asn, creating it; a process of
// another AS is an error, as on the routers (one BGP instance per device).
func (c *Config) BGPProc(asn string) (*topology.BGP, error) {
	n, err := ParseASN(asn)
	if err != nil {
		return nil, err
	}
	if c.Dev.BGP == nil {
		c.Dev.BGP = &topology.BGP{ASN: n}
	}
	if c.Dev.BGP.ASN != n {
		return nil, fmt.Errorf("BGP is already running in AS %d", c.Dev.BGP.ASN)
	}
	return c.Dev.BGP, nil
}

// ParseASN reads an AS number, plain (65001) or asdot (1.10).
func ParseASN(s string) (uint32, error) {
	if hi, lo, ok := strings.Cut(s, "."); ok {
		h, err1 := strconv.ParseUint(hi, 10, 16)
		l, err2 := strconv.ParseUint(lo, 10, 16)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("bad AS number %q", s)
		}
		return uint32(h<<16 | l), nil
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("AS number must be 1..4294967295, not %q", s)
	}
	return uint32(n), nil
}

// BGPPeer returns the configured peer of address addr (an error when
// absent), creating it when create is set.
func BGPPeer(b *topology.BGP, addr string, create bool) (*topology.BGPNeighbor, error) {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("bad peer address %q", addr)
	}
	for i := range b.Neighbors {
		if x, err := netip.ParseAddr(b.Neighbors[i].Address); err == nil && x == a {
			return &b.Neighbors[i], nil
		}
	}
	if !create {
		return nil, fmt.Errorf("peer %s is not configured", a)
	}
	b.Neighbors = append(b.Neighbors, topology.BGPNeighbor{Address: a.String()})
	return &b.Neighbors[len(b.Neighbors)-1], nil
}

// RemovePeer deletes a BGP peer.
func RemovePeer(b *topology.BGP, addr string) error {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return fmt.Errorf("bad peer address %q", addr)
	}
	n := len(b.Neighbors)
	b.Neighbors = slices.DeleteFunc(b.Neighbors, func(x topology.BGPNeighbor) bool {
		y, err := netip.ParseAddr(x.Address)
		return err == nil && y == a
	})
	if len(b.Neighbors) == n {
		return fmt.Errorf("peer %s is not configured", a)
	}
	return nil
}

// SetNetwork adds (or with remove deletes) a BGP network statement.
func SetNetwork(b *topology.BGP, p netip.Prefix, remove bool) error {
	s := p.Masked().String()
	i := slices.Index(b.Networks, s)
	switch {
	case remove && i < 0:
		return fmt.Errorf("no network %s", s)
	case remove:
		b.Networks = slices.Delete(b.Networks, i, i+1)
	case i < 0:
		b.Networks = append(b.Networks, s)
	}
	return nil
}

// redistNames maps the dialects' words for route sources to the topology's.
var redistNames = map[string]string{"direct": "connected", "connected": "connected", "static": "static", "ospf": "ospf", "bgp": "bgp"}

// SetRedistribute adds (or with remove deletes) a redistribution source.
func SetRedistribute(l *[]string, word string, remove bool, into string) error {
	src, ok := redistNames[strings.ToLower(word)]
	if !ok || src == into {
		return fmt.Errorf("cannot redistribute %q into %s", word, into)
	}
	*l = slices.DeleteFunc(*l, func(s string) bool { return s == src })
	if !remove {
		*l = append(*l, src)
	}
	return nil
}

// IfOSPF returns an interface's OSPF settings, which must exist (the
// interface must have been put in an area first).
func IfOSPF(it *topology.Interface) (*topology.InterfaceOSPF, error) {
	if it.OSPF == nil {
		return nil, fmt.Errorf("interface %s is not in OSPF: put it in an area first", it.Name)
	}
	return it.OSPF, nil
}

// ParseArea reads an area id, dotted or decimal, and returns it dotted.
func ParseArea(s string) (string, error) {
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
		return a.String(), nil
	}
	if _, err := strconv.ParseUint(s, 10, 32); err == nil {
		return DottedArea(s), nil
	}
	return "", fmt.Errorf("bad OSPF area %q (a number or A.B.C.D)", s)
}

// DottedArea writes an area id dotted ("1" -> "0.0.0.1"); a dotted one is
// returned as it is.
func DottedArea(a string) string {
	if n, err := strconv.ParseUint(a, 10, 32); err == nil {
		return fmt.Sprintf("%d.%d.%d.%d", n>>24, n>>16&0xff, n>>8&0xff, n&0xff)
	}
	return a
}

// OSPFAreas lists the areas of a device's interfaces, dotted, in order of
// first use.
func OSPFAreas(d topology.Device) []string {
	var out []string
	for _, it := range d.Interfaces {
		if it.OSPF != nil && !slices.Contains(out, DottedArea(it.OSPF.Area)) {
			out = append(out, DottedArea(it.OSPF.Area))
		}
	}
	return out
}

// PeerIs6 tells whether a peer address is IPv6.
func PeerIs6(addr string) bool {
	a, err := netip.ParseAddr(addr)
	return err == nil && a.Is6()
}

// CheckRouting rejects an OSPF or BGP configuration the routers would
// refuse to commit: a peer without a remote AS, OSPF settings on an
// interface that is in no area. dialect names the CLI in the error.
func CheckRouting(c Config, dialect string) error {
	for _, it := range c.Dev.Interfaces {
		if it.OSPF != nil && it.OSPF.Area == "" {
			return BadArgs(dialect, "interface "+it.Name, "the interface has OSPF settings but is in no area (enable OSPF on it in an area)")
		}
	}
	if b := c.Dev.BGP; b != nil {
		for _, n := range b.Neighbors {
			if n.RemoteAS == 0 {
				return BadArgs(dialect, "neighbor "+n.Address, "the peer has no remote AS (remote-as / as-number)")
			}
		}
	}
	return nil
}

// cloneRouting deep-copies the OSPF and BGP settings a parser edits.
func cloneRouting(d *topology.Device) {
	if d.OSPF != nil {
		o := *d.OSPF
		o.Redistribute = slices.Clone(o.Redistribute)
		d.OSPF = &o
	}
	if d.BGP != nil {
		b := *d.BGP
		b.Neighbors = slices.Clone(b.Neighbors)
		b.Networks = slices.Clone(b.Networks)
		b.Redistribute = slices.Clone(b.Redistribute)
		d.BGP = &b
	}
	for i := range d.Interfaces {
		if o := d.Interfaces[i].OSPF; o != nil {
			x := *o
			if o.Priority != nil {
				p := *o.Priority
				x.Priority = &p
			}
			d.Interfaces[i].OSPF = &x
		}
	}
}
