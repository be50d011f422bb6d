package sim

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/yang"
)

// This file adds the OSPF and BGP state of the model to the operational
// tree: under the default network-instance's protocols, next to their
// configuration (docs/datamodel.md; the paths of COMMON.md).

// bgpNotification maps FRR's words of a NOTIFICATION ("Code/Subcode") to
// openconfig-bgp-types identities.
var (
	bgpErrorCodes = map[string]string{
		"Message Header Error": "MESSAGE_HEADER_ERROR", "OPEN Message Error": "OPEN_MESSAGE_ERROR",
		"UPDATE Message Error": "UPDATE_MESSAGE_ERROR", "Hold Timer Expired": "HOLD_TIMER_EXPIRED",
		"Neighbor Events Error": "FSM_ERROR", "Finite State Machine Error": "FSM_ERROR", "Cease": "CEASE",
	}
	bgpErrorSubcodes = map[string]string{
		"Unsupported Version Number": "UNSUPPORTED_VERSION_NUMBER", "Bad Peer AS": "BAD_PEER_AS",
		"Bad BGP Identifier": "BAD_BGP_IDENTIFIER", "Unsupported Optional Parameter": "UNSUPPORTED_OPTIONAL_PARAMETER",
		"Unacceptable Hold Time": "UNACCEPTABLE_HOLD_TIME", "Maximum Number of Prefixes Reached": "MAX_PRFX_REACHED",
		"Administrative Shutdown": "ADMIN_SHUTDOWN", "Administratively Shutdown": "ADMIN_SHUTDOWN",
		"Peer De-configured": "PEER_DECONFIGURED", "Connection Rejected": "CONNECTION_REJECTED", "Unspecific": "UNSPECIFIC",
	}
	ospfAdjStates = map[string]string{
		netsim.OSPFDown: "DOWN", netsim.OSPFInit: "INIT", netsim.OSPF2Way: "TWO_WAY", netsim.OSPFExStart: "EXSTART",
		netsim.OSPFExchange: "EXCHANGE", netsim.OSPFLoading: "LOADING", netsim.OSPFFull: "FULL",
	}
)

// bgpErrorIdentities returns the code and subcode identities of a last
// error, "" when it is not a NOTIFICATION (e.g. "Waiting for NHT").
func bgpErrorIdentities(lastError string) (code, subcode string) {
	c, s, _ := strings.Cut(lastError, "/")
	if id := bgpErrorCodes[strings.TrimSpace(c)]; id != "" {
		code = "openconfig-bgp-types:" + id
	}
	if id := bgpErrorSubcodes[strings.TrimSpace(s)]; id != "" && code != "" {
		subcode = "openconfig-bgp-types:" + id
	}
	return code, subcode
}

// addRoutingState puts the model's OSPF and BGP state into tree (the
// running configuration being made operational).
func (d *Driver) addRoutingState(tree map[string]any) {
	var def map[string]any
	for _, ni := range yang.List(at(tree, memNetInst, "network-instance")) {
		if m, ok := ni.(map[string]any); ok && yang.String(m["name"]) == defaultNI {
			def = m
		}
	}
	if def == nil {
		return
	}
	for _, p := range yang.List(at(def, "protocols", "protocol")) {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		switch identName(yang.String(m["identifier"])) {
		case "BGP":
			if st, err := d.lab.net.BGP(d.name); err == nil && st.Configured {
				bgpState(m, st)
			}
		case "OSPF":
			if st, err := d.lab.net.OSPF(d.name); err == nil && st.Configured {
				ospfState(m, st)
			}
		}
	}
}

// nanos writes a time as openconfig's timeticks64 (ns since the epoch).
func nanos(t interface{ UnixNano() int64 }) string { return strconv.FormatInt(t.UnixNano(), 10) }

func bgpState(p map[string]any, st netsim.BGPState) {
	bgp := subObj(p, "bgp")
	global := subObj(bgp, "global")
	gs := obj{"as": num(int(st.ASN))}
	if st.RouterID.IsValid() {
		gs["router-id"] = st.RouterID.String()
	}
	global["state"] = gs
	neighbors := subObj(bgp, "neighbors")
	entries := yang.List(neighbors["neighbor"])
	for _, n := range st.Neighbors {
		e := findKeyed(&entries, "neighbor-address", n.Address.String())
		s := obj{"neighbor-address": n.Address.String(), "peer-as": num(int(n.RemoteAS)), "local-as": num(int(n.LocalAS)),
			"enabled": !n.AdminDown, "session-state": strings.ToUpper(n.State)}
		s["peer-type"] = "EXTERNAL"
		if n.Internal {
			s["peer-type"] = "INTERNAL"
		}
		if n.Description != "" {
			s["description"] = n.Description
		}
		if n.State == netsim.BGPEstablished && !n.Since.IsZero() {
			s["last-established"] = nanos(n.Since)
		}
		if n.RemoteRouterID.IsValid() {
			s["netmcp-remote-router-id"] = n.RemoteRouterID.String()
		}
		if n.LastError != "" {
			s["netmcp-last-error"] = n.LastError
			code, sub := bgpErrorIdentities(n.LastError)
			if code != "" {
				note := obj{"last-notification-error-code": code}
				if sub != "" {
					note["last-notification-error-subcode"] = sub
				}
				dir := "received"
				if n.LastErrorSent {
					dir = "sent"
				}
				s["messages"] = obj{dir: note}
			}
		}
		e["state"] = s
		if n.Keepalive > 0 || n.Hold > 0 {
			subObj(e, "timers")["state"] = obj{"keepalive-interval": num(n.Keepalive), "hold-time": num(n.Hold), "negotiated-hold-time": num(n.Hold)}
		}
		if n.LocalAddress.IsValid() {
			subObj(e, "transport")["state"] = obj{"local-address": n.LocalAddress.String()}
		}
		af := afiIPv4Unicast
		if n.Address.Is6() {
			af = afiIPv6Unicast
		}
		afs := subObj(e, "afi-safis")
		al := yang.List(afs["afi-safi"])
		a := findKeyed(&al, "afi-safi-name", af)
		a["state"] = obj{"afi-safi-name": af, "enabled": true, "active": n.State == netsim.BGPEstablished,
			"prefixes": obj{"received": num(n.PrefixesReceived), "sent": num(n.PrefixesSent), "installed": num(n.PrefixesAccepted)}}
		afs["afi-safi"] = al
	}
	neighbors["neighbor"] = entries
}

func ospfState(p map[string]any, st netsim.OSPFState) {
	v2 := subObj(p, "ospfv2")
	if st.RouterID.IsValid() {
		subObj(v2, "global")["state"] = obj{"router-id": st.RouterID.String()}
	}
	areas := subObj(v2, "areas")
	al := yang.List(areas["area"])
	for _, oi := range st.Interfaces {
		area := findKeyed(&al, "identifier", oi.Area)
		area["state"] = obj{"identifier": oi.Area}
		ifs := subObj(area, "interfaces")
		il := yang.List(ifs["interface"])
		e := findKeyed(&il, "id", oi.Interface)
		s := obj{"id": oi.Interface, "metric": num(oi.Cost), "passive": oi.Passive, "netmcp-state": oi.State, "netmcp-oper-up": oi.Up}
		switch oi.NetworkType {
		case "point-to-point":
			s["network-type"] = ospfP2P
		case "broadcast":
			s["network-type"] = ospfBroadcast
		}
		e["state"] = s
		subObj(e, "timers")["state"] = obj{"hello-interval": num(oi.Hello), "dead-interval": num(oi.Dead)}
		var nl []any
		for _, n := range st.Neighbors {
			if n.Interface != oi.Interface {
				continue
			}
			ns := obj{"router-id": n.NeighborID.String(), "priority": num(n.Priority),
				"adjacency-state": "openconfig-ospf-types:" + ospfAdjStates[n.State]}
			if n.Address.IsValid() {
				ns["neighbor-address"] = n.Address.String()
			}
			if n.Reason != "" {
				ns["netmcp-reason"] = n.Reason
			}
			if n.Role != "" {
				ns["netmcp-role"] = n.Role
			}
			if n.State == netsim.OSPFFull && !n.Since.IsZero() {
				ns["last-established-time"] = nanos(n.Since)
			}
			nl = append(nl, obj{"router-id": n.NeighborID.String(), "state": ns})
		}
		if len(nl) > 0 {
			e["neighbors"] = obj{"neighbor": nl}
		}
		ifs["interface"] = il
	}
	areas["area"] = al
}

// subObj returns m[k] as an object, creating it.
func subObj(m map[string]any, k string) map[string]any {
	if v, ok := m[k].(map[string]any); ok {
		return v
	}
	v := obj{}
	m[k] = v
	return v
}

// findKeyed returns the entry of *l whose key member is val, appending a
// new entry (with the key) when there is none.
func findKeyed(l *[]any, key, val string) map[string]any {
	for _, e := range *l {
		if m, ok := e.(map[string]any); ok && yang.String(m[key]) == val {
			return m
		}
	}
	// Keys the model and the configuration spell differently (an IPv6
	// address, an area) are compared as addresses.
	if a, err := netip.ParseAddr(val); err == nil {
		for _, e := range *l {
			if m, ok := e.(map[string]any); ok {
				if b, err := netip.ParseAddr(yang.String(m[key])); err == nil && a == b {
					return m
				}
			}
		}
	}
	m := obj{key: val}
	*l = append(*l, m)
	return m
}
