package snmp

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Top-level members of the trees the driver serves (the sim driver's
// operational shapes, docs/datamodel.md).
const (
	memOCInterfaces   = "openconfig-interfaces:interfaces"
	memIETFInterfaces = "ietf-interfaces:interfaces"
	memRouting        = "ietf-routing:routing"
	memSystem         = "openconfig-system:system"
)

// yangModules are the modules whose data the driver serves.
var yangModules = []string{"ietf-interfaces", "ietf-ip", "ietf-routing", "openconfig-if-ip",
	"openconfig-interfaces", "openconfig-system"}

type obj = map[string]any

func num(i int) float64 { return float64(i) }

// ustr is an RFC 7951 64-bit integer: a JSON string.
func ustr(v uint64) string { return strconv.FormatUint(v, 10) }

// ianaIfType names IANAifType values as iana-if-type identities; others
// become "iana-if-type:other".
var ianaIfType = map[int]string{1: "other", 6: "ethernetCsmacd", 23: "ppp", 24: "softwareLoopback",
	53: "propVirtual", 71: "ieee80211", 131: "tunnel", 135: "l2vlan", 136: "l3ipvlan", 161: "ieee8023adLag",
	166: "mpls", 209: "bridge"}

func ifType(t int) string {
	if n, ok := ianaIfType[t]; ok {
		return "iana-if-type:" + n
	}
	return "iana-if-type:other"
}

// IF-MIB status values in openconfig's and ietf-interfaces' spelling.
var (
	ocOper   = map[int]string{1: "UP", 2: "DOWN", 3: "TESTING", 4: "UNKNOWN", 5: "DORMANT", 6: "NOT_PRESENT", 7: "LOWER_LAYER_DOWN"}
	ietfOper = map[int]string{1: "up", 2: "down", 3: "testing", 4: "unknown", 5: "dormant", 6: "not-present", 7: "lower-layer-down"}
	ocAdmin  = map[int]string{1: "UP", 2: "DOWN", 3: "TESTING"}
	ietfAdm  = map[int]string{1: "up", 2: "down", 3: "testing"}
	// IpAddressOriginTC in ietf-ip's and openconfig-if-ip's spelling.
	ietfOrigin = map[int]string{1: "other", 2: "static", 4: "dhcp", 5: "link-layer", 6: "random"}
	ocOrigin   = map[int]string{1: "OTHER", 2: "STATIC", 4: "DHCP", 5: "LINK_LAYER", 6: "RANDOM"}
)

func lookup(m map[int]string, v int, def string) string {
	if s, ok := m[v]; ok {
		return s
	}
	return def
}

// mtuOK reports whether an MTU fits the models' uint16 leaf (a Linux
// loopback's 65536 does not; it is then left out of the trees).
func mtuOK(m int) bool { return m > 0 && m <= 65535 }

func timeticks64(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

// ocInterface is an interface in openconfig-interfaces with its state and
// its addresses under subinterface 0.
func ocInterface(s *snapshot, it *iface) obj {
	name := it.name()
	typ := ifType(it.Type)
	enabled := it.Admin == 1
	cfg := obj{"name": name, "type": typ, "enabled": enabled}
	st := obj{"name": name, "type": typ, "enabled": enabled, "ifindex": num(it.Index),
		"admin-status": lookup(ocAdmin, it.Admin, "DOWN"), "oper-status": lookup(ocOper, it.Oper, "UNKNOWN"),
		"last-change": timeticks64(s.Sys.ticksAt(it.LastChange)),
		"counters":    ocCounters(it.C)}
	if mtuOK(it.MTU) {
		cfg["mtu"], st["mtu"] = num(it.MTU), num(it.MTU)
	}
	if it.Alias != "" {
		cfg["description"], st["description"] = it.Alias, it.Alias
	}
	n := obj{"name": name, "config": cfg, "state": st}
	if len(it.V4)+len(it.V6) > 0 {
		sub := obj{"index": num(0), "config": obj{"index": num(0)}, "state": obj{"index": num(0)}}
		for fam, l := range map[string][]address{"ipv4": it.V4, "ipv6": it.V6} {
			if len(l) == 0 {
				continue
			}
			var al []any
			for _, a := range l {
				ip := a.Prefix.Addr().String()
				as := obj{"ip": ip, "prefix-length": num(a.Prefix.Bits())}
				if o, ok := ocOrigin[a.Origin]; ok {
					as["origin"] = o
				}
				al = append(al, obj{"ip": ip, "config": obj{"ip": ip, "prefix-length": num(a.Prefix.Bits())}, "state": as})
			}
			sub[fam] = obj{"addresses": obj{"address": al}}
		}
		n["subinterfaces"] = obj{"subinterface": []any{sub}}
	}
	return n
}

func ocCounters(c counters) obj {
	return obj{
		"in-octets": ustr(c.InOctets), "in-pkts": ustr(c.InUcast + c.InMcast + c.InBcast),
		"in-unicast-pkts": ustr(c.InUcast), "in-multicast-pkts": ustr(c.InMcast), "in-broadcast-pkts": ustr(c.InBcast),
		"in-discards": ustr(c.InDiscards), "in-errors": ustr(c.InErrors), "in-unknown-protos": ustr(c.InUnknownProtos),
		"out-octets": ustr(c.OutOctets), "out-pkts": ustr(c.OutUcast + c.OutMcast + c.OutBcast),
		"out-unicast-pkts": ustr(c.OutUcast), "out-multicast-pkts": ustr(c.OutMcast), "out-broadcast-pkts": ustr(c.OutBcast),
		"out-discards": ustr(c.OutDiscards), "out-errors": ustr(c.OutErrors),
	}
}

// ietfInterface is an interface in ietf-interfaces (RFC 8343) with its
// ietf-ip addresses (RFC 8344). Counter32 statistics are JSON numbers and
// counter64/gauge64 ones strings, as RFC 7951 has it.
func ietfInterface(s *snapshot, it *iface) obj {
	c := it.C
	stats := obj{
		"discontinuity-time": s.Sys.ticksAt(it.Discontinuity).UTC().Format(time.RFC3339Nano),
		"in-octets":          ustr(c.InOctets), "in-unicast-pkts": ustr(c.InUcast),
		"in-broadcast-pkts": ustr(c.InBcast), "in-multicast-pkts": ustr(c.InMcast),
		"in-discards": float64(uint32(c.InDiscards)), "in-errors": float64(uint32(c.InErrors)),
		"in-unknown-protos": float64(uint32(c.InUnknownProtos)),
		"out-octets":        ustr(c.OutOctets), "out-unicast-pkts": ustr(c.OutUcast),
		"out-broadcast-pkts": ustr(c.OutBcast), "out-multicast-pkts": ustr(c.OutMcast),
		"out-discards": float64(uint32(c.OutDiscards)), "out-errors": float64(uint32(c.OutErrors)),
	}
	n := obj{"name": it.name(), "type": ifType(it.Type), "enabled": it.Admin == 1, "if-index": num(it.Index),
		"admin-status": lookup(ietfAdm, it.Admin, "down"), "oper-status": lookup(ietfOper, it.Oper, "unknown"),
		"last-change": s.Sys.ticksAt(it.LastChange).UTC().Format(time.RFC3339Nano),
		"statistics":  stats}
	if it.Alias != "" {
		n["description"] = it.Alias
	}
	if len(it.PhysAddress) > 0 {
		n["phys-address"] = net.HardwareAddr(it.PhysAddress).String()
	}
	if it.Speed > 0 {
		n["speed"] = ustr(it.Speed)
	}
	for fam, l := range map[string][]address{"ietf-ip:ipv4": it.V4, "ietf-ip:ipv6": it.V6} {
		ip := obj{}
		if mtuOK(it.MTU) && (fam == "ietf-ip:ipv4" || it.MTU >= 1280) {
			ip["mtu"] = num(it.MTU)
		}
		var al []any
		for _, a := range l {
			e := obj{"ip": a.Prefix.Addr().String(), "prefix-length": num(a.Prefix.Bits())}
			if o, ok := ietfOrigin[a.Origin]; ok {
				e["origin"] = o
			}
			al = append(al, e)
		}
		if len(al) > 0 {
			ip["address"] = al
		}
		if len(al) > 0 || (fam == "ietf-ip:ipv4" && len(ip) > 0) {
			n[fam] = ip
		}
	}
	return n
}

// sourceProtocol maps IANAipRouteProtocol to ietf-routing identities; the
// protocols without an identity there are netmcp:<IANA name>.
var sourceProtocol = map[int]string{1: "netmcp:other", 2: "ietf-routing:direct", 3: "ietf-routing:static",
	4: "netmcp:icmp", 5: "netmcp:egp", 8: "netmcp:rip", 9: "netmcp:isis", 13: "netmcp:ospf", 14: "netmcp:bgp",
	16: "netmcp:eigrp", 19: "netmcp:dhcp"}

// ribs is the ietf-routing RIBs ipv4-master and ipv6-master of the
// forwarding table (every route there is active).
func ribs(s *snapshot) []any {
	var out []any
	for _, fam := range []int{4, 6} {
		var rl []any
		for _, r := range s.Routes {
			if (fam == 4) != r.Dest.Addr().Is4() {
				continue
			}
			e := obj{"destination-prefix": r.Dest.String(), "active": []any{nil},
				"source-protocol": lookup(sourceProtocol, r.Proto, fmt.Sprintf("netmcp:proto-%d", r.Proto))}
			if r.Metric >= 0 {
				e["metric"] = num(r.Metric)
			}
			nh := obj{}
			switch r.Type {
			case 2:
				nh["special-next-hop"] = "unreachable"
			case 5:
				nh["special-next-hop"] = "blackhole"
			}
			if it := s.ifByIndex(r.IfIndex); it != nil {
				nh["outgoing-interface"] = it.name()
			}
			if r.NextHop.IsValid() {
				nh["next-hop-address"] = r.NextHop.String()
			}
			e["next-hop"] = nh
			rl = append(rl, e)
		}
		rib := obj{"name": fmt.Sprintf("ipv%d-master", fam), "address-family": fmt.Sprintf("ietf-routing:ipv%d", fam)}
		if len(rl) > 0 {
			rib["routes"] = obj{"route": rl}
		}
		out = append(out, rib)
	}
	return out
}

// systemTree is openconfig-system's hostname, boot time, memory and CPUs.
func systemTree(s *snapshot) obj {
	st := obj{"hostname": s.Sys.Name, "boot-time": timeticks64(s.Sys.boot())}
	sys := obj{"config": obj{"hostname": s.Sys.Name}, "state": st}
	if s.Res.HasRAM {
		sys["memory"] = obj{"state": obj{"physical": ustr(s.Res.RAMTotal), "used": ustr(s.Res.RAMUsed),
			"free": ustr(s.Res.RAMTotal - s.Res.RAMUsed)}}
	}
	if len(s.Res.CPULoads) > 0 {
		var cl []any
		for i, l := range s.Res.CPULoads {
			cl = append(cl, obj{"index": num(i), "state": obj{"index": num(i), "total": obj{"avg": num(l)}}})
		}
		sys["cpus"] = obj{"cpu": cl}
	}
	return sys
}

// buildTree is the operational tree of the parts collected.
func buildTree(s *snapshot, want parts) map[string]any {
	tree := obj{}
	if want&partInterfaces != 0 {
		var oc, ietf []any
		for _, it := range s.Ifs {
			oc = append(oc, ocInterface(s, it))
			ietf = append(ietf, ietfInterface(s, it))
		}
		if len(oc) > 0 {
			tree[memOCInterfaces] = obj{"interface": oc}
			tree[memIETFInterfaces] = obj{"interface": ietf}
		}
	}
	if want&partRoutes != 0 {
		tree[memRouting] = obj{"ribs": obj{"rib": ribs(s)}}
	}
	if want&partSystem != 0 {
		tree[memSystem] = systemTree(s)
	}
	return tree
}

// partsFor selects what to poll for a path's top-level member ("" = all).
func partsFor(member string) (parts, bool) {
	switch member {
	case "":
		return partAll, true
	case memOCInterfaces, memIETFInterfaces:
		return partSystem | partInterfaces | partAddresses, true
	case memRouting:
		return partRoutes | partIfNames, true
	case memSystem:
		return partSystem | partResources, true
	}
	return 0, false
}

// members lists the top-level members the driver serves.
func members() string {
	return strings.Join([]string{memOCInterfaces, memIETFInterfaces, memRouting, memSystem}, ", ")
}
