package dialect_test

import (
	"slices"
	"testing"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestRuleMatch checks how a rule's words and counts select lines.
func TestRuleMatch(t *testing.T) {
	var got []string
	rule := func(name string, r dialect.Rule) dialect.Rule {
		r.Run = func(*dialect.Line) (bool, error) { got = append(got, name); return dialect.Done() }
		return r
	}
	p := &dialect.Parser{Name: "test", Negation: "no", Modes: map[string][]dialect.Rule{"top": {
		rule("route", dialect.Rule{Words: "ip|ipv6 route"}),
		rule("peer-as", dialect.Rule{Words: "peer * as", Len: 4}),
		rule("mtu", dialect.Rule{Words: "mtu", Len: 2, NegAny: true}),
		rule("short", dialect.Rule{Words: "short", Max: 2}),
		rule("any", dialect.Rule{Words: "", Min: 3}),
	}}}
	for _, tc := range []struct {
		line, want string
	}{
		{"ip route 10.0.0.0/8 Null0", "route"},
		{"ipv6 route ::/0 Null0", "route"},
		{"ipx route", ""},
		{"peer 10.0.0.1 as 65000", "peer-as"},
		{"peer 10.0.0.1 as", "any"},
		{"mtu 1500", "mtu"},
		{"mtu", ""},
		{"no mtu", "mtu"},
		{"short", "short"},
		{"short a b", "any"},
		{"x y z", "any"},
		{"x y", ""},
		{"no", ""},
	} {
		got = nil
		err := dialect.NewSession(&dialect.Config{}, p).Apply([]string{tc.line})
		want := []string{tc.want}
		if tc.want == "" {
			want = nil
		}
		if !slices.Equal(got, want) || (err == nil) != (tc.want != "") {
			t.Errorf("%q: rules %q, err %v; want %q", tc.line, got, err, tc.want)
		}
	}
}

// TestInterface checks that Interface finds names case-insensitively and
// types the interfaces it creates by their names.
func TestInterface(t *testing.T) {
	var d topology.Device
	for _, tc := range []struct{ name, typ string }{{"GigabitEthernet0/0/0", ""}, {"LoopBack0", "softwareLoopback"}, {"Vlanif100", "l3ipvlan"}} {
		it := dialect.Interface(&d, tc.name, true)
		if it.Type != tc.typ {
			t.Errorf("%s: type %q, want %q", tc.name, it.Type, tc.typ)
		}
	}
	if it := dialect.Interface(&d, "vlanif100", false); it == nil || it.RoutedVLAN != 100 {
		t.Errorf("vlanif100: %+v", it)
	}
	if dialect.Interface(&d, "Nope0", false) != nil || len(d.Interfaces) != 3 {
		t.Errorf("a lookup created an interface: %v", d.Interfaces)
	}
}
