package wire

import (
	"context"
	"errors"
	"reflect"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

func resolveOC(origin, name string) (string, bool) {
	switch name {
	case "interfaces":
		return "openconfig-interfaces", true
	case "network-instances":
		return "openconfig-network-instance", true
	}
	return "", false
}

func TestPathRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		yang   string
		style  Style
		origin string
		first  string
	}{
		{"/openconfig-interfaces:interfaces/interface[name='Gi0/0/0']/config/description", OriginStyle, "openconfig", "interfaces"},
		{"/openconfig-interfaces:interfaces/interface[name='Gi0/0/0']/config/description", PrefixStyle, "", "openconfig-interfaces:interfaces"},
		{"/ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/mtu", OriginStyle, "ietf-interfaces", "interfaces"},
		{"/ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/mtu", PrefixStyle, "", "ietf-interfaces:interfaces"},
		{"/openconfig-network-instance:network-instances/network-instance[name='default']/protocols/protocol[identifier='BGP'][name='bgp']", OriginStyle, "openconfig", "network-instances"},
		{"/", OriginStyle, "", ""},
	} {
		p := yang.MustParsePath(tc.yang)
		g := ToGNMI(p, tc.style)
		if g.Origin != tc.origin {
			t.Errorf("%s (style %d): origin %q, want %q", tc.yang, tc.style, g.Origin, tc.origin)
		}
		if len(g.Elem) > 0 && g.Elem[0].Name != tc.first {
			t.Errorf("%s (style %d): first element %q, want %q", tc.yang, tc.style, g.Elem[0].Name, tc.first)
		}
		back, style, err := FromGNMI(g, resolveOC)
		if err != nil {
			t.Fatalf("%s: FromGNMI(%s): %v", tc.yang, Text(g), err)
		}
		if back.String() != p.String() {
			t.Errorf("round trip of %s gave %s", p, back)
		}
		if len(p) > 0 && style != tc.style {
			t.Errorf("%s: style read back %d, want %d", tc.yang, style, tc.style)
		}
	}
}

func TestFromGNMIErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *gpb.Path
		code int
	}{
		{"unknown bare top-level node", &gpb.Path{Elem: []*gpb.PathElem{{Name: "nothing"}}}, netproto.CodeConfigIncompatible},
		{"cli origin", &gpb.Path{Origin: "cli"}, netproto.CodeConfigIncompatible},
		{"empty element", &gpb.Path{Elem: []*gpb.PathElem{{Name: "interfaces"}, {}}}, netproto.CodeYangSyntaxError},
		{"rfc7951 without prefix", &gpb.Path{Origin: "rfc7951", Elem: []*gpb.PathElem{{Name: "interfaces"}}}, netproto.CodeYangSyntaxError},
	} {
		_, _, err := FromGNMI(tc.p, resolveOC)
		var ne *netproto.Error
		if !errors.As(err, &ne) || ne.Code != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
}

func TestMatch(t *testing.T) {
	leaf := yang.MustParsePath("/openconfig-interfaces:interfaces/interface[name='eth0']/state/oper-status")
	for _, tc := range []struct {
		pattern string
		want    bool
	}{
		{"/openconfig-interfaces:interfaces", true},
		{"/openconfig-interfaces:interfaces/interface/state/oper-status", true},
		{"/openconfig-interfaces:interfaces/interface[name='*']/state", true},
		{"/openconfig-interfaces:interfaces/interface[name='eth0']/state/oper-status", true},
		{"/openconfig-interfaces:interfaces/interface[name='eth1']/state", false},
		{"/openconfig-interfaces:interfaces/interface/config", false},
		{"/ietf-interfaces:interfaces", false},
		{"/", true},
	} {
		if got := Match(yang.MustParsePath(tc.pattern), leaf); got != tc.want {
			t.Errorf("Match(%s) = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

func TestFlatten(t *testing.T) {
	tree := map[string]any{"openconfig-interfaces:interfaces": map[string]any{"interface": []any{
		map[string]any{"name": "eth0", "state": map[string]any{"oper-status": "UP", "mtu": 1500.0}},
		map[string]any{"name": "eth1", "state": map[string]any{"oper-status": "DOWN"}},
	}}, "openconfig-system:system": map[string]any{"dns": map[string]any{"servers": []any{"192.0.2.53", "192.0.2.54"}}}}
	got := map[string]any{}
	Flatten(nil, tree, yang.DefaultSchema(), func(l Leaf) { got[l.Path.String()] = l.Value })
	want := map[string]any{
		"/openconfig-interfaces:interfaces/interface[name='eth0']/name":              "eth0",
		"/openconfig-interfaces:interfaces/interface[name='eth0']/state/oper-status": "UP",
		"/openconfig-interfaces:interfaces/interface[name='eth0']/state/mtu":         1500.0,
		"/openconfig-interfaces:interfaces/interface[name='eth1']/name":              "eth1",
		"/openconfig-interfaces:interfaces/interface[name='eth1']/state/oper-status": "DOWN",
		"/openconfig-system:system/dns/servers":                                      []any{"192.0.2.53", "192.0.2.54"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Flatten:\n got %v\nwant %v", got, want)
	}
}

func TestValues(t *testing.T) {
	for _, v := range []any{"text", true, 42.0, -7.0, 1.5, []any{"a", "b"}, map[string]any{"x": 1.0}, []any{nil}} {
		for _, tv := range []*gpb.TypedValue{EncodeScalar(v), must(EncodeJSON(v, true)), must(EncodeJSON(v, false))} {
			got, err := Decode(tv)
			if err != nil || !reflect.DeepEqual(got, v) {
				t.Errorf("%v through %T: %v, %v", v, tv.GetValue(), got, err)
			}
		}
	}
	big, _ := Decode(&gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: 1 << 60}})
	if big != "1152921504606846976" {
		t.Errorf("a uint64 beyond 2^53 decodes to %v, want its decimal string", big)
	}
	if got := Unqualify(map[string]any{"openconfig-interfaces:interface": 1.0, "other:x": 2.0}, "openconfig-interfaces"); !reflect.DeepEqual(got, map[string]any{"interface": 1.0, "other:x": 2.0}) {
		t.Errorf("Unqualify: %v", got)
	}
}

func must(tv *gpb.TypedValue, err error) *gpb.TypedValue {
	if err != nil {
		panic(err)
	}
	return tv
}

func TestStatusRoundTrip(t *testing.T) {
	ne := netproto.Errorf(netproto.CodeYangSyntaxError, "bad value").WithPath("/a:b").Retryable()
	st := status.Convert(Status(ne))
	if st.Code() != codes.InvalidArgument {
		t.Errorf("code %s, want InvalidArgument", st.Code())
	}
	back := NetprotoOf(st)
	if back == nil || back.Code != ne.Code || back.Path != ne.Path || !back.RetryPossible || back.Detail != "bad value" {
		t.Errorf("read back %+v, want %+v", back, ne)
	}
	for err, want := range map[error]codes.Code{
		device.ErrNotFound: codes.NotFound, context.Canceled: codes.Canceled,
		errors.New("x"): codes.Internal,
	} {
		if got := status.Code(Status(err)); got != want {
			t.Errorf("Status(%v) = %s, want %s", err, got, want)
		}
	}
}
