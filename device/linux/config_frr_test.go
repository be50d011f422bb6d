//go:build linux

package linux

import (
	"slices"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

func TestFRRLines(t *testing.T) {
	text := `Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults traditional
hostname r1
service integrated-vtysh-config
!
ip route 10.0.0.0/24   Null0
!
interface e1
exit
!
interface e0
 description  to b
 ip ospf cost 7
exit
!
router bgp 65001
 neighbor 198.51.100.2 remote-as 65002
 !
 address-family ipv4 unicast
  network 10.0.0.0/24
 exit-address-family
exit
!
router ospf
exit
!
end
`
	want := []string{"hostname r1", "ip route 10.0.0.0/24 Null0", "interface e0", " description to b", " ip ospf cost 7",
		"router bgp 65001", " neighbor 198.51.100.2 remote-as 65002", " address-family ipv4 unicast", "  network 10.0.0.0/24", "router ospf"}
	if got := frrLines(text); !slices.Equal(got, want) {
		t.Fatalf("frrLines:\n got %q\nwant %q", got, want)
	}
}

func TestFRROps(t *testing.T) {
	ops := func(o []frrOp) []string {
		var out []string
		for _, op := range o {
			out = append(out, strings.Join(op.in(op.line), " / "))
		}
		return out
	}
	bgp := []string{"router bgp 65001", " neighbor 198.51.100.2 remote-as 65002"}
	for _, tc := range []struct {
		name      string
		cur, want []string
		ops       []string
	}{
		{"same, other order", []string{"ip route 10.0.0.0/24 Null0", "ip route 10.1.0.0/24 Null0"},
			[]string{"ip route 10.1.0.0/24 Null0", "ip route 10.0.0.0/24 Null0"}, nil},
		{"add a top-level line", nil, []string{"ip route 10.0.0.0/24 Null0"}, []string{"ip route 10.0.0.0/24 Null0"}},
		{"remove a top-level line", []string{"ip route 10.0.0.0/24 Null0"}, nil, []string{"no ip route 10.0.0.0/24 Null0"}},
		{"negation removed", []string{"no ip forwarding"}, nil, []string{"ip forwarding"}},
		{"add a block", nil, bgp, []string{"router bgp 65001", "router bgp 65001 / neighbor 198.51.100.2 remote-as 65002"}},
		{"remove a router block whole", bgp, nil, []string{"no router bgp 65001"}},
		{"remove an empty router block", []string{"router ospf"}, nil, []string{"no router ospf"}},
		{"an empty interface block is nothing", []string{"interface e0", " ip ospf cost 7"}, []string{"interface e0"},
			[]string{"interface e0 / no ip ospf cost 7"}},
		{"empty an interface block", []string{"interface e0", " ip ospf cost 7", " description x"}, nil,
			[]string{"interface e0 / no ip ospf cost 7", "interface e0 / no description x"}},
		{"change a leaf in a block", []string{"interface e0", " ip ospf cost 7"}, []string{"interface e0", " ip ospf cost 9"},
			[]string{"interface e0 / no ip ospf cost 7", "interface e0 / ip ospf cost 9"}},
		{"nested", []string{"router bgp 65001", " address-family ipv4 unicast", "  network 10.0.0.0/24"},
			[]string{"router bgp 65001", " address-family ipv4 unicast", "  network 10.1.0.0/24"},
			[]string{"router bgp 65001 / address-family ipv4 unicast / no network 10.0.0.0/24",
				"router bgp 65001 / address-family ipv4 unicast / network 10.1.0.0/24"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ops(frrOps(tc.cur, tc.want)); !slices.Equal(got, tc.ops) {
				t.Fatalf("frrOps:\n got %q\nwant %q", got, tc.ops)
			}
		})
	}
}

func TestScript(t *testing.T) {
	got := script([]frrOp{{line: "ip route 10.0.0.0/24 Null0"}, {ctx: []string{"interface e0"}, line: "no ip ospf cost 7"},
		{ctx: []string{"interface e0"}, line: "ip ospf cost 9"}, {ctx: []string{"router bgp 1"}, line: "bgp router-id 1.1.1.1"}, {line: "hostname x"}})
	want := []string{"ip route 10.0.0.0/24 Null0", "interface e0", "no ip ospf cost 7", "ip ospf cost 9",
		"end", "configure terminal", "router bgp 1", "bgp router-id 1.1.1.1", "end", "configure terminal", "hostname x"}
	if !slices.Equal(got, want) {
		t.Fatalf("script:\n got %q\nwant %q", got, want)
	}
}

func TestCheckFRRLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"ip route 10.0.0.0/24 Null0", true},
		{" neighbor 198.51.100.2 description to b", true},
		{"ip route 10.0.0.0/24 Null0\nend", false},
		{"ip route 10.0.0.0/24 Null0\x1a", false},
		{"", false},
		{"write memory", false},
		{"do show running-config", false},
		{"end", false},
		{"configure terminal", false},
		{strings.Repeat("x", maxFRRLine+1), false},
	} {
		err := checkFRRLine(tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("checkFRRLine(%q) = %v, want ok %v", tc.line, err, tc.ok)
		}
		if ne, isNE := err.(*netproto.Error); err != nil && (!isNE || ne.Code != netproto.CodeConfigIncompatible) {
			t.Errorf("checkFRRLine(%q) = %v, want -32084", tc.line, err)
		}
	}
}

func TestParseConfigRefuses(t *testing.T) {
	iface := func(cfg map[string]any) map[string]any {
		return map[string]any{memInterfaces: map[string]any{"interface": []any{map[string]any{"name": "e0", "config": cfg}}}}
	}
	for _, tc := range []struct {
		name string
		tree map[string]any
		path string // of the error; "" = accepted
	}{
		{"mtu", iface(map[string]any{"mtu": float64(1400), "enabled": true}), ""},
		{"mtu too small", iface(map[string]any{"mtu": float64(10)}), "/openconfig-interfaces:interfaces/interface[name='e0']/config/mtu"},
		{"description", iface(map[string]any{"description": "x"}), "/openconfig-interfaces:interfaces/interface[name='e0']/config/description"},
		{"unknown module", map[string]any{"openconfig-system:system": map[string]any{}}, "/openconfig-system:system"},
		{"frr line with newline", map[string]any{memFRRConfig: map[string]any{"line": []any{"hostname a\nend"}}}, "/netmcp-frr:configuration/line"},
		{"address", map[string]any{memInterfaces: map[string]any{"interface": []any{map[string]any{"name": "e0",
			"subinterfaces": map[string]any{"subinterface": []any{map[string]any{"index": float64(0),
				"ipv4": map[string]any{"addresses": map[string]any{"address": []any{map[string]any{"ip": "192.0.2.1",
					"config": map[string]any{"ip": "192.0.2.1", "prefix-length": float64(24)}}}}}}}}}}}}, ""},
		{"v6 address under ipv4", map[string]any{memInterfaces: map[string]any{"interface": []any{map[string]any{"name": "e0",
			"subinterfaces": map[string]any{"subinterface": []any{map[string]any{"index": float64(0),
				"ipv4": map[string]any{"addresses": map[string]any{"address": []any{map[string]any{"ip": "2001:db8::1",
					"config": map[string]any{"prefix-length": float64(64)}}}}}}}}}}}},
			"/openconfig-interfaces:interfaces/interface[name='e0']/subinterfaces/subinterface[index='0']/ipv4/addresses/address[ip='2001:db8::1']"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(tc.tree)
			if tc.path == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			ne, ok := err.(*netproto.Error)
			if !ok || ne.Code != netproto.CodeConfigIncompatible || ne.Path != tc.path {
				t.Fatalf("error %v (%T), want -32084 at %s", err, err, tc.path)
			}
		})
	}
}

func TestSecretLine(t *testing.T) {
	for l, want := range map[string]bool{
		" neighbor 198.51.100.2 password s3cr3t":  true,
		" ip ospf message-digest-key 1 md5 abc":   true,
		" ip ospf authentication-key abc":         true,
		"  key-string abc":                        true,
		"enable password x":                       true,
		"ip route 10.0.0.0/8 Null0":               false,
		" neighbor 198.51.100.2 description keys": false,
		" ip ospf cost 10":                        false,
	} {
		if got := secretLine(l); got != want {
			t.Errorf("secretLine(%q) = %v, want %v", l, got, want)
		}
	}
}
