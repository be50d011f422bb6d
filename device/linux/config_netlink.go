//go:build linux

package linux

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/netmcp/netmcp/netproto"
)

// ifConfig is the configuration of one interface the driver manages
// through netlink: its MTU, its administrative state and its addresses
// (link-local and loopback addresses are the kernel's and left alone).
type ifConfig struct {
	Name    string // as the trees name it: the alias when set, else the kernel's name
	MTU     int    // 0: leave as it is
	Enabled *bool  // nil: leave as it is
	Addrs   []netip.Prefix
}

// ifConfigs reads the interfaces' configuration from netlink.
func ifConfigs(nl *nlState) []ifConfig {
	out := make([]ifConfig, 0, len(nl.Ifaces))
	for _, i := range nl.Ifaces {
		up := i.AdminUp
		out = append(out, ifConfig{Name: i.Name, MTU: i.MTU, Enabled: &up, Addrs: slices.Clone(i.Addrs)})
	}
	return out
}

// ifConfigTree renders interface configurations as openconfig-interfaces
// configuration: config/{name,mtu,enabled} and the addresses of
// subinterface 0, as the operational tree lays them out.
func ifConfigTree(ifs []ifConfig) obj {
	list := make([]any, 0, len(ifs))
	for _, c := range ifs {
		cfg := obj{"name": c.Name}
		if c.MTU > 0 {
			cfg["mtu"] = num(c.MTU)
		}
		if c.Enabled != nil {
			cfg["enabled"] = *c.Enabled
		}
		n := obj{"name": c.Name, "config": cfg}
		var v4, v6 []any
		for _, a := range c.Addrs {
			ip := a.Addr().String()
			e := obj{"ip": ip, "config": obj{"ip": ip, "prefix-length": num(a.Bits())}}
			if a.Addr().Is4() {
				v4 = append(v4, e)
			} else {
				v6 = append(v6, e)
			}
		}
		if len(v4)+len(v6) > 0 {
			sub := obj{"index": num(0), "config": obj{"index": num(0)}}
			if len(v4) > 0 {
				sub["ipv4"] = obj{"addresses": obj{"address": v4}}
			}
			if len(v6) > 0 {
				sub["ipv6"] = obj{"addresses": obj{"address": v6}}
			}
			n["subinterfaces"] = obj{"subinterface": []any{sub}}
		}
		list = append(list, n)
	}
	return obj{"interface": list}
}

// cfgErr is a -32084 error at path.
func cfgErr(path, format string, args ...any) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, format, args...).WithPath(path)
}

// parseIfConfigs reads the openconfig-interfaces member of a
// configuration tree, refusing what the driver cannot apply.
func parseIfConfigs(v any) ([]ifConfig, error) {
	base := "/" + memInterfaces
	m, ok := v.(map[string]any)
	if !ok {
		return nil, cfgErr(base, "%s must be an object with an interface list", memInterfaces)
	}
	for k := range m {
		if k != "interface" {
			return nil, cfgErr(base+"/"+k, "the linux driver configures only interface entries under %s, not %q", memInterfaces, k)
		}
	}
	l, ok := m["interface"].([]any)
	if !ok && m["interface"] != nil {
		return nil, cfgErr(base+"/interface", "interface must be a list")
	}
	var out []ifConfig
	seen := map[string]bool{}
	for _, e := range l {
		em, ok := e.(map[string]any)
		name, _ := em["name"].(string)
		if !ok || name == "" {
			return nil, cfgErr(base+"/interface", "an interface entry without a name")
		}
		if seen[name] {
			return nil, cfgErr(base+"/interface", "interface %q is listed twice", name)
		}
		seen[name] = true
		p := fmt.Sprintf("%s/interface[name='%s']", base, name)
		c := ifConfig{Name: name}
		for k, v := range em {
			switch k {
			case "name":
			case "config":
				if err := parseIfLeaves(&c, v, p+"/config"); err != nil {
					return nil, err
				}
			case "subinterfaces":
				addrs, err := parseSubifs(v, p+"/subinterfaces")
				if err != nil {
					return nil, err
				}
				c.Addrs = addrs
			default:
				return nil, cfgErr(p+"/"+k, "the linux driver does not configure %q of an interface (it configures config/mtu, config/enabled and the addresses of subinterface 0)", k)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// parseIfLeaves reads an interface's config container.
func parseIfLeaves(c *ifConfig, v any, p string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return cfgErr(p, "config must be an object")
	}
	for k, v := range m {
		switch k {
		case "name":
			if s, _ := v.(string); s != c.Name {
				return cfgErr(p+"/name", "config/name %v differs from the interface's name %q", v, c.Name)
			}
		case "type":
			// The kernel's link type: informational, never changed.
		case "mtu":
			f, ok := v.(float64)
			if !ok || f != float64(int(f)) || f < 68 || f > math.MaxInt32 {
				return cfgErr(p+"/mtu", "mtu %v: want a whole number from 68 (the kernel checks the device's own maximum)", v)
			}
			c.MTU = int(f)
		case "enabled":
			b, ok := v.(bool)
			if !ok {
				return cfgErr(p+"/enabled", "enabled %v: want true or false", v)
			}
			c.Enabled = &b
		case "description":
			return cfgErr(p+"/description", "an interface description lives in FRR on linux: configure the FRR lines \"interface IF\" and \" description TEXT\" (network.cli.configure)")
		default:
			return cfgErr(p+"/"+k, "the linux driver does not configure %q of an interface (it configures mtu and enabled)", k)
		}
	}
	return nil
}

// parseSubifs reads the addresses of subinterface 0.
func parseSubifs(v any, p string) ([]netip.Prefix, error) {
	m, ok := v.(map[string]any)
	l, _ := m["subinterface"].([]any)
	if !ok || len(m) != 1 || (m["subinterface"] != nil && l == nil) {
		return nil, cfgErr(p, "subinterfaces must hold only a subinterface list")
	}
	var out []netip.Prefix
	for _, e := range l {
		sm, ok := e.(map[string]any)
		if idx, _ := sm["index"].(float64); !ok || idx != 0 || sm["index"] == nil {
			return nil, cfgErr(p+"/subinterface", "only subinterface 0 (the interface itself) is configurable on linux")
		}
		sp := p + "/subinterface[index='0']"
		for k, v := range sm {
			switch k {
			case "index":
			case "config":
				cm, _ := v.(map[string]any)
				for ck, cv := range cm {
					if ck != "index" || cv != float64(0) {
						return nil, cfgErr(sp+"/config/"+ck, "the linux driver does not configure %q of a subinterface", ck)
					}
				}
			case "ipv4", "openconfig-if-ip:ipv4", "ipv6", "openconfig-if-ip:ipv6":
				v6 := strings.HasSuffix(k, "ipv6")
				addrs, err := parseAddrs(v, sp+"/"+k, v6)
				if err != nil {
					return nil, err
				}
				out = append(out, addrs...)
			default:
				return nil, cfgErr(sp+"/"+k, "the linux driver does not configure %q of a subinterface (it configures ipv4 and ipv6 addresses)", k)
			}
		}
	}
	return out, nil
}

// parseAddrs reads an ipv4 or ipv6 container of addresses.
func parseAddrs(v any, p string, v6 bool) ([]netip.Prefix, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, cfgErr(p, "must be an object")
	}
	var out []netip.Prefix
	for k, v := range m {
		if k != "addresses" {
			return nil, cfgErr(p+"/"+k, "the linux driver configures only addresses here, not %q", k)
		}
		am, _ := v.(map[string]any)
		l, _ := am["address"].([]any)
		for _, e := range l {
			em, _ := e.(map[string]any)
			ipS, _ := em["ip"].(string)
			ap := fmt.Sprintf("%s/addresses/address[ip='%s']", p, ipS)
			ip, err := netip.ParseAddr(ipS)
			if err != nil || ip.Is6() != v6 || ip.Zone() != "" {
				return nil, cfgErr(ap, "address %q is not an IPv%s address", ipS, map[bool]string{false: "4", true: "6"}[v6])
			}
			cm, _ := em["config"].(map[string]any)
			if s, ok := cm["ip"]; ok && s != ipS {
				return nil, cfgErr(ap+"/config/ip", "config/ip %v differs from the entry's ip %q", s, ipS)
			}
			plen, ok := cm["prefix-length"].(float64)
			if !ok || plen != float64(int(plen)) || plen < 0 || int(plen) > ip.BitLen() {
				return nil, cfgErr(ap+"/config/prefix-length", "prefix-length %v: want 0..%d", cm["prefix-length"], ip.BitLen())
			}
			if ip.IsLinkLocalUnicast() || ip.IsLoopback() || ip.IsMulticast() || ip.IsUnspecified() {
				return nil, cfgErr(ap, "address %s is link-local, loopback, multicast or unspecified: the kernel manages those", ip)
			}
			out = append(out, netip.PrefixFrom(ip, int(plen)))
		}
	}
	return out, nil
}

// applyInterfaces makes the kernel run the interfaces' configuration:
// MTU, addresses (exactly those listed), then administrative state. An
// interface not listed is left alone; one listed that does not exist is
// refused. On a failure every step already made is undone.
func (d *Driver) applyInterfaces(ifs []ifConfig) error {
	if len(ifs) == 0 {
		return nil
	}
	nl, err := d.readNetlink()
	if err != nil {
		return err
	}
	byName := map[string]*nlIface{}
	for _, i := range nl.Ifaces {
		byName[i.Name] = i
	}
	for _, c := range ifs {
		if byName[c.Name] == nil {
			return cfgErr(fmt.Sprintf("/%s/interface[name='%s']", memInterfaces, c.Name),
				"interface %q does not exist in %s (the linux driver configures existing interfaces; it does not create them)", c.Name, d.where())
		}
	}
	h, err := d.netlinkHandle()
	if err != nil {
		return err
	}
	defer h.Close()
	var undo []func() error
	fail := func(err error) error {
		for k := len(undo) - 1; k >= 0; k-- {
			if uerr := undo[k](); uerr != nil {
				return netproto.Errorf(netproto.CodeRollbackFailed, "%v; undoing the interface changes made before it also failed: %v", err, uerr)
			}
		}
		return err
	}
	for _, c := range ifs {
		live := byName[c.Name]
		link, err := h.LinkByIndex(live.Index)
		if err != nil {
			return fail(fmt.Errorf("linux: interface %s: %w", c.Name, err))
		}
		p := fmt.Sprintf("/%s/interface[name='%s']", memInterfaces, c.Name)
		if c.MTU > 0 && c.MTU != live.MTU {
			if err := h.LinkSetMTU(link, c.MTU); err != nil {
				return fail(cfgErr(p+"/config/mtu", "the kernel refused MTU %d on %s: %v", c.MTU, c.Name, err))
			}
			old := live.MTU
			undo = append(undo, func() error { return h.LinkSetMTU(link, old) })
		}
		for _, a := range live.Addrs {
			if slices.Contains(c.Addrs, a) {
				continue
			}
			na := nlAddr(a)
			if err := h.AddrDel(link, na); err != nil && !errors.Is(err, unix.EADDRNOTAVAIL) {
				return fail(cfgErr(p, "the kernel refused to remove %s from %s: %v", a, c.Name, err))
			}
			undo = append(undo, func() error { return h.AddrAdd(link, nlAddr(a)) })
		}
		for _, a := range c.Addrs {
			if slices.Contains(live.Addrs, a) {
				continue
			}
			if err := h.AddrAdd(link, nlAddr(a)); err != nil {
				return fail(cfgErr(p, "the kernel refused address %s on %s: %v", a, c.Name, err))
			}
			undo = append(undo, func() error { return h.AddrDel(link, nlAddr(a)) })
		}
		if c.Enabled != nil && *c.Enabled != live.AdminUp {
			set, back := h.LinkSetUp, h.LinkSetDown
			if !*c.Enabled {
				set, back = h.LinkSetDown, h.LinkSetUp
			}
			if err := set(link); err != nil {
				return fail(cfgErr(p+"/config/enabled", "the kernel refused to set %s %s: %v", c.Name, map[bool]string{true: "up", false: "down"}[*c.Enabled], err))
			}
			undo = append(undo, func() error { return back(link) })
		}
	}
	return nil
}

func nlAddr(p netip.Prefix) *netlink.Addr {
	return &netlink.Addr{IPNet: &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}}
}

// sameIfConfigs tells whether the kernel already runs the configuration
// want (interfaces missing from want are not compared).
func sameIfConfigs(want, have []ifConfig) bool {
	by := map[string]ifConfig{}
	for _, c := range have {
		by[c.Name] = c
	}
	for _, w := range want {
		h, ok := by[w.Name]
		if !ok {
			return false
		}
		if w.MTU > 0 && w.MTU != h.MTU {
			return false
		}
		if w.Enabled != nil && (h.Enabled == nil || *w.Enabled != *h.Enabled) {
			return false
		}
		if len(w.Addrs) != len(h.Addrs) {
			return false
		}
		for _, a := range w.Addrs {
			if !slices.Contains(h.Addrs, a) {
				return false
			}
		}
	}
	return true
}
