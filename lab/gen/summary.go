package gen

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// Summary counts what a network is made of, as a `lab gen` command
// reports it.
type Summary struct {
	// Routers are the network's own routers, Providers the upstream
	// providers' routers.
	Routers, Providers int
	// Hosts are the network's own hosts; DNSServers and WebServers are
	// among them.
	Hosts, DNSServers, WebServers int
	// LANs are the LANs with hosts of the network's own, VLANLANs those
	// behind a VLAN interface.
	LANs, VLANLANs int
	// Links counts every link, hosts' included.
	Links int
	// Areas are the OSPF areas, dotted and in order (the backbone 0.0.0.0 first).
	Areas []string
	// ASes are the network's own autonomous systems, sorted.
	ASes []uint32
	// IBGP and EBGP count the configured BGP sessions (a pair of
	// neighbours once), EBGP with the providers' included.
	IBGP, EBGP int
	// Dialects counts the network's own routers per CLI dialect.
	Dialects map[string]int
}

// Summarize counts what a generated network is made of; the providers'
// devices are told by External, the web servers by their aliases.
func Summarize(topo topology.Topology) Summary {
	s := Summary{Dialects: map[string]int{}, Links: len(topo.Links)}
	owner := map[netip.Addr]string{}
	for _, d := range topo.Devices {
		for _, it := range d.Interfaces {
			if p, ok := addr4(&it); ok {
				owner[p.Addr()] = d.Name
			}
		}
	}
	sessions := map[[2]string]bool{}
	for _, d := range topo.Devices {
		switch {
		case d.Kind == topology.KindHost:
			if !External(d.Name) {
				s.Hosts++
			}
			if d.DNS != nil {
				s.DNSServers++
			}
		case External(d.Name):
			s.Providers++
		default:
			s.Routers++
			s.Dialects[d.Dialect]++
			for _, it := range d.Interfaces {
				if it.OSPF != nil && !slices.Contains(s.Areas, it.OSPF.Area) {
					s.Areas = append(s.Areas, it.OSPF.Area)
				}
				if it.RoutedVLAN > 0 {
					s.VLANLANs++
				}
			}
			if d.BGP != nil && !slices.Contains(s.ASes, d.BGP.ASN) {
				s.ASes = append(s.ASes, d.BGP.ASN)
			}
		}
		if d.BGP == nil {
			continue
		}
		for _, nb := range d.BGP.Neighbors {
			a, _ := netip.ParseAddr(nb.Address)
			pair := [2]string{d.Name, owner[a]}
			if pair[0] > pair[1] {
				pair[0], pair[1] = pair[1], pair[0]
			}
			if sessions[pair] {
				continue
			}
			sessions[pair] = true
			if nb.RemoteAS == d.BGP.ASN {
				s.IBGP++
			} else {
				s.EBGP++
			}
		}
	}
	s.WebServers = countWeb(topo)
	s.LANs = countLANs(topo)
	slices.SortFunc(s.Areas, func(a, b string) int {
		x, _ := netip.ParseAddr(a)
		y, _ := netip.ParseAddr(b)
		return x.Compare(y)
	})
	slices.Sort(s.ASes)
	return s
}

// countWeb counts the hosts the zone names www, www2, ...
func countWeb(topo topology.Topology) int {
	for _, d := range topo.Devices {
		if d.DNS == nil {
			continue
		}
		n := 0
		for _, z := range d.DNS.Zones {
			for _, r := range z.Records {
				if strings.HasPrefix(r.Name, "www") {
					n++
				}
			}
		}
		return n
	}
	return 0
}

// countLANs counts the network's own LANs: its routers' addressed
// interfaces linked to a host, and their VLAN interfaces.
func countLANs(topo topology.Topology) int {
	kind := map[string]string{}
	for _, d := range topo.Devices {
		kind[d.Name] = d.Kind
	}
	lans := map[string]bool{}
	for _, d := range topo.Devices {
		if d.Kind == topology.KindHost || External(d.Name) {
			continue
		}
		for _, l := range topo.Links {
			for _, e := range [][2]string{{l.A, l.B}, {l.B, l.A}} {
				dev, ifn, _ := topology.SplitEnd(e[0])
				peer, _, _ := topology.SplitEnd(e[1])
				if dev != d.Name || kind[peer] != topology.KindHost {
					continue
				}
				for _, it := range d.Interfaces {
					switch {
					case it.Name != ifn:
					case it.AccessVLAN > 0:
						lans[fmt.Sprintf("%s:vlan%d", dev, it.AccessVLAN)] = true
					default:
						lans[e[0]] = true
					}
				}
			}
		}
	}
	return len(lans)
}

// String writes the summary on one line.
func (s Summary) String() string {
	var ds []string
	for _, d := range []string{DialectVRP, DialectXR} {
		if s.Dialects[d] > 0 {
			ds = append(ds, fmt.Sprintf("%d %s", s.Dialects[d], d))
		}
	}
	return fmt.Sprintf("%d routers (%s) and %d provider(s); %d hosts on %d LANs (%d behind a VLAN interface), "+
		"%d DNS and %d web server(s); %d links; %d OSPF areas; AS %s; %d iBGP and %d eBGP sessions",
		s.Routers, strings.Join(ds, ", "), s.Providers, s.Hosts, s.LANs, s.VLANLANs, s.DNSServers, s.WebServers,
		s.Links, len(s.Areas), strings.Trim(fmt.Sprint(s.ASes), "[]"), s.IBGP, s.EBGP)
}
