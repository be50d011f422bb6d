package controller

import (
	"strings"
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
	for _, ni := range list(dig(data, "network-instance")) {
		name := str(obj(ni)["name"])
		if name != "default" && !strings.EqualFold(name, "DEFAULT") {
			continue
		}
		for _, p := range list(dig(ni, "protocols", "protocol")) {
			if m := obj(p); m != nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// parseBGP reads the BGP process of a get of pathNetInst (nil when none).
func parseBGP(data any) *bgpView {
	for _, p := range protocols(data) {
		if identity(p["identifier"]) != "BGP" {
			continue
		}
		b := obj(dig(p, "bgp"))
		if b == nil {
			continue
		}
		g := obj(dig(b, "global"))
		v := &bgpView{AS: integer(leaf(g, "as")), RouterID: str(leaf(g, "router-id"))}
		for _, af := range list(dig(g, "afi-safis", "afi-safi")) {
			if strings.HasSuffix(str(obj(af)["afi-safi-name"]), "IPV4_UNICAST") {
				for _, x := range list(leaf(obj(af), "netmcp-networks")) {
					v.Networks = append(v.Networks, str(x))
				}
			}
		}
		for _, n := range list(dig(b, "neighbors", "neighbor")) {
			m := obj(n)
			nb := bgpNeighbor{Address: str(m["neighbor-address"])}
			if nb.Address == "" {
				nb.Address = str(leaf(m, "neighbor-address"))
			}
			nb.PeerAS = integer(dig(m, "config", "peer-as"))
			if nb.PeerAS == 0 {
				nb.PeerAS = integer(dig(m, "state", "peer-as"))
			}
			nb.LocalAS = integer(dig(m, "state", "local-as"))
			nb.PeerType = identity(dig(m, "state", "peer-type"))
			en := leaf(m, "enabled")
			nb.Enabled = en == nil || en == true
			nb.State = strings.ToUpper(identity(dig(m, "state", "session-state")))
			// The NOTIFICATION this router received, or sent (it expects another AS, its hold timer expired).
			dir := "received"
			if dig(m, "state", "messages", "sent") != nil {
				dir = "sent"
			}
			nb.ErrCode = identity(dig(m, "state", "messages", dir, "last-notification-error-code"))
			nb.ErrSub = identity(dig(m, "state", "messages", dir, "last-notification-error-subcode"))
			nb.LastError = str(dig(m, "state", "netmcp-last-error"))
			for _, af := range list(dig(m, "afi-safis", "afi-safi")) {
				if strings.HasSuffix(str(obj(af)["afi-safi-name"]), "IPV4_UNICAST") {
					pf := obj(dig(af, "state", "prefixes"))
					nb.Received, nb.Sent, nb.Installed = integer(pf["received"]), integer(pf["sent"]), integer(pf["installed"])
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
		if identity(p["identifier"]) != "OSPF" {
			continue
		}
		o := obj(dig(p, "ospfv2"))
		if o == nil {
			continue
		}
		v := &ospfView{RouterID: str(leaf(obj(dig(o, "global")), "router-id"))}
		for _, a := range list(dig(o, "areas", "area")) {
			area := str(obj(a)["identifier"])
			for _, i := range list(dig(a, "interfaces", "interface")) {
				m := obj(i)
				oi := ospfIface{Name: str(m["id"]), Area: area, NetType: identity(leaf(m, "network-type"))}
				oi.Passive = leaf(m, "passive") == true
				oi.DaemonDown = dig(m, "state", "netmcp-oper-up") == false
				oi.Hello = integer(dig(m, "timers", "config", "hello-interval"))
				if oi.Hello == 0 {
					oi.Hello = integer(dig(m, "timers", "state", "hello-interval"))
				}
				oi.Dead = integer(dig(m, "timers", "config", "dead-interval"))
				if oi.Dead == 0 {
					oi.Dead = integer(dig(m, "timers", "state", "dead-interval"))
				}
				for _, n := range list(dig(m, "neighbors", "neighbor")) {
					nm := obj(n)
					rid := str(nm["router-id"])
					if rid == "" {
						rid = str(dig(nm, "state", "router-id"))
					}
					oi.Neighbors = append(oi.Neighbors, ospfNeighbor{RouterID: rid,
						State:  strings.ToUpper(identity(dig(nm, "state", "adjacency-state"))),
						Reason: str(dig(nm, "state", "netmcp-reason"))})
				}
				v.Interfaces = append(v.Interfaces, oi)
			}
		}
		return v
	}
	return nil
}
