package real

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// RealFaults lists the fault names InjectFault builds on the real lab,
// each by the method of the project's notes (real-lab.md, section 3).
var RealFaults = []string{"bgp_acl_block", "bgp_asn_misconfig", "bgp_missing_route_advertisement",
	"dns_port_blocked", "dns_record_error", "dns_service_down", "frr_service_down", "host_crash", "host_incorrect_dns", "host_incorrect_gateway", "host_incorrect_ip", "host_incorrect_netmask",
	"host_ip_conflict", "host_missing_ip", "host_static_blackhole", "http_acl_block", "icmp_acl_block", "link_bandwidth_throttling", "link_down", "link_flap",
	"link_high_latency", "link_high_packet_corruption", "mac_address_conflict", "mtu_mismatch", "ospf_acl_block", "ospf_area_misconfiguration"}

// nftTable is the nftables table of a fault on interface ifname
// ("netmcp_<fault>_<ifname>", or "netmcp_<fault>" for every interface),
// one per fault, interface and namespace, so that clearing one fault
// removes only its rules.
func nftTable(name, ifname string) string {
	if ifname == "" {
		return "netmcp_" + name
	}
	return "netmcp_" + name + "_" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, ifname)
}

// InjectFault applies a fault of the catalog (topology.ParseFault) to the
// running lab: nftables rules for ACL faults, ip link for link and MTU
// faults, stopping the routing daemons for frr_service_down. A name the
// real lab does not build yet is refused, naming those it builds.
func (l *Lab) InjectFault(ctx context.Context, f topology.Fault) error {
	if err := f.CheckSpec(); err != nil {
		return err
	}
	switch f.Name {
	case "link_down":
		d, i, err := l.target(f)
		if err != nil {
			return err
		}
		_, err = run(ctx, d.NS, "ip", "link", "set", i.Linux, "down")
		return err
	case "mtu_mismatch":
		d, i, err := l.target(f)
		if err != nil {
			return err
		}
		mtu := f.Param("mtu")
		if n, err := strconv.Atoi(mtu); err != nil || n < 68 || n > 65535 {
			return fmt.Errorf("mtu_mismatch: mtu %q: want 68..65535", mtu)
		}
		if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "mtu", mtu); err != nil {
			return err
		}
		return l.resetOSPF(ctx, d, false)
	case "bgp_acl_block", "icmp_acl_block", "ospf_acl_block", "http_acl_block":
		d, i, err := l.target(f)
		if err != nil {
			return err
		}
		return l.nft(ctx, d, nftACL(f.Name, i.Linux, f.Param("direction"), aclRules(f)))
	case "frr_service_down":
		d, ok := l.plan.Device(f.Target)
		if !ok || !d.Router() {
			return fmt.Errorf("frr_service_down: %s is not a router of the lab", f.Target)
		}
		var errs []error
		for _, dm := range frrDaemons {
			l.mu.Lock()
			p := l.byName[d.Dev.Name+"/"+dm]
			l.mu.Unlock()
			if p != nil {
				errs = append(errs, p.stop(3*time.Second))
			}
		}
		return errors.Join(errs...)
	}
	if ok, err := l.applyMore(ctx, f, true); ok {
		return err
	}
	return fmt.Errorf("fault %s is not built on the real lab yet (it builds %s)", f.Name, strings.Join(RealFaults, ", "))
}

// ClearFault undoes InjectFault.
func (l *Lab) ClearFault(ctx context.Context, f topology.Fault) error {
	if err := f.CheckSpec(); err != nil {
		return err
	}
	switch f.Name {
	case "link_down":
		d, i, err := l.target(f)
		if err != nil {
			return err
		}
		if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "up"); err != nil {
			return err
		}
		return l.fastAdjacencies(ctx, 15*time.Second)
	case "mtu_mismatch":
		d, i, err := l.target(f)
		if err != nil {
			return err
		}
		mtu := i.MTU
		if mtu == 0 {
			mtu = 1500
		}
		if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "mtu", strconv.Itoa(mtu)); err != nil {
			return err
		}
		return l.resetOSPF(ctx, d, true)
	case "bgp_acl_block", "icmp_acl_block", "ospf_acl_block", "http_acl_block":
		d, i, err := l.target(f)
		if err != nil {
			return err
		}
		_, err = run(ctx, d.NS, "nft", "delete", "table", "inet", nftTable(f.Name, i.Linux))
		return err
	case "frr_service_down":
		d, ok := l.plan.Device(f.Target)
		if !ok || !d.Router() {
			return fmt.Errorf("frr_service_down: %s is not a router of the lab", f.Target)
		}
		return l.restartRouting(ctx, d)
	}
	if ok, err := l.applyMore(ctx, f, false); ok {
		return err
	}
	return fmt.Errorf("fault %s is not built on the real lab yet (it builds %s)", f.Name, strings.Join(RealFaults, ", "))
}

// target resolves an interface or link-end target.
func (l *Lab) target(f topology.Fault) (*planDevice, *planIface, error) {
	dn, in, ok := topology.SplitEnd(f.Target)
	if !ok {
		return nil, nil, fmt.Errorf("%s: target %q is not device:interface", f.Name, f.Target)
	}
	d, ok := l.plan.Device(dn)
	if !ok {
		return nil, nil, fmt.Errorf("%s: no device %s in the lab", f.Name, dn)
	}
	i, ok := d.Iface(in)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %s has no interface %s", f.Name, dn, in)
	}
	return d, i, nil
}

// nftACL is the nftables ruleset of an ACL fault on interface ifname
// (every interface when ifname is ""): "in" filters what the interface
// receives (input and forward hooks), "out" what it sends (output and
// forward); rules are aclRules'.
func nftACL(name, ifname, direction string, rules []string) string {
	match := "iifname"
	hooks := []string{"input", "forward"}
	if direction == "out" {
		match = "oifname"
		hooks = []string{"output", "forward"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "table inet %s {\n", nftTable(name, ifname))
	for _, h := range hooks {
		fmt.Fprintf(&b, "  chain %s {\n    type filter hook %s priority 0; policy accept;\n", h, h)
		for _, r := range rules {
			if ifname == "" {
				fmt.Fprintf(&b, "    %s\n", r)
			} else {
				fmt.Fprintf(&b, "    %s %q %s\n", match, ifname, r)
			}
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// nft loads a ruleset into the device's namespace.
func (l *Lab) nft(ctx context.Context, d *planDevice, ruleset string) error {
	f := filepath.Join(l.dir, "nft-"+d.NS+".nft")
	if err := os.WriteFile(f, []byte(ruleset), 0o644); err != nil {
		return err
	}
	_, err := run(ctx, d.NS, "nft", "-f", f)
	return err
}

// resetOSPF restarts router d's OSPF process (an MTU change alone leaves
// an existing adjacency up); with fast, the adjacencies form again with
// the bring-up timers (fastAdjacencies).
func (l *Lab) resetOSPF(ctx context.Context, d *planDevice, fast bool) error {
	if !d.Router() || d.Dev.OSPF == nil {
		return nil
	}
	if _, err := l.Vtysh(ctx, d.Dev.Name, "clear ip ospf process"); err != nil {
		return err
	}
	if fast {
		return l.fastAdjacencies(ctx, 15*time.Second)
	}
	return nil
}

// restartRouting starts router d's stopped routing daemons again and
// reloads its configuration.
func (l *Lab) restartRouting(ctx context.Context, d *planDevice) error {
	for _, dm := range frrDaemons {
		key := d.Dev.Name + "/" + dm
		l.mu.Lock()
		p := l.byName[key]
		l.mu.Unlock()
		if p != nil && p.alive() {
			continue
		}
		// A daemon stopped by a signal may leave its socket behind.
		_ = os.Remove(filepath.Join(FRRRunDir, d.NS, dm+".vty"))
		np, err := l.startFRRDaemon(d, dm)
		if err != nil {
			return err
		}
		if err := waitFile(ctx, np, filepath.Join(FRRRunDir, d.NS, dm+".vty"), 15*time.Second); err != nil {
			return err
		}
	}
	if _, err := run(ctx, d.NS, "vtysh", "-N", d.NS, "--config_dir", filepath.Join(l.dir, "frr"), "-b"); err != nil {
		return err
	}
	return l.fastAdjacencies(ctx, 15*time.Second)
}

// ConfigFault tells whether the real lab makes fault name as a change of
// a device's configuration (vtysh, or a host's addresses and routes)
// rather than a runtime condition (nftables, link state, daemons).
func ConfigFault(name string) bool {
	switch name {
	case "ospf_area_misconfiguration", "bgp_asn_misconfig", "bgp_missing_route_advertisement", "mac_address_conflict", "dns_record_error":
		return true
	case "host_crash":
		return false
	}
	return strings.HasPrefix(name, "host_")
}
