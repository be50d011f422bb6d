package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// The routing faults in the simulator: OSPF and BGP statements changed in
// the router's configuration, and its routing daemons stopped (an entry of
// the model's fault list that the routing model reads).

// registerRoutingFaults binds the routing faults.
func registerRoutingFaults(b *fault.Backend[*faultOp]) {
	b.Register("ospf_neighbor_missing", configFault(ospfNeighborMissing))
	b.Register("ospf_area_misconfiguration", configFault(ospfAreaMisconfiguration))
	b.Register("bgp_asn_misconfig", configFault(bgpASNMisconfig))
	b.Register("bgp_missing_route_advertisement", configFault(bgpMissingRouteAdvertisement))
	b.Register("frr_service_down", runtimeFault)
}

// ospfNeighborMissing removes the target interface from OSPF.
func ospfNeighborMissing(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	_, ifn := faultTarget(f)
	it, err := ifaceOf(&d, ifn, where)
	if err != nil {
		return d, "", err
	}
	if it.OSPF == nil {
		return d, "", fmt.Errorf("%s: %s is not in OSPF", where, f.Target)
	}
	it.OSPF = nil
	return d, fmt.Sprintf("%s removed from OSPF", ifn), nil
}

// ospfAreaMisconfiguration moves the target interface to another OSPF
// area: the "area" parameter, else one neither end uses.
func ospfAreaMisconfiguration(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	_, ifn := faultTarget(f)
	it, err := ifaceOf(&d, ifn, where)
	if err != nil {
		return d, "", err
	}
	if it.OSPF == nil {
		return d, "", fmt.Errorf("%s: %s is not in OSPF", where, f.Target)
	}
	area := f.Param("area")
	if area == "" {
		area = unusedArea(net, d.Name, ifn, it.OSPF.Area)
	}
	area, _ = netsim.ParseArea(area)
	if cur, _ := netsim.ParseArea(it.OSPF.Area); cur == area {
		return d, "", fmt.Errorf("%s: %s is already in area %s", where, f.Target, area)
	}
	o := *it.OSPF
	o.Area = area
	it.OSPF = &o
	return d, fmt.Sprintf("%s moved to OSPF area %s", ifn, area), nil
}

// bgpASNMisconfig gives a BGP neighbour (the "neighbor" parameter, else
// the first) a wrong remote AS (the "remote-as" parameter, else the right
// one + 1000).
func bgpASNMisconfig(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	if d.BGP == nil || len(d.BGP.Neighbors) == 0 {
		return d, "", fmt.Errorf("%s: %s has no BGP neighbour", where, d.Name)
	}
	b := *d.BGP
	b.Neighbors = slices.Clone(b.Neighbors)
	d.BGP = &b
	i := 0
	if nb := f.Param("neighbor"); nb != "" {
		i = slices.IndexFunc(b.Neighbors, func(n topology.BGPNeighbor) bool { return n.Address == nb })
		if i < 0 {
			return d, "", fmt.Errorf("%s: %s has no BGP neighbour %s", where, d.Name, nb)
		}
	}
	as := uint64(b.Neighbors[i].RemoteAS) + 1000
	if v := f.Param("remote-as"); v != "" {
		as, _ = strconv.ParseUint(v, 10, 32)
	}
	if uint32(as) == b.Neighbors[i].RemoteAS {
		return d, "", fmt.Errorf("%s: neighbour %s already has remote-as %d", where, b.Neighbors[i].Address, as)
	}
	b.Neighbors[i].RemoteAS = uint32(as)
	return d, fmt.Sprintf("neighbour %s remote-as %d", b.Neighbors[i].Address, as), nil
}

// bgpMissingRouteAdvertisement removes a BGP network statement (the
// "prefix" parameter's, else the first).
func bgpMissingRouteAdvertisement(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	if d.BGP == nil || len(d.BGP.Networks) == 0 {
		return d, "", fmt.Errorf("%s: %s has no BGP network statement", where, d.Name)
	}
	b := *d.BGP
	d.BGP = &b
	pfx := f.Param("prefix")
	if pfx == "" {
		pfx = b.Networks[0]
	}
	i := slices.IndexFunc(b.Networks, func(n string) bool { return samePrefix(n, pfx) })
	if i < 0 {
		return d, "", fmt.Errorf("%s: %s has no network statement for %s (has %s)", where, d.Name, pfx, strings.Join(b.Networks, ", "))
	}
	b.Networks = slices.Delete(slices.Clone(b.Networks), i, i+1)
	return d, "network " + pfx + " removed from BGP", nil
}

func samePrefix(a, b string) bool {
	pa, err1 := netip.ParsePrefix(a)
	pb, err2 := netip.ParsePrefix(b)
	return err1 == nil && err2 == nil && pa.Masked() == pb.Masked()
}

// unusedArea picks an OSPF area that neither the interface nor its
// neighbour uses: 0.0.0.1, 0.0.0.2, ...
func unusedArea(net *netsim.Network, dev, ifn, cur string) string {
	used := map[string]bool{}
	if a, err := netsim.ParseArea(cur); err == nil {
		used[a] = true
	}
	if pd, pi, ok := peerOf(net, dev, ifn); ok {
		if d, ok := net.Device(pd); ok {
			for _, it := range d.Interfaces {
				if it.Name == pi && it.OSPF != nil {
					if a, err := netsim.ParseArea(it.OSPF.Area); err == nil {
						used[a] = true
					}
				}
			}
		}
	}
	for i := 1; ; i++ {
		a, _ := netsim.ParseArea(strconv.Itoa(i))
		if !used[a] {
			return a
		}
	}
}
