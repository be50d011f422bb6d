package sim

import (
	"reflect"
	"testing"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/yang"
)

// TestStaticRoutesRoundTrip checks that DeviceToTree writes every static
// route, its administrative distance included, as a tree the schema
// accepts, and that TreeToDevice reads the same routes back.
func TestStaticRoutesRoundTrip(t *testing.T) {
	routes := []topology.StaticRoute{
		{Prefix: "10.50.0.0/16", NextHop: "10.0.12.2", Distance: 20},
		{Prefix: "192.0.2.0/24", Discard: true, VRF: "mgmt", Distance: 250},
		{Prefix: "2001:db8:99::/48", NextHop: "2001:db8:12::2", Distance: 255},
	}
	for _, d := range DefaultTopology().Devices {
		if d.Kind == topology.KindHost {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			d.Routes = append(append([]topology.StaticRoute(nil), d.Routes...), routes...)
			d.Routes = append(d.Routes, topology.StaticRoute{Prefix: "10.60.0.0/16", Interface: d.Interfaces[0].Name})
			tree := DeviceToTree(d)
			norm, err := yang.Normalize(tree)
			if err != nil {
				t.Fatal(err)
			}
			if err := yang.DefaultSchema().Validate(norm.(map[string]any)); err != nil {
				t.Fatalf("schema rejects the tree: %v", err)
			}
			back, err := TreeToDevice(tree, d)
			if err != nil {
				t.Fatalf("TreeToDevice: %v", err)
			}
			if !sameRoutes(back.Routes, d.Routes) {
				t.Errorf("routes after the round trip:\n got %+v\nwant %+v", back.Routes, d.Routes)
			}
		})
	}
}

// sameRoutes compares route sets; the tree groups routes by VRF and family.
func sameRoutes(a, b []topology.StaticRoute) bool {
	set := func(rs []topology.StaticRoute) map[topology.StaticRoute]int {
		m := map[topology.StaticRoute]int{}
		for _, r := range rs {
			m[r]++
		}
		return m
	}
	return reflect.DeepEqual(set(a), set(b))
}
