package yang

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want Path
		str  string // canonical String(); "" = same as in
	}{
		{in: "", want: nil, str: "/"},
		{in: "/", want: nil},
		{in: "/openconfig-interfaces:interfaces/interface[name='Loopback100']",
			want: Path{{Module: "openconfig-interfaces", Name: "interfaces"}, {Name: "interface", Keys: []Key{{"name", "Loopback100"}}}}},
		{in: `/openconfig-interfaces:interfaces/interface[name="TenGigE0/0/0/0"]/config/mtu`,
			want: Path{{Module: "openconfig-interfaces", Name: "interfaces"}, {Name: "interface", Keys: []Key{{"name", "TenGigE0/0/0/0"}}}, {Name: "config"}, {Name: "mtu"}},
			str:  "/openconfig-interfaces:interfaces/interface[name='TenGigE0/0/0/0']/config/mtu"},
		{in: "/openconfig-vlan:vlans/vlan/config/vlan-id",
			want: Path{{Module: "openconfig-vlan", Name: "vlans"}, {Name: "vlan"}, {Name: "config"}, {Name: "vlan-id"}}},
		{in: "/openconfig-acl:acl/acl-sets/acl-set[name='A'][type='ACL_IPV4']",
			want: Path{{Module: "openconfig-acl", Name: "acl"}, {Name: "acl-sets"}, {Name: "acl-set", Keys: []Key{{"name", "A"}, {"type", "ACL_IPV4"}}}}},
		{in: `/openconfig-interfaces:interfaces/interface[name="it's"]`,
			want: Path{{Module: "openconfig-interfaces", Name: "interfaces"}, {Name: "interface", Keys: []Key{{"name", "it's"}}}}},
		{in: `/m:a/b[k='say "hi"']`, want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{"k", `say "hi"`}}}}},
		{in: `/m:a/b[k='it''s "x"']`, want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{"k", `it's "x"`}}}}},
		{in: "/m:a/b[ k = 'v' ]", want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{"k", "v"}}}}, str: "/m:a/b[k='v']"},
		{in: "/m:a/b[index=0]", want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{"index", "0"}}}}, str: "/m:a/b[index='0']"},
		{in: "/m:a/b[name=Eth1\\]x]", want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{"name", "Eth1]x"}}}}, str: "/m:a/b[name='Eth1]x']"},
		{in: "/m:a/b[.='x']", want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{".", "x"}}}}},
		{in: "m:a/b", want: Path{{Module: "m", Name: "a"}, {Name: "b"}}, str: "/m:a/b"},
		// module changes and redundant prefixes
		{in: "/openconfig-interfaces:interfaces/interface[name='e1']/openconfig-vlan:switched-vlan/config",
			want: Path{{Module: "openconfig-interfaces", Name: "interfaces"}, {Name: "interface", Keys: []Key{{"name", "e1"}}}, {Module: "openconfig-vlan", Name: "switched-vlan"}, {Name: "config"}}},
		{in: "/openconfig-interfaces:interfaces/openconfig-interfaces:interface",
			want: Path{{Module: "openconfig-interfaces", Name: "interfaces"}, {Name: "interface"}}, str: "/openconfig-interfaces:interfaces/interface"},
		// RESTCONF
		{in: "/ietf-interfaces:interfaces/interface=eth0",
			want: Path{{Module: "ietf-interfaces", Name: "interfaces"}, {Name: "interface", Keys: []Key{{"name", "eth0"}}}},
			str:  "/ietf-interfaces:interfaces/interface[name='eth0']"},
		{in: "/openconfig-interfaces:interfaces/interface=TenGigE0%2F0%2F0%2F0/config",
			want: Path{{Module: "openconfig-interfaces", Name: "interfaces"}, {Name: "interface", Keys: []Key{{"name", "TenGigE0/0/0/0"}}}, {Name: "config"}},
			str:  "/openconfig-interfaces:interfaces/interface[name='TenGigE0/0/0/0']/config"},
		{in: "/openconfig-acl:acl/acl-sets/acl-set=A,ACL_IPV4",
			want: Path{{Module: "openconfig-acl", Name: "acl"}, {Name: "acl-sets"}, {Name: "acl-set", Keys: []Key{{"name", "A"}, {"type", "ACL_IPV4"}}}},
			str:  "/openconfig-acl:acl/acl-sets/acl-set[name='A'][type='ACL_IPV4']"},
		{in: "/openconfig-bgp:bgp/neighbors/neighbor=1.1.1.1/state",
			want: Path{{Module: "openconfig-bgp", Name: "bgp"}, {Name: "neighbors"}, {Name: "neighbor", Keys: []Key{{"", "1.1.1.1"}}}, {Name: "state"}}},
		{in: "/m:a/b=x%2Cy,z",
			want: Path{{Module: "m", Name: "a"}, {Name: "b", Keys: []Key{{"", "x,y"}, {"", "z"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParsePath(tt.in)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(p, tt.want) {
				t.Fatalf("ParsePath(%q) = %#v, want %#v", tt.in, p, tt.want)
			}
			want := tt.str
			if want == "" {
				want = tt.in
			}
			if got := p.String(); got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			q, err := ParsePath(p.String())
			if err != nil || !reflect.DeepEqual(p, q) {
				t.Errorf("round trip of %q: %#v, %v", p.String(), q, err)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/interfaces", "first element \"interfaces\" has no module prefix"},
		{"/openconfig-interfaces:interfaces/interface[name='Lo", "unterminated quoted value at offset 43"},
		{"/m:a/b[name", "unterminated predicate at offset 6"},
		{"/m:a/b[name=x", "unterminated predicate at offset 6"},
		{"/m:a/b[1]", "positional predicate not supported"},
		{"/m:a/b[k='x'y]", "expected ] after quoted value"},
		{"/m:a/b[k]", "expected = in predicate"},
		{"/m:a//b", "bad node name starting with '/'"},
		{"/m:a/", "trailing /"},
		{"/m:", "missing node name"},
		{"/m:a/b[k='1'][k='2']", "key \"k\" given twice"},
		{"/m:a/b=%zz", "bad percent-encoding"},
		{"/openconfig-acl:acl/acl-sets/acl-set=A,B,C", "list acl-set has 2 key(s) (name,type), got 3 values"},
		{"/m:a/1b", "bad node name starting with '1'"},
	}
	for _, tt := range tests {
		_, err := ParsePath(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParsePath(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestPathParentLastSchemaString(t *testing.T) {
	p := MustParsePath("/openconfig-vlan:vlans/vlan[vlan-id='100']/config/name")
	if got := p.SchemaString(); got != "/openconfig-vlan:vlans/vlan/config/name" {
		t.Errorf("SchemaString = %q", got)
	}
	if got := p.Parent().String(); got != "/openconfig-vlan:vlans/vlan[vlan-id='100']/config" {
		t.Errorf("Parent = %q", got)
	}
	if got := p.Last(); got.Name != "name" {
		t.Errorf("Last = %+v", got)
	}
	parent := p.Parent()
	_ = append(parent, PathElem{Name: "x"})
	if p.Last().Name != "name" {
		t.Error("appending to Parent() changed the original path")
	}
	if Path(nil).Parent() != nil || Path(nil).Last().Name != "" || Path(nil).String() != "/" {
		t.Error("root Parent/Last/String")
	}
}

// FuzzParsePath checks that ParsePath never panics and that String()
// round-trips.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{
		"/openconfig-interfaces:interfaces/interface[name='Loopback100']",
		"/openconfig-interfaces:interfaces/interface[name='Vlan100']",
		"/openconfig-vlan:vlans/vlan/config/vlan-id",
		"/ietf-interfaces:interfaces/interface=eth0",
		"/ietf-interfaces:interfaces/interface=loopback0",
		"/openconfig-bgp:bgp/neighbors/neighbor=1.1.1.1/state",
		"/openconfig-acl:acl/acl-sets/acl-set[name='BLOCK-ICMP'][type='ACL_IPV4']/acl-entries/acl-entry[sequence-id='10']",
		"/ietf-routing:routing/control-plane-protocols/control-plane-protocol[type='ietf-routing:static'][name='static']/static-routes/ietf-ipv4-unicast-routing:ipv4/route[destination-prefix='0.0.0.0/0']",
		`/m:a/b[k="it's"]`, "/m:a/b[k='x''y']", "/m:a/b=x%2Fy,z", "/m:a/b[.='v']", "/", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		q, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("ParsePath(%q).String() = %q does not parse: %v", s, p.String(), err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip of %q via %q: %#v != %#v", s, p.String(), p, q)
		}
		_ = p.SchemaString()
	})
}
