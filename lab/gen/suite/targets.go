package suite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/gen"
	"github.com/netmcp/netmcp/lab/topology"
)

// view is what the target choice knows of a network: its own routers and
// hosts (not the providers'), their interfaces by use, the LANs' hosts
// and the DNS zone's aliases.
type view struct {
	topo topology.Topology
	devs map[string]*topology.Device
	// routers and hosts are the network's own, in topology order.
	routers, hosts []string
	// dnsServers run the DNS service; resolving hosts have a resolver.
	dnsServers, resolving []string
	// linked are the network's own interfaces on a link ("dev:if").
	linked []string
	// l3 are the own routers' addressed interfaces but loopbacks (routed
	// ports and VLAN interfaces); transit those of them not facing a host;
	// adjacent those with an OSPF adjacency.
	l3, transit, adjacent []string
	// hostEnds are the hosts' interfaces on a link.
	hostEnds []string
	// lanMates are the other hosts of each host's LAN.
	lanMates map[string][]string
	// aliases are the DNS zone's names for services.
	aliases []string
}

func newView(topo topology.Topology) *view {
	v := &view{topo: topo, devs: map[string]*topology.Device{}, lanMates: map[string][]string{}}
	for i := range topo.Devices {
		d := &topo.Devices[i]
		v.devs[d.Name] = d
		if gen.External(d.Name) {
			continue
		}
		if d.Kind == topology.KindHost {
			v.hosts = append(v.hosts, d.Name)
			if d.DNS != nil {
				v.dnsServers = append(v.dnsServers, d.Name)
				v.aliases = zoneAliases(d)
			}
			if len(d.DNSServers) > 0 {
				v.resolving = append(v.resolving, d.Name)
			}
		} else {
			v.routers = append(v.routers, d.Name)
		}
	}
	hostFacing := map[string]bool{} // router interfaces (or VLANs "dev:vlan") towards hosts
	lan := map[string][]string{}    // router:port or router:vlan -> hosts
	for _, l := range topo.Links {
		for _, e := range [][2]string{{l.A, l.B}, {l.B, l.A}} {
			dev, ifn, _ := topology.SplitEnd(e[0])
			if gen.External(dev) {
				continue
			}
			v.linked = append(v.linked, e[0])
			peer, _, _ := topology.SplitEnd(e[1])
			d := v.devs[dev]
			if d.Kind == topology.KindHost {
				v.hostEnds = append(v.hostEnds, e[0])
				continue
			}
			if p := v.devs[peer]; p != nil && p.Kind == topology.KindHost {
				key := e[0]
				if it := iface(d, ifn); it != nil && it.AccessVLAN > 0 {
					key = dev + ":vlan" + strconv.Itoa(it.AccessVLAN)
				}
				hostFacing[key] = true
				lan[key] = append(lan[key], peer)
			}
		}
	}
	for _, hs := range lan {
		for _, h := range hs {
			v.lanMates[h] = slices.DeleteFunc(slices.Clone(hs), func(o string) bool { return o == h })
		}
	}
	for _, r := range v.routers {
		d := v.devs[r]
		for _, it := range d.Interfaces {
			if len(it.Addresses) == 0 || strings.EqualFold(it.Type, "softwareLoopback") {
				continue
			}
			end := r + ":" + it.Name
			v.l3 = append(v.l3, end)
			facing := hostFacing[end] || (it.RoutedVLAN > 0 && hostFacing[r+":vlan"+strconv.Itoa(it.RoutedVLAN)])
			if !facing {
				v.transit = append(v.transit, end)
			}
			if it.OSPF != nil && !it.OSPF.Passive && slices.Contains(v.linked, end) {
				v.adjacent = append(v.adjacent, end)
			}
		}
	}
	return v
}

func iface(d *topology.Device, name string) *topology.Interface {
	for i := range d.Interfaces {
		if d.Interfaces[i].Name == name {
			return &d.Interfaces[i]
		}
	}
	return nil
}

// zoneAliases lists the names a DNS server's zones give services: A
// records under another name than a device's.
func zoneAliases(d *topology.Device) []string {
	var out []string
	for _, z := range d.DNS.Zones {
		for _, r := range z.Records {
			if r.Type == "A" && !isDevice(r.Name) {
				out = append(out, r.Name)
			}
		}
	}
	return out
}

// isDevice tells whether a record name is a generated device's name
// (r7, h12, isp1, ext2).
func isDevice(name string) bool {
	for _, p := range []string{"r", "h", "isp", "ext"} {
		if rest, ok := strings.CutPrefix(name, p); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// candidates lists the faults of a name worth trying on the network, in
// random order, parameters chosen at random where the name takes some.
func (v *view) candidates(name string, rng *rand.Rand) []topology.Fault {
	spec, ok := topology.LookupFault(name)
	if !ok {
		return nil
	}
	var targets []string
	params := func(string) map[string]string { return nil }
	oneOf := func(s ...string) string { return s[rng.IntN(len(s))] }
	dir := func(m map[string]string, choices ...string) map[string]string {
		if d := oneOf(choices...); d != "" {
			if m == nil {
				m = map[string]string{}
			}
			m["direction"] = d
		}
		return m
	}
	switch name {
	case "link_down", "link_flap", "link_bandwidth_throttling", "link_high_packet_corruption", "link_high_latency":
		targets = v.linkTargets(rng)
		switch name {
		case "link_flap":
			params = func(string) map[string]string {
				return map[string]string{"period": oneOf("10", "20", "30", "60"), "down": oneOf("3", "5")}
			}
		case "link_high_packet_corruption":
			params = func(string) map[string]string {
				return dir(map[string]string{"percent": oneOf("30", "50", "70")}, "", "", "in", "out")
			}
		case "link_high_latency":
			params = func(string) map[string]string { return map[string]string{"delay-ms": oneOf("100", "200", "300")} }
		case "link_bandwidth_throttling":
			params = func(string) map[string]string { return map[string]string{"rate": oneOf("64", "128")} }
		}
	case "link_detach", "link_fragmentation_disabled", "mtu_mismatch":
		targets = v.linked
		if name != "link_detach" {
			params = func(string) map[string]string { return map[string]string{"mtu": oneOf("1400", "1300", "1492")} }
		}
	case "icmp_acl_block", "arp_acl_block", "http_acl_block":
		targets = append(slices.Clone(v.l3), v.hostEnds...)
		params = func(string) map[string]string { return dir(nil, "", "in", "out") }
	case "bgp_acl_block":
		targets = v.transit
		params = func(string) map[string]string { return dir(nil, "", "in", "out") }
	case "ospf_acl_block":
		targets = v.adjacent
		params = func(string) map[string]string { return dir(nil, "", "in", "out") }
	case "dns_port_blocked":
		targets = append(slices.Clone(v.dnsServers), v.l3...)
		params = func(t string) map[string]string {
			if !strings.Contains(t, ":") {
				return nil
			}
			return dir(nil, "", "in", "out")
		}
	case "ospf_neighbor_missing", "ospf_area_misconfiguration":
		targets = v.adjacent
	case "bgp_asn_misconfig":
		for _, r := range v.routers {
			if b := v.devs[r].BGP; b != nil && len(b.Neighbors) > 0 {
				targets = append(targets, r)
			}
		}
		params = func(t string) map[string]string {
			nbs := v.devs[t].BGP.Neighbors
			return map[string]string{"neighbor": nbs[rng.IntN(len(nbs))].Address}
		}
	case "bgp_missing_route_advertisement":
		for _, r := range v.routers {
			if b := v.devs[r].BGP; b != nil && len(b.Networks) > 0 {
				targets = append(targets, r)
			}
		}
		params = func(t string) map[string]string {
			nets := v.devs[t].BGP.Networks
			return map[string]string{"prefix": nets[rng.IntN(len(nets))]}
		}
	case "frr_service_down":
		targets = v.routers
	case "host_incorrect_dns":
		targets = v.resolving
	case "host_ip_conflict", "mac_address_conflict":
		targets = v.hosts
		params = func(t string) map[string]string {
			if m := v.lanMates[t]; len(m) > 0 {
				return map[string]string{"with": m[rng.IntN(len(m))]}
			}
			return nil
		}
	case "dns_service_down":
		targets = v.dnsServers
	case "dns_record_error":
		targets = v.dnsServers
		if len(v.aliases) > 0 {
			params = func(string) map[string]string { return map[string]string{"name": oneOf(v.aliases...)} }
		}
	default:
		targets = v.bySpec(spec)
	}
	out := make([]topology.Fault, 0, len(targets))
	for _, t := range targets {
		f := topology.Fault{Name: name, Target: t, Params: params(t)}
		if err := f.CheckSpec(); err == nil {
			out = append(out, f)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// linkTargets names every link with an end of the network's own, by one
// of those ends chosen at random.
func (v *view) linkTargets(rng *rand.Rand) []string {
	var out []string
	for _, l := range v.topo.Links {
		var own []string
		for _, e := range []string{l.A, l.B} {
			if d, _, _ := topology.SplitEnd(e); !gen.External(d) {
				own = append(own, e)
			}
		}
		if len(own) > 0 {
			out = append(out, own[rng.IntN(len(own))])
		}
	}
	return out
}

// bySpec lists the targets of a name the suite has no rule for, from its
// catalog entry: links, linked interfaces, or devices of its kind.
func (v *view) bySpec(spec topology.FaultSpec) []string {
	switch spec.Targets[0] {
	case topology.TargetLink, topology.TargetInterface:
		return v.linked
	}
	switch spec.On {
	case topology.OnRouter:
		return v.routers
	case topology.OnHost:
		return v.hosts
	}
	return append(slices.Clone(v.routers), v.hosts...)
}

// describe is a fault's words for messages.
func describe(fs []topology.Fault) string {
	var w []string
	for _, f := range fs {
		w = append(w, f.String())
	}
	return fmt.Sprintf("%q", strings.Join(w, " + "))
}
