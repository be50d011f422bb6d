package netsim

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/netmcp/netmcp/lab/topology"
)

// validateControl checks a device's OSPF and BGP configuration: what the
// FRR configuration parser would refuse, and references to interfaces and
// processes that do not exist.
func validateControl(d *topology.Device) error {
	if (d.OSPF != nil || d.BGP != nil) && d.Kind == topology.KindHost {
		return fmt.Errorf("netsim: device %q: a host runs no OSPF or BGP (routers only)", d.Name)
	}
	ifs := map[string]*topology.Interface{}
	for i := range d.Interfaces {
		ifs[d.Interfaces[i].Name] = &d.Interfaces[i]
	}
	if err := validateOSPF(d); err != nil {
		return err
	}
	return validateBGP(d, ifs)
}

// validateOSPF checks the OSPF process and the interfaces' OSPF settings.
func validateOSPF(d *topology.Device) error {
	if o := d.OSPF; o != nil {
		where := fmt.Sprintf("netsim: device %q ospf", d.Name)
		if o.RouterID != "" {
			if a, err := netip.ParseAddr(o.RouterID); err != nil || !a.Is4() {
				return fmt.Errorf("%s: router-id %q is not an IPv4 address", where, o.RouterID)
			}
		}
		for _, r := range o.Redistribute {
			if !slices.Contains([]string{"connected", "static", "bgp"}, r) {
				return fmt.Errorf("%s: redistribute %q (want connected, static or bgp)", where, r)
			}
		}
		if o.ReferenceBandwidthMbps < 0 || o.ReferenceBandwidthMbps > 4294967 {
			return fmt.Errorf("%s: reference-bandwidth %d out of range 1-4294967", where, o.ReferenceBandwidthMbps)
		}
	}
	for _, it := range d.Interfaces {
		c := it.OSPF
		if c == nil {
			continue
		}
		where := fmt.Sprintf("netsim: device %q interface %q ospf", d.Name, it.Name)
		if d.OSPF == nil {
			return fmt.Errorf("%s: the device has no OSPF process (add ospf: {} to the device)", where)
		}
		if it.VRF != "" {
			return fmt.Errorf("%s: OSPF runs in the global table only, not in VRF %q", where, it.VRF)
		}
		if _, err := normArea(c.Area); err != nil {
			return fmt.Errorf("%s: %v", where, err)
		}
		switch c.NetworkType {
		case "", topology.OSPFPointToPoint, topology.OSPFBroadcast:
		default:
			return fmt.Errorf("%s: network-type %q (want point-to-point or broadcast)", where, c.NetworkType)
		}
		for _, r := range []struct {
			name     string
			v, lo, h int
		}{{"cost", c.Cost, 1, 65535}, {"hello-interval", c.Hello, 1, 65535}, {"dead-interval", c.Dead, 1, 65535}} {
			if r.v != 0 && (r.v < r.lo || r.v > r.h) {
				return fmt.Errorf("%s: %s %d out of range %d-%d", where, r.name, r.v, r.lo, r.h)
			}
		}
		if c.Priority != nil && (*c.Priority < 0 || *c.Priority > 255) {
			return fmt.Errorf("%s: priority %d out of range 0-255", where, *c.Priority)
		}
	}
	return nil
}

// validateBGP checks the BGP process and its neighbours.
func validateBGP(d *topology.Device, ifs map[string]*topology.Interface) error {
	b := d.BGP
	if b == nil {
		return nil
	}
	where := fmt.Sprintf("netsim: device %q bgp", d.Name)
	if b.ASN == 0 {
		return fmt.Errorf("%s: asn must be 1-4294967295", where)
	}
	if b.RouterID != "" {
		if a, err := netip.ParseAddr(b.RouterID); err != nil || !a.Is4() {
			return fmt.Errorf("%s: router-id %q is not an IPv4 address", where, b.RouterID)
		}
	}
	if b.Hold != 0 && (b.Hold < 3 || b.Hold > 65535) {
		return fmt.Errorf("%s: hold-time %d (want 0 or 3-65535)", where, b.Hold)
	}
	if b.Keepalive < 0 || b.Keepalive > 65535 {
		return fmt.Errorf("%s: keepalive %d out of range 0-65535", where, b.Keepalive)
	}
	for _, s := range b.Networks {
		if _, err := netip.ParsePrefix(s); err != nil {
			return fmt.Errorf("%s: network %q: %v", where, s, err)
		}
	}
	for _, r := range b.Redistribute {
		if !slices.Contains([]string{"connected", "static", "ospf"}, r) {
			return fmt.Errorf("%s: redistribute %q (want connected, static or ospf)", where, r)
		}
	}
	own := map[netip.Addr]bool{}
	for _, it := range d.Interfaces {
		for _, a := range it.Addresses {
			if p, err := netip.ParsePrefix(a); err == nil {
				own[p.Addr()] = true
			}
		}
	}
	seen := map[netip.Addr]bool{}
	for _, n := range b.Neighbors {
		w := fmt.Sprintf("%s neighbor %q", where, n.Address)
		a, err := netip.ParseAddr(n.Address)
		if err != nil {
			return fmt.Errorf("%s: not an IP address", w)
		}
		a = a.Unmap()
		if seen[a] {
			return fmt.Errorf("%s: configured twice", w)
		}
		seen[a] = true
		if own[a] {
			return fmt.Errorf("%s: is an address of the device itself", w)
		}
		if n.RemoteAS == 0 {
			return fmt.Errorf("%s: remote-as must be 1-4294967295", w)
		}
		if n.UpdateSource != "" && ifs[n.UpdateSource] == nil {
			return fmt.Errorf("%s: update-source %q is not an interface of the device", w, n.UpdateSource)
		}
		if n.EBGPMultihop < 0 || n.EBGPMultihop > 255 {
			return fmt.Errorf("%s: ebgp-multihop %d out of range 1-255", w, n.EBGPMultihop)
		}
		if n.EBGPMultihop > 0 && n.RemoteAS == b.ASN {
			return fmt.Errorf("%s: ebgp-multihop applies to eBGP neighbours only (remote-as is the local AS %d)", w, b.ASN)
		}
		if n.MaxPrefix < 0 {
			return fmt.Errorf("%s: negative maximum-prefix", w)
		}
	}
	return nil
}
