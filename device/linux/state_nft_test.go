//go:build linux

package linux

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/yang"
)

// aclEntries flattens an openconfig-acl tree into "IFACE DIR: ENTRY"
// lines, ENTRY as "SEQ ACTION PROTO SRC DST [sport N] [dport N]", so
// tests compare what a reader of the tree sees.
func aclEntries(t *testing.T, tree any) []string {
	t.Helper()
	b, _ := json.Marshal(tree)
	var v struct {
		Sets struct {
			Set []struct {
				Name    string `json:"name"`
				Entries struct {
					Entry []struct {
						Seq  int `json:"sequence-id"`
						IPv4 *struct {
							Config map[string]any `json:"config"`
						} `json:"ipv4"`
						IPv6 *struct {
							Config map[string]any `json:"config"`
						} `json:"ipv6"`
						L2 *struct {
							Config map[string]any `json:"config"`
						} `json:"l2"`
						Transport *struct {
							Config map[string]any `json:"config"`
						} `json:"transport"`
						Actions struct {
							Config map[string]any `json:"config"`
						} `json:"actions"`
					} `json:"acl-entry"`
				} `json:"acl-entries"`
			} `json:"acl-set"`
		} `json:"acl-sets"`
		Ifaces struct {
			Iface []map[string]any `json:"interface"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	entries := map[string][]string{}
	for _, s := range v.Sets.Set {
		for _, e := range s.Entries.Entry {
			w := fmt.Sprintf("%d %v", e.Seq, e.Actions.Config["forwarding-action"])
			switch {
			case e.L2 != nil:
				w += fmt.Sprintf(" l2 %v", e.L2.Config["ethertype"])
			case e.IPv4 != nil:
				w += fmt.Sprintf(" ipv4 %v %v %v", e.IPv4.Config["protocol"], e.IPv4.Config["source-address"], e.IPv4.Config["destination-address"])
			case e.IPv6 != nil:
				w += fmt.Sprintf(" ipv6 %v %v %v", e.IPv6.Config["protocol"], e.IPv6.Config["source-address"], e.IPv6.Config["destination-address"])
			}
			if e.Transport != nil {
				if p, ok := e.Transport.Config["source-port"]; ok {
					w += fmt.Sprintf(" sport %v", p)
				}
				if p, ok := e.Transport.Config["destination-port"]; ok {
					w += fmt.Sprintf(" dport %v", p)
				}
			}
			entries[s.Name] = append(entries[s.Name], w)
		}
	}
	var out []string
	for _, i := range v.Ifaces.Iface {
		for _, dir := range []string{"ingress", "egress"} {
			sets, _ := i[dir+"-acl-sets"].(map[string]any)
			list, _ := sets[dir+"-acl-set"].([]any)
			for _, s := range list {
				name := s.(map[string]any)["set-name"].(string)
				for _, e := range entries[name] {
					out = append(out, fmt.Sprintf("%v %s: %s", i["id"], dir, e))
				}
			}
		}
	}
	return out
}

// TestACLTreeFromNFT reads a ruleset captured from nft 1.0.6 (`nft -j
// list ruleset` of the real lab's kinds of rules: the ACL faults in the
// input and forward hooks on one interface, an output rule, rules on
// every interface, a loss rule with numgen, an arp table) as
// openconfig-acl.
func TestACLTreeFromNFT(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "nft-ruleset.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rs nftRuleset
	if err := json.Unmarshal(raw, &rs); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"eth-r2": "GigabitEthernet0/0/0/0", "eth-r3": "GigabitEthernet0/0/0/1"}
	got := strings.Join(aclEntries(t, aclTree(&rs, names, []string{"eth-r2", "eth-r3"})), "\n")
	for _, tc := range []struct {
		name string
		want string
		not  bool
	}{
		// The same rules in the input and forward hooks are one entry each.
		{name: "bgp dport", want: "GigabitEthernet0/0/0/0 ingress: 10 DROP ipv4 IP_TCP 0.0.0.0/0 0.0.0.0/0 dport 179"},
		{name: "bgp sport", want: "GigabitEthernet0/0/0/0 ingress: 20 DROP ipv4 IP_TCP 0.0.0.0/0 0.0.0.0/0 sport 179"},
		// The chain's policy is the last entry (an ACL's default is deny).
		{name: "policy accept last", want: "GigabitEthernet0/0/0/0 ingress: 30 ACCEPT ipv4 <nil> 0.0.0.0/0 0.0.0.0/0"},
		{name: "no duplicate from forward", want: "GigabitEthernet0/0/0/0 ingress: 40 ", not: true},
		{name: "output icmp", want: "GigabitEthernet0/0/0/1 egress: 10 DROP ipv4 IP_ICMP 0.0.0.0/0 0.0.0.0/0"},
		{name: "output icmpv6", want: "GigabitEthernet0/0/0/1 egress: 20 DROP ipv6 58 ::/0 ::/0"},
		{name: "every interface", want: "GigabitEthernet0/0/0/0 ingress: 10 DROP ipv4 IP_UDP 0.0.0.0/0 0.0.0.0/0 dport 53"},
		{name: "every interface, the other", want: "GigabitEthernet0/0/0/1 ingress: 10 DROP ipv4 IP_UDP 0.0.0.0/0 0.0.0.0/0 dport 53"},
		{name: "addresses and protocol number", want: "GigabitEthernet0/0/0/1 ingress: 20 ACCEPT ipv4 89 10.0.0.0/24 10.3.0.10/32"},
		{name: "arp", want: "GigabitEthernet0/0/0/0 ingress: 10 DROP l2 openconfig-packet-match-types:ETHERTYPE_ARP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(got, tc.want) == tc.not {
				t.Errorf("contains %q = %v, want %v; the tree says:\n%s", tc.want, !tc.not, !tc.not, got)
			}
		})
	}
	// bgp 2, icmp 2, the every-interface table 2 on each interface, arp
	// 1 on each, and each of these 6 sets' policy: the netdev chain's
	// numgen rule is left out.
	if n := strings.Count(got, "\n") + 1; n != 16 {
		t.Errorf("%d entries, want 16:\n%s", n, got)
	}
	if tree := aclTree(&nftRuleset{}, names, nil); len(tree) != 0 {
		t.Errorf("an empty ruleset gives %v, want an empty acl", tree)
	}
}

// TestACLFromNamespace loads an ACL fault's rules (as the real lab
// builds bgp_acl_block) into a namespace and reads them through the
// driver's Get at the simulator's path; removing the table empties it.
func TestACLFromNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to create network namespaces (run the tests as root, as CI does)")
	}
	if _, err := exec.LookPath("nft"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but nft is missing: %v", err)
		}
		t.Skip("needs nft (apt-get install nftables)")
	}
	ns := fmt.Sprintf("lxn%d", os.Getpid())
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	run("ip", "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	run("ip", "-n", ns, "link", "add", "eth-r2", "type", "veth", "peer", "name", "eth-x")
	drv, err := Open(ns)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	get := func() any {
		t.Helper()
		v, err := drv.Get(ctx, device.Operational, "/openconfig-acl:acl")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := aclEntries(t, get()); len(got) != 0 {
		t.Fatalf("no ruleset: %v", got)
	}
	rules := filepath.Join(t.TempDir(), "r.nft")
	if err := os.WriteFile(rules, []byte(`table inet netmcp_bgp_acl_block_eth_r2 {
  chain input { type filter hook input priority 0; policy accept; iifname "eth-r2" tcp dport 179 counter drop; }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	run("ip", "netns", "exec", ns, "nft", "-f", rules)
	got := aclEntries(t, get())
	want := []string{"eth-r2 ingress: 10 DROP ipv4 IP_TCP 0.0.0.0/0 0.0.0.0/0 dport 179", "eth-r2 ingress: 20 ACCEPT ipv4 <nil> 0.0.0.0/0 0.0.0.0/0"}
	if !slices.Equal(got, want) {
		t.Errorf("with bgp_acl_block's rule: %q, want %q", got, want)
	}
	// The set is served at the simulator's path, keyed by name and type.
	p, err := device.ParsePath("/openconfig-acl:acl/acl-sets/acl-set[name='nft-inet-netmcp_bgp_acl_block_eth_r2-eth-r2-in'][type='ACL_MIXED']/acl-entries/acl-entry[sequence-id='10']/transport/config/destination-port")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := drv.operational(ctx, memACL)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := yang.Get(tree, p); err != nil || v != float64(179) {
		t.Errorf("%s = %v, %v; want 179", p, v, err)
	}
	run("ip", "netns", "exec", ns, "nft", "delete", "table", "inet", "netmcp_bgp_acl_block_eth_r2")
	if got := aclEntries(t, get()); len(got) != 0 {
		t.Errorf("table deleted: %v", got)
	}
}
