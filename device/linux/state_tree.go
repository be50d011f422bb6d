//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

type obj = map[string]any

func num(i int) float64 { return float64(i) }

func u64(v uint64) string { return strconv.FormatUint(v, 10) }

// Top-level members of the operational tree.
const (
	memInterfaces = "openconfig-interfaces:interfaces"
	memNetInst    = "openconfig-network-instance:network-instances"
	memRouting    = "ietf-routing:routing"
	memLLDP       = "openconfig-lldp:lldp"
)

// run runs argv (no shell, not in the namespace) and returns its output.
func (d *Driver) run(ctx context.Context, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	cmd := diag.Command(ctx, argv)
	stdout, stderr := diag.LimitedBuffer{Max: ExecMaxOutput}, diag.LimitedBuffer{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("linux: %s: %w", argv[0], ctx.Err())
	case stdout.Over:
		return "", fmt.Errorf("linux: %s: output larger than %d bytes", argv[0], ExecMaxOutput)
	case err != nil:
		return "", fmt.Errorf("linux: %s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// operational builds the device's state as one RFC 7951 tree, the same
// models and paths as the simulator: openconfig-interfaces (netlink),
// ietf-routing ribs (FRR's RIB, else the kernel's main table),
// openconfig-network-instance OSPF and BGP (FRR), openconfig-acl
// (nftables, state_nft.go) and openconfig-lldp (lldpd).
//
// top names the only top-level member needed ("" for all): the others
// are not read.
func (d *Driver) operational(ctx context.Context, top string) (map[string]any, error) {
	want := func(m string) bool { return top == "" || top == m }
	nl, err := d.readNetlink()
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	byIndex := map[int]string{}
	for _, i := range nl.Ifaces {
		names[i.Linux] = i.Name
		byIndex[i.Index] = i.Name
	}
	tree := obj{}
	if want(memInterfaces) {
		tree[memInterfaces] = interfacesTree(nl)
	}
	frr := d.hasFRR()
	if want(memRouting) {
		ribs, err := d.ribs(ctx, frr, names, byIndex)
		if err != nil {
			return nil, err
		}
		tree[memRouting] = obj{"ribs": obj{"rib": ribs}}
	}
	if frr && want(memNetInst) {
		var protos []any
		if o, ok, err := d.readOSPF(ctx); err != nil {
			return nil, err
		} else if ok {
			protos = append(protos, ospfTree(o, names))
		}
		if b, ok, err := d.readBGP(ctx); err != nil {
			return nil, err
		} else if ok {
			protos = append(protos, bgpTree(b))
		}
		if len(protos) > 0 {
			tree[memNetInst] = obj{"network-instance": []any{obj{"name": "default",
				"config": obj{"name": "default"}, "protocols": obj{"protocol": protos}}}}
		}
	}
	if want(memACL) {
		acl, err := d.acl(ctx, nl, names)
		switch {
		case err == nil:
			tree[memACL] = acl
		case top == memACL:
			return nil, err
		}
		// A whole-tree read goes on without the ACLs where nft cannot be
		// read (not installed, no privilege).
	}
	if want(memLLDP) {
		lldp, err := d.readLLDP(ctx)
		if err != nil {
			return nil, err
		}
		if len(lldp) > 0 {
			tree[memLLDP] = lldpTree(lldp, names)
		}
	}
	return tree, nil
}

// ifType names an interface's iana-if-type from its netlink type and name.
func ifType(i *nlIface) string {
	l := strings.ToLower(i.Name)
	switch {
	case i.Linux == "lo" || strings.HasPrefix(l, "loopback"):
		return "iana-if-type:softwareLoopback"
	case strings.HasPrefix(l, "vlan") || i.Type == "vlan":
		return "iana-if-type:l3ipvlan"
	case i.Type == "bridge":
		return "iana-if-type:bridge"
	case i.Type == "tun" || i.Type == "tuntap":
		return "iana-if-type:tunnel"
	}
	return "iana-if-type:ethernetCsmacd"
}

func ocOper(i *nlIface) string {
	switch {
	case i.OperUp:
		return "UP"
	case i.OperState == "lower-layer-down":
		return "LOWER_LAYER_DOWN"
	case i.OperState == "dormant":
		return "DORMANT"
	}
	return "DOWN"
}

// interfacesTree renders openconfig-interfaces from netlink.
func interfacesTree(nl *nlState) obj {
	var list []any
	for _, i := range nl.Ifaces {
		admin := "DOWN"
		if i.AdminUp {
			admin = "UP"
		}
		c := obj{"name": i.Name, "type": ifType(i), "mtu": num(i.MTU), "enabled": i.AdminUp}
		st := obj{"name": i.Name, "type": ifType(i), "mtu": num(i.MTU), "enabled": i.AdminUp,
			"admin-status": admin, "oper-status": ocOper(i), "ifindex": num(i.Index)}
		if i.Stats != nil {
			s := i.Stats
			st["counters"] = obj{"in-octets": u64(s.RxBytes), "out-octets": u64(s.TxBytes), "in-pkts": u64(s.RxPackets),
				"out-pkts": u64(s.TxPackets), "in-errors": u64(s.RxErrors), "out-errors": u64(s.TxErrors),
				"in-discards": u64(s.RxDropped), "out-discards": u64(s.TxDropped + i.QdiscDrops), "in-multicast-pkts": u64(s.Multicast)}
		}
		if i.Name != i.Linux {
			st["netmcp-linux-name"] = i.Linux
		}
		n := obj{"name": i.Name, "config": c, "state": st}
		var v4, v6 []any
		for _, a := range i.Addrs {
			ip := a.Addr().String()
			ac := obj{"ip": ip, "prefix-length": num(a.Bits())}
			e := obj{"ip": ip, "config": ac, "state": obj{"ip": ip, "prefix-length": num(a.Bits()), "origin": "STATIC"}}
			if a.Addr().Is4() {
				v4 = append(v4, e)
			} else {
				v6 = append(v6, e)
			}
		}
		var neigh []any
		for _, nb := range i.NeighborsV4 {
			ip := nb.IP.String()
			origin := "DYNAMIC"
			if nb.State&0x80 != 0 { // NUD_PERMANENT
				origin = "STATIC"
			}
			neigh = append(neigh, obj{"ip": ip, "state": obj{"ip": ip, "link-layer-address": nb.MAC, "origin": origin}})
		}
		if len(v4)+len(v6)+len(neigh) > 0 {
			sub := obj{"index": num(0), "config": obj{"index": num(0)}}
			if len(v4)+len(neigh) > 0 {
				ip4 := obj{}
				if len(v4) > 0 {
					ip4["addresses"] = obj{"address": v4}
				}
				if len(neigh) > 0 {
					ip4["neighbors"] = obj{"neighbor": neigh}
				}
				sub["ipv4"] = ip4
			}
			if len(v6) > 0 {
				sub["ipv6"] = obj{"addresses": obj{"address": v6}}
			}
			n["subinterfaces"] = obj{"subinterface": []any{sub}}
		}
		list = append(list, n)
	}
	return obj{"interface": list}
}

// ribs renders ietf-routing's RIBs: FRR's when it runs (every route with
// its protocol, preference and whether it is active), else the kernel's
// main table.
func (d *Driver) ribs(ctx context.Context, frr bool, names map[string]string, byIndex map[int]string) ([]any, error) {
	var out []any
	for _, fam := range []int{4, 6} {
		var rl []any
		if frr {
			routes, err := d.readRIB(ctx, fam)
			if err != nil {
				return nil, err
			}
			slices.SortStableFunc(routes, func(a, b frrRoute) int { return comparePrefix(a.Prefix, b.Prefix) })
			for _, r := range routes {
				p := frrProtocols[r.Protocol]
				if p == "" {
					p = "netmcp:" + r.Protocol
				}
				e := obj{"destination-prefix": r.Prefix, "route-preference": num(r.Distance), "source-protocol": p, "metric": num(r.Metric)}
				if r.Selected {
					e["active"] = []any{nil}
				}
				nh := obj{}
				for _, h := range r.Nexthops {
					if h.Recursive && len(r.Nexthops) > 1 {
						continue // the resolving next hop follows
					}
					if h.Blackhole || h.Type != "" {
						nh["special-next-hop"] = "blackhole"
					}
					if h.IP != "" {
						nh["next-hop-address"] = h.IP
					}
					if h.Interface != "" {
						if n := names[h.Interface]; n != "" {
							nh["outgoing-interface"] = n
						} else {
							nh["outgoing-interface"] = h.Interface
						}
					}
					break
				}
				e["next-hop"] = nh
				rl = append(rl, e)
			}
		} else {
			routes, err := d.readRoutes(fam, byIndex)
			if err != nil {
				return nil, err
			}
			for _, r := range routes {
				e := obj{"destination-prefix": r.Prefix.String(), "source-protocol": r.Protocol, "metric": num(r.Metric), "active": []any{nil}}
				nh := obj{}
				if r.Blackhole {
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
			}
		}
		rib := obj{"name": "ipv" + strconv.Itoa(fam) + "-master", "address-family": "ietf-routing:ipv" + strconv.Itoa(fam)}
		if len(rl) > 0 {
			rib["routes"] = obj{"route": rl}
		}
		out = append(out, rib)
	}
	return out, nil
}

func comparePrefix(a, b string) int {
	pa, ea := netip.ParsePrefix(a)
	pb, eb := netip.ParsePrefix(b)
	if ea != nil || eb != nil {
		return strings.Compare(a, b)
	}
	if c := pa.Addr().Compare(pb.Addr()); c != 0 {
		return c
	}
	return pa.Bits() - pb.Bits()
}

// ospfStates maps FRR's neighbour states to openconfig-ospf-types.
var ospfStates = map[string]string{"Full": "FULL", "ExStart": "EXSTART", "Exchange": "EXCHANGE", "Init": "INIT",
	"2-Way": "TWO_WAY", "Down": "DOWN", "Loading": "LOADING", "Attempt": "ATTEMPT"}

// ospfTree renders the OSPFv2 protocol entry.
func ospfTree(o frrOSPF, names map[string]string) obj {
	areas := map[string][]any{}
	var order []string
	ifNames := slices.Sorted(func(yield func(string) bool) {
		for k := range o.Interfaces {
			if !yield(k) {
				return
			}
		}
	})
	for _, linux := range ifNames {
		fi := o.Interfaces[linux]
		name := names[linux]
		if name == "" {
			name = linux
		}
		nt := "openconfig-ospf-types:BROADCAST_NETWORK"
		switch fi.NetworkType {
		case "POINTOPOINT":
			nt = "openconfig-ospf-types:POINT_TO_POINT_NETWORK"
		case "LOOPBACK":
			nt = "openconfig-ospf-types:LOOPBACK_NETWORK"
		}
		passive := fi.Passive || fi.NetworkType == "LOOPBACK"
		c := obj{"id": name, "network-type": nt, "metric": num(fi.Cost), "passive": passive}
		st := obj{"id": name, "network-type": nt, "metric": num(fi.Cost), "passive": passive, "priority": num(fi.Priority)}
		timers := obj{"hello-interval": num(fi.HelloMsecs / 1000), "dead-interval": num(fi.DeadSecs)}
		e := obj{"id": name, "config": c, "state": st, "timers": obj{"config": timers, "state": timers}}
		var nbs []any
		for _, n := range o.Neighbors {
			if ifn, _, _ := strings.Cut(n.IfaceName, ":"); ifn != linux {
				continue
			}
			word, _, _ := strings.Cut(n.State, "/")
			state := ospfStates[word]
			if state == "" {
				state = strings.ToUpper(word)
			}
			ns := obj{"router-id": n.RouterID, "priority": num(n.Priority), "adjacency-state": "openconfig-ospf-types:" + state,
				"neighbor-address": n.Address}
			if state != "FULL" {
				ns["netmcp-reason"] = "FRR reports " + n.State
			}
			nbs = append(nbs, obj{"router-id": n.RouterID, "state": ns})
		}
		if len(nbs) > 0 {
			e["neighbors"] = obj{"neighbor": nbs}
		}
		if _, ok := areas[fi.Area]; !ok {
			order = append(order, fi.Area)
		}
		areas[fi.Area] = append(areas[fi.Area], e)
	}
	var al []any
	for _, a := range order {
		al = append(al, obj{"identifier": a, "config": obj{"identifier": a}, "interfaces": obj{"interface": areas[a]}})
	}
	g := obj{"router-id": o.RouterID}
	return obj{"identifier": "openconfig-policy-types:OSPF", "name": "ospf",
		"config": obj{"identifier": "openconfig-policy-types:OSPF", "name": "ospf"},
		"ospfv2": obj{"global": obj{"config": g, "state": g}, "areas": obj{"area": al}}}
}

// bgpTree renders the BGP protocol entry.
func bgpTree(b frrBGP) obj {
	addrs := slices.Sorted(func(yield func(string) bool) {
		for k := range b.Neighbors {
			if !yield(k) {
				return
			}
		}
	})
	var nl []any
	for _, a := range addrs {
		n := b.Neighbors[a]
		c := obj{"neighbor-address": a, "peer-as": float64(n.RemoteAS), "enabled": !n.AdminShutDown}
		if n.Description != "" {
			c["description"] = n.Description
		}
		pt := "EXTERNAL"
		if n.Internal || n.RemoteAS == n.LocalAS {
			pt = "INTERNAL"
		}
		st := obj{"neighbor-address": a, "peer-as": float64(n.RemoteAS), "local-as": float64(n.LocalAS), "peer-type": pt,
			"session-state": strings.ToUpper(n.State), "enabled": !n.AdminShutDown}
		if n.Description != "" {
			st["description"] = n.Description
		}
		if n.EstablishedEpoch > 0 {
			st["last-established"] = u64(uint64(n.EstablishedEpoch) * 1_000_000_000)
		}
		if n.LastErrorCode != "" {
			if code, sub, err := bgpError(n.LastErrorCode); err == nil {
				recv := obj{}
				if code != "" {
					recv["last-notification-error-code"] = code
				}
				if sub != "" {
					recv["last-notification-error-subcode"] = sub
				}
				st["messages"] = obj{"received": recv}
			}
		}
		switch {
		case n.LastNotification != "":
			st["netmcp-last-error"] = n.LastNotification
		case !strings.EqualFold(n.State, "Established") && n.LastResetDueTo != "":
			st["netmcp-last-error"] = n.LastResetDueTo
		}
		e := obj{"neighbor-address": a, "config": c, "state": st}
		if af, ok := n.AddressFamilyInfo["ipv4Unicast"]; ok {
			pfx := obj{"received": num(af.Accepted), "sent": num(af.Sent), "installed": num(af.Accepted)}
			name := "openconfig-bgp-types:IPV4_UNICAST"
			e["afi-safis"] = obj{"afi-safi": []any{obj{"afi-safi-name": name, "state": obj{"afi-safi-name": name, "prefixes": pfx}}}}
		}
		nl = append(nl, e)
	}
	g := obj{"as": float64(b.AS), "router-id": b.RouterID}
	bgp := obj{"global": obj{"config": g, "state": g}}
	if len(nl) > 0 {
		bgp["neighbors"] = obj{"neighbor": nl}
	}
	return obj{"identifier": "openconfig-policy-types:BGP", "name": "bgp",
		"config": obj{"identifier": "openconfig-policy-types:BGP", "name": "bgp"}, "bgp": bgp}
}

// get serves Get from the live state: the operational and running
// datastores are both read from the system (netlink, FRR, lldpd); the
// running configuration as a separate datastore is not served yet.
func (d *Driver) get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch ds {
	case device.Operational, "":
	default:
		// A read-only driver has no configuration datastores (the
		// drivertest contract): FRR's configuration is not served as one yet.
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible,
			"datastore %q is not served by the linux driver: it is read-only and serves the operational state, read live from the system", ds).WithPath(path)
	}
	p, err := device.ParsePath(path)
	if err != nil {
		return nil, err
	}
	top := ""
	if len(p) > 0 {
		top = p[0].Module + ":" + p[0].Name
		if !slices.Contains([]string{memInterfaces, memNetInst, memRouting, memACL, memLLDP}, top) {
			return nil, netproto.Errorf(netproto.CodeConfigIncompatible,
				"the linux driver does not model %s (it serves %s)", top, strings.Join([]string{memInterfaces, memNetInst, memRouting, memACL, memLLDP}, ", ")).WithPath(path)
		}
	}
	tree, err := d.operational(ctx, top)
	if err != nil {
		return nil, err
	}
	v, err := yang.Get(tree, p)
	if errors.Is(err, yang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s in %s", device.ErrNotFound, p.String(), ds)
	}
	return v, err
}
