//go:build linux

package real

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// The ACL faults on the real lab: an nftables table per fault and
// interface in the device's namespace, whose rules drop what the ACL
// denies and count it, so `nft list ruleset` shows the fault at work.

// registerACLFaults binds the ACL faults.
func registerACLFaults(b *fault.Backend[*Lab]) {
	b.Register("bgp_acl_block", aclFault(func(topology.Fault) []string {
		return []string{"tcp dport 179 counter drop", "tcp sport 179 counter drop"}
	}))
	b.Register("icmp_acl_block", aclFault(func(topology.Fault) []string {
		return []string{"icmp type echo-request counter drop", "icmpv6 type echo-request counter drop"}
	}))
	b.Register("ospf_acl_block", aclFault(func(topology.Fault) []string {
		return []string{"meta l4proto 89 counter drop"}
	}))
	b.Register("http_acl_block", aclFault(func(f topology.Fault) []string {
		return []string{"tcp dport " + f.Param("port") + " counter drop"}
	}))
	b.Unsupported("arp_acl_block", "not written yet (ARP is outside the inet tables the other ACL faults use)")
}

// aclFault binds an ACL fault on an interface target whose rules are
// rules' (nftACL adds the interface match).
func aclFault(rules func(topology.Fault) []string) fault.Impl[*Lab] {
	return fault.Impl[*Lab]{
		Apply: func(l *Lab, ctx context.Context, f topology.Fault) error {
			d, i, err := l.target(f)
			if err != nil {
				return err
			}
			return l.nft(ctx, d, nftACL(f.Name, i.Linux, f.Param("direction"), rules(f)))
		},
		Clear: func(l *Lab, ctx context.Context, f topology.Fault) error {
			d, i, err := l.target(f)
			if err != nil {
				return err
			}
			_, err = run(ctx, d.NS, "nft", "delete", "table", "inet", nftTable(f.Name, i.Linux))
			return err
		},
	}
}

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

// nftACL is the nftables ruleset of an ACL fault on interface ifname
// (every interface when ifname is ""): "in" filters what the interface
// receives (input and forward hooks), "out" what it sends (output and
// forward); rules are the fault's own (aclFault's, dnsRules).
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
