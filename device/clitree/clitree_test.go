package clitree

import (
	"fmt"
	"strings"
	"testing"
)

// dump writes a tree one node a line, indented by depth.
func dump(ns []*Node, depth int, b *strings.Builder) {
	for _, n := range ns {
		fmt.Fprintf(b, "%s%s\n", strings.Repeat(".", depth), n.Line)
		dump(n.Kids, depth+1, b)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"flat", []string{"hostname r1", "ip route 0.0.0.0/0 10.0.0.1"}, "hostname r1\nip route 0.0.0.0/0 10.0.0.1\n"},
		{"blocks", []string{"interface e0", " description up", " ip ospf area 0", "router bgp 65001", " neighbor 10.0.0.2 remote-as 65002", " address-family ipv4 unicast", "  network 10.0.0.0/24", " exit-address-family"},
			"interface e0\n.description up\n.ip ospf area 0\nrouter bgp 65001\n.neighbor 10.0.0.2 remote-as 65002\n.address-family ipv4 unicast\n..network 10.0.0.0/24\n.exit-address-family\n"},
		{"back out two levels", []string{"a", " b", "  c", "d"}, "a\n.b\n..c\nd\n"},
		{"first line indented", []string{"  x", "y"}, "x\ny\n"},
		{"uneven indentation", []string{"a", "   b", " c"}, "a\n.b\n.c\n"},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			dump(Parse(tt.lines), 0, &b)
			if b.String() != tt.want {
				t.Errorf("Parse:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	ns := Parse([]string{"a", " x", "b", "a"})
	m := Index(ns)
	if len(m) != 2 || m["b"] != ns[1] || m["a"] != ns[2] {
		t.Fatalf("Index = %v", m)
	}
}
