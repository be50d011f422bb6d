package sim

import (
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/yang"
)

// operational builds the operational datastore (docs/datamodel.md): the
// running configuration plus interface state and counters, ARP neighbours,
// the ietf-interfaces view and the ietf-routing RIBs, all from the model.
func (d *Driver) operational() map[string]any {
	return d.operationalOf("")
}

// operationalOf is the operational datastore's tree with only the
// top-level member top filled in ("": every member): a read of the
// interfaces builds neither the RIBs nor the protocols' state, which on a
// network of a thousand routers cost a table of thousands of routes per
// read. The members other than top are left out, or hold the running
// configuration only; a read under top sees what operational shows there.
func (d *Driver) operationalOf(top string) map[string]any {
	var tree map[string]any
	if top == "" {
		tree = d.store.Running()
	} else {
		// Only top's member (and, for the ietf-interfaces view, the
		// openconfig interfaces it is made from) is copied.
		view := d.store.RunningView()
		tree = map[string]any{}
		for _, k := range []string{top, memInterfaces} {
			if v, ok := view[k]; ok && (k == top || top == ietfInterfaces) {
				tree[k] = yang.Clone(v)
			}
		}
	}
	want := func(members ...string) bool { return top == "" || slices.Contains(members, top) }
	c := d.config()
	if want(memInterfaces, ietfInterfaces) {
		d.addInterfaceState(tree, c.dev)
	}
	if want(memLLDP) {
		d.addLLDP(tree) // lldp_tree.go
	}
	if want(memRouting) {
		routing, _ := tree[memRouting].(map[string]any)
		if routing == nil {
			routing = obj{}
		}
		routing["ribs"] = obj{"rib": d.ribs(c.dev)}
		tree[memRouting] = routing
	}
	if want(memNetInst) {
		d.addRoutingState(tree) // OSPF, BGP: operational_routing.go
	}
	return tree
}

// addInterfaceState adds to a configuration tree of dev what the model
// says of each interface: the openconfig state and counters, the ARP/ND
// neighbours, and the ietf-interfaces view.
func (d *Driver) addInterfaceState(tree map[string]any, dev topology.Device) {
	neigh, _ := d.lab.net.Neighbors(d.name)
	byName := map[string]topology.Interface{}
	for _, it := range dev.Interfaces {
		byName[it.Name] = it
	}
	var ietf []any
	for _, n := range yang.List(at(tree, memInterfaces, "interface")) {
		m, ok := n.(map[string]any)
		if !ok {
			continue
		}
		name := yang.String(m["name"])
		st, err := d.lab.net.InterfaceState(d.name, name)
		if err != nil {
			continue
		}
		it := byName[name]
		m["state"] = d.ocState(it, st)
		d.addNeighbors(m, name, neigh)
		ietf = append(ietf, ietfInterface(it, st))
	}
	if len(ietf) > 0 {
		tree[ietfInterfaces] = obj{"interface": ietf}
	}
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

func ocOperStatus(st netsim.IfState) string {
	switch {
	case st.OperUp:
		return "UP"
	case st.OperReason == "lower-layer-down":
		return "LOWER_LAYER_DOWN"
	}
	return "DOWN"
}

func (d *Driver) ocState(it topology.Interface, st netsim.IfState) obj {
	admin := "DOWN"
	if st.AdminUp {
		admin = "UP"
	}
	s := obj{"name": it.Name, "type": interfaceType(it), "mtu": num(st.MTU), "enabled": st.AdminUp,
		"admin-status": admin, "oper-status": ocOperStatus(st),
		"last-change": u64(uint64(d.lastChangeOf(it.Name).UnixNano())),
		"counters":    ocCounters(st.Counters)}
	if it.Description != "" {
		s["description"] = it.Description
	}
	return s
}

func ocCounters(c netsim.Counters) obj {
	return obj{"in-octets": u64(c.InOctets), "out-octets": u64(c.OutOctets), "in-pkts": u64(c.InPkts),
		"out-pkts": u64(c.OutPkts), "in-errors": u64(c.InErrors), "out-errors": u64(c.OutErrors),
		"in-discards": u64(c.InDiscards), "out-discards": u64(c.OutDiscards), "last-clear": lastClear(c)}
}

// addNeighbors puts the IPv4 ARP entries of an interface under its
// subinterface 0 (created if the interface has no address there).
func (d *Driver) addNeighbors(m map[string]any, ifn string, neigh []netsim.Neighbor) {
	var l []any
	for _, n := range neigh {
		if n.Interface != ifn || !n.IP.Is4() {
			continue
		}
		origin := "STATIC"
		if n.Dynamic {
			origin = "DYNAMIC"
		}
		ip := n.IP.String()
		l = append(l, obj{"ip": ip, "state": obj{"ip": ip, "link-layer-address": n.MAC, "origin": origin}})
	}
	if len(l) == 0 {
		return
	}
	subs, _ := m["subinterfaces"].(map[string]any)
	if subs == nil {
		subs = obj{"subinterface": []any{obj{"index": num(0), "config": obj{"index": num(0)}}}}
		m["subinterfaces"] = subs
	}
	sl := yang.List(subs["subinterface"])
	if len(sl) == 0 {
		return
	}
	sub, _ := sl[0].(map[string]any)
	v4, _ := sub["ipv4"].(map[string]any)
	if v4 == nil {
		v4 = obj{}
		sub["ipv4"] = v4
	}
	v4["neighbors"] = obj{"neighbor": l}
}

func ietfInterface(it topology.Interface, st netsim.IfState) obj {
	admin, oper := "down", "down"
	if st.AdminUp {
		admin = "up"
	}
	if st.OperUp {
		oper = "up"
	} else if st.OperReason == "lower-layer-down" {
		oper = "lower-layer-down"
	}
	n := obj{"name": it.Name, "type": interfaceType(it), "enabled": st.AdminUp,
		"admin-status": admin, "oper-status": oper, "phys-address": strings.ToLower(st.MAC),
		"statistics": obj{"in-octets": u64(st.Counters.InOctets), "out-octets": u64(st.Counters.OutOctets),
			"in-unicast-pkts": u64(st.Counters.InPkts), "out-unicast-pkts": u64(st.Counters.OutPkts),
			"in-errors": u64(st.Counters.InErrors), "out-errors": u64(st.Counters.OutErrors),
			"in-discards": u64(st.Counters.InDiscards), "out-discards": u64(st.Counters.OutDiscards)}}
	v4, v6 := dialect.SplitAddrs(it)
	if len(v4) > 0 || st.MTU > 0 {
		var al []any
		for _, p := range v4 {
			al = append(al, obj{"ip": p.Addr().String(), "prefix-length": num(p.Bits())})
		}
		ip := obj{"mtu": num(st.MTU)}
		if len(al) > 0 {
			ip["address"] = al
		}
		n["ietf-ip:ipv4"] = ip
	}
	if len(v6) > 0 {
		var al []any
		for _, p := range v6 {
			al = append(al, obj{"ip": p.Addr().String(), "prefix-length": num(p.Bits())})
		}
		n["ietf-ip:ipv6"] = obj{"mtu": num(max(st.MTU, 1280)), "address": al}
	}
	return n
}

// ribName names a RIB: ipv4-master, ipv6-master, <vrf>-ipv4, <vrf>-ipv6.
func ribName(vrf string, fam int) string {
	f := "ipv" + strconv.Itoa(fam)
	if vrf == "" {
		return f + "-master"
	}
	return vrf + "-" + f
}

var sourceProtocol = map[string]string{"direct": "ietf-routing:direct", "static": "ietf-routing:static", "igp": "netmcp:igp",
	"ospf": "ietf-ospf:ospfv2", "bgp": "ietf-bgp:bgp"}

// addNextHop adds a further next hop of an equal-cost route to its entry:
// the route's next hops become a next-hop-list (ietf-routing's case for a
// multipath route), one entry per next hop, indexed from 0.
func addNextHop(e obj, r netsim.Route) {
	nh := e["next-hop"].(obj)
	list, ok := nh["next-hop-list"].(obj)
	if !ok {
		first := obj{"index": "0"}
		for _, k := range []string{"next-hop-address", "outgoing-interface"} {
			if v, ok := nh[k]; ok {
				first[k] = v
			}
		}
		list = obj{"next-hop": []any{first}}
		e["next-hop"] = obj{"next-hop-list": list}
	}
	hops := list["next-hop"].([]any)
	list["next-hop"] = append(hops, obj{"index": strconv.Itoa(len(hops)), "next-hop-address": r.NextHop.String(), "outgoing-interface": r.Interface})
}

func (d *Driver) ribs(dev topology.Device) []any {
	vrfs := []string{""}
	for _, v := range dev.VRFs {
		vrfs = append(vrfs, v.Name)
	}
	var out []any
	for _, vrf := range vrfs {
		for _, fam := range []int{4, 6} {
			routes, err := d.lab.net.Routes(d.name, vrf, fam)
			if err != nil {
				continue
			}
			var rl []any
			var last obj // the last active route's entry
			for i, r := range routes {
				if r.Active && last != nil && routes[i-1].Active && routes[i-1].Prefix == r.Prefix && r.NextHop.IsValid() {
					addNextHop(last, r)
					continue
				}
				e := obj{"destination-prefix": r.Prefix.String(), "route-preference": num(r.Preference),
					"source-protocol": sourceProtocol[r.Protocol], "metric": num(r.Metric)}
				if r.Active {
					e["active"] = []any{nil}
				}
				nh := obj{}
				if r.Discard {
					nh["special-next-hop"] = "blackhole"
				}
				if r.Interface != "" {
					nh["outgoing-interface"] = r.Interface
				}
				if r.NextHop.IsValid() {
					nh["next-hop-address"] = r.NextHop.String()
				}
				e["next-hop"] = nh
				rl = append(rl, e)
				last = nil
				if r.Active {
					last = e
				}
			}
			af := "ietf-routing:ipv" + strconv.Itoa(fam)
			rib := obj{"name": ribName(vrf, fam), "address-family": af}
			if len(rl) > 0 {
				rib["routes"] = obj{"route": rl}
			}
			out = append(out, rib)
		}
	}
	return out
}
