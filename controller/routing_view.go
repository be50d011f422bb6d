package controller

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/yang"
)

// bgpView is a device's BGP process as its YANG tree reports it.
type bgpView struct {
	AS        int64
	RouterID  string
	Neighbors []bgpNeighbor
	// Networks are the prefixes the process originates (netmcp-networks
	// of the IPv4 unicast AFI; nil when the device does not report them).
	Networks []string
}

// bgpNeighbor is one configured BGP neighbour and its session.
type bgpNeighbor struct {
	Address   string
	PeerAS    int64 // configured remote AS
	LocalAS   int64
	PeerType  string
	Enabled   bool
	State     string // IDLE ... ESTABLISHED
	ErrCode   string // last notification error code (identity, no prefix)
	ErrSub    string
	LastError string // FRR's text (netmcp-last-error)
	Received  int64
	Sent      int64
	Installed int64
}

// Established tells whether the session is up.
func (n bgpNeighbor) Established() bool { return n.State == "ESTABLISHED" }

// ospfView is a device's OSPFv2 process.
type ospfView struct {
	RouterID   string
	Interfaces []ospfIface
}

// ospfIface is an interface in an OSPF area.
type ospfIface struct {
	Name, Area, NetType string
	Passive             bool
	Hello, Dead         int64
	// DaemonDown is set when the OSPF process reports the interface down
	// (netmcp-oper-up false): compared with the interface's own state, it
	// tells a dead routing daemon from a dead link.
	DaemonDown bool
	Neighbors  []ospfNeighbor
}

// ospfNeighbor is an adjacency seen on an interface.
type ospfNeighbor struct {
	RouterID, State, Reason string
}

// Iface returns the OSPF interface called name.
func (o *ospfView) Iface(name string) (ospfIface, bool) {
	for _, i := range o.Interfaces {
		if i.Name == name {
			return i, true
		}
	}
	return ospfIface{}, false
}

// protocols returns the protocol entries of the default network instance.
func protocols(data any) []map[string]any {
	var out []map[string]any
	for _, ni := range yang.List(yang.Member(data, "network-instance")) {
		name := yang.Text(yang.Object(ni)["name"])
		if name != "default" && !strings.EqualFold(name, "DEFAULT") {
			continue
		}
		for _, p := range yang.List(yang.Member(ni, "protocols", "protocol")) {
			if m := yang.Object(p); m != nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// parseBGP reads the BGP process of a get of pathNetInst (nil when none).
func parseBGP(data any) *bgpView {
	for _, p := range protocols(data) {
		if yang.Identity(p["identifier"]) != "BGP" {
			continue
		}
		b := yang.Object(yang.Member(p, "bgp"))
		if b == nil {
			continue
		}
		g := yang.Object(yang.Member(b, "global"))
		v := &bgpView{RouterID: yang.Text(yang.Leaf(g, "router-id"))}
		v.AS, _ = yang.Int(yang.Leaf(g, "as"))
		for _, af := range yang.List(yang.Member(g, "afi-safis", "afi-safi")) {
			if strings.HasSuffix(yang.Text(yang.Object(af)["afi-safi-name"]), "IPV4_UNICAST") {
				for _, x := range yang.List(yang.Leaf(yang.Object(af), "netmcp-networks")) {
					v.Networks = append(v.Networks, yang.Text(x))
				}
			}
		}
		for _, n := range yang.List(yang.Member(b, "neighbors", "neighbor")) {
			m := yang.Object(n)
			nb := bgpNeighbor{Address: yang.Text(m["neighbor-address"])}
			if nb.Address == "" {
				nb.Address = yang.Text(yang.Leaf(m, "neighbor-address"))
			}
			nb.PeerAS, _ = yang.Int(yang.Member(m, "config", "peer-as"))
			if nb.PeerAS == 0 {
				nb.PeerAS, _ = yang.Int(yang.Member(m, "state", "peer-as"))
			}
			nb.LocalAS, _ = yang.Int(yang.Member(m, "state", "local-as"))
			nb.PeerType = yang.Identity(yang.Member(m, "state", "peer-type"))
			en := yang.Leaf(m, "enabled")
			nb.Enabled = en == nil || en == true
			nb.State = strings.ToUpper(yang.Identity(yang.Member(m, "state", "session-state")))
			// The NOTIFICATION this router received, or sent (it expects another AS, its hold timer expired).
			dir := "received"
			if yang.Member(m, "state", "messages", "sent") != nil {
				dir = "sent"
			}
			nb.ErrCode = yang.Identity(yang.Member(m, "state", "messages", dir, "last-notification-error-code"))
			nb.ErrSub = yang.Identity(yang.Member(m, "state", "messages", dir, "last-notification-error-subcode"))
			nb.LastError = yang.Text(yang.Member(m, "state", "netmcp-last-error"))
			for _, af := range yang.List(yang.Member(m, "afi-safis", "afi-safi")) {
				if strings.HasSuffix(yang.Text(yang.Object(af)["afi-safi-name"]), "IPV4_UNICAST") {
					pf := yang.Object(yang.Member(af, "state", "prefixes"))
					nb.Received, _ = yang.Int(pf["received"])
					nb.Sent, _ = yang.Int(pf["sent"])
					nb.Installed, _ = yang.Int(pf["installed"])
				}
			}
			v.Neighbors = append(v.Neighbors, nb)
		}
		return v
	}
	return nil
}

// parseOSPF reads the OSPFv2 process of a get of pathNetInst (nil when none).
func parseOSPF(data any) *ospfView {
	for _, p := range protocols(data) {
		if yang.Identity(p["identifier"]) != "OSPF" {
			continue
		}
		o := yang.Object(yang.Member(p, "ospfv2"))
		if o == nil {
			continue
		}
		v := &ospfView{RouterID: yang.Text(yang.Leaf(yang.Object(yang.Member(o, "global")), "router-id"))}
		for _, a := range yang.List(yang.Member(o, "areas", "area")) {
			area := dottedArea(yang.Text(yang.Object(a)["identifier"]))
			for _, i := range yang.List(yang.Member(a, "interfaces", "interface")) {
				m := yang.Object(i)
				oi := ospfIface{Name: yang.Text(m["id"]), Area: area, NetType: yang.Identity(yang.Leaf(m, "network-type"))}
				oi.Passive = yang.Leaf(m, "passive") == true
				oi.DaemonDown = yang.Member(m, "state", "netmcp-oper-up") == false
				oi.Hello, _ = yang.Int(yang.Member(m, "timers", "config", "hello-interval"))
				if oi.Hello == 0 {
					oi.Hello, _ = yang.Int(yang.Member(m, "timers", "state", "hello-interval"))
				}
				oi.Dead, _ = yang.Int(yang.Member(m, "timers", "config", "dead-interval"))
				if oi.Dead == 0 {
					oi.Dead, _ = yang.Int(yang.Member(m, "timers", "state", "dead-interval"))
				}
				for _, n := range yang.List(yang.Member(m, "neighbors", "neighbor")) {
					nm := yang.Object(n)
					rid := yang.Text(nm["router-id"])
					if rid == "" {
						rid = yang.Text(yang.Member(nm, "state", "router-id"))
					}
					oi.Neighbors = append(oi.Neighbors, ospfNeighbor{RouterID: rid,
						State:  strings.ToUpper(yang.Identity(yang.Member(nm, "state", "adjacency-state"))),
						Reason: yang.Text(yang.Member(nm, "state", "netmcp-reason"))})
				}
				v.Interfaces = append(v.Interfaces, oi)
			}
		}
		return v
	}
	return nil
}

// dottedArea writes an OSPF area identifier in dotted form: OpenConfig
// allows the area as a number ("0") or dotted ("0.0.0.0"), and the rules
// compare areas between devices (the backbone is "0.0.0.0").
func dottedArea(id string) string {
	n, err := strconv.ParseUint(id, 10, 32)
	if err != nil {
		return id
	}
	return fmt.Sprintf("%d.%d.%d.%d", n>>24, n>>16&0xff, n>>8&0xff, n&0xff)
}
