package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// This file logs every change of an OSPF adjacency or a BGP session with
// its reason, in each dialect's words (XR %ROUTING-BGP-5-ADJCHANGE and
// %ROUTING-OSPF-5-ADJCHG, VRP BGP/3/STATE_CHG_UPDATE and
// OSPF/6/NBR_CHANGE_E). The lab diffs Network.Adjacencies before and after
// every change of the model (lab.go's diffStates).

// adjKey identifies an adjacency across snapshots.
func adjKey(a netsim.AdjacencyStatus) string {
	return a.Device + "|" + a.Protocol + "|" + a.Peer + "|" + a.Interface
}

// diffAdjacencies logs the adjacencies that changed since the last call
// (quiet: just record them). The caller holds l.mu.
func (l *Lab) diffAdjacencies(now time.Time, quiet bool) {
	l.applyAdjacencies(now, l.net.Adjacencies(), quiet)
}

// applyAdjacencies compares cur with the adjacencies last seen, has the
// devices log each change, and remembers cur.
func (l *Lab) applyAdjacencies(now time.Time, cur []netsim.AdjacencyStatus, quiet bool) {
	next := make(map[string]netsim.AdjacencyStatus, len(cur))
	for _, a := range cur {
		k := adjKey(a)
		next[k] = a
		old, seen := l.adj[k]
		if quiet || (seen && old.State == a.State && old.Reason == a.Reason) {
			continue
		}
		if !seen {
			old = netsim.AdjacencyStatus{State: downState(a.Protocol)}
			if a.State == old.State && a.Reason == "" {
				continue // a new peer that is simply down: nothing happened yet
			}
		}
		if drv := l.drivers[a.Device]; drv != nil {
			drv.adjacencyChanged(now, old.State, a)
		}
	}
	if !quiet {
		for k, old := range l.adj {
			if _, ok := next[k]; ok || old.State == downState(old.Protocol) {
				continue
			}
			gone := old
			gone.State = downState(old.Protocol)
			gone.Reason = "neighbor removed"
			if old.Protocol == netsim.ProtoBGP {
				gone.Reason = "Peer De-configured"
			}
			if drv := l.drivers[old.Device]; drv != nil {
				drv.adjacencyChanged(now, old.State, gone)
			}
		}
	}
	l.adj = next
}

// downState is the state of an adjacency that is not there.
func downState(proto string) string {
	if proto == netsim.ProtoBGP {
		return netsim.BGPIdle
	}
	return netsim.OSPFDown
}

// adjacencyChanged logs one adjacency's change from state prev to a.
func (d *Driver) adjacencyChanged(t time.Time, prev string, a netsim.AdjacencyStatus) {
	c := d.config()
	if a.Protocol == netsim.ProtoBGP {
		var remoteAS uint32
		if c.dev.BGP != nil {
			if n, err := bgpPeer(c.dev.BGP, a.Peer, false); err == nil {
				remoteAS = n.RemoteAS
			}
		}
		d.bgpChanged(t, prev, a, remoteAS)
		return
	}
	area := ""
	if it := c.iface(a.Interface, false); it != nil && it.OSPF != nil {
		area = dottedArea(it.OSPF.Area)
	}
	d.ospfChanged(t, prev, a, area)
}

func (d *Driver) bgpChanged(t time.Time, prev string, a netsim.AdjacencyStatus, remoteAS uint32) {
	up := a.State == netsim.BGPEstablished
	wasUp := prev == netsim.BGPEstablished
	reason := a.Reason
	if d.dialect == DialectVRP {
		if reason == "" {
			reason = map[bool]string{true: "Established", false: "None"}[up]
		}
		d.logf(t, 3, "BGP", "STATE_CHG_UPDATE",
			"The BGP peer state changed. (PeerAddress=%s, VpnInstance=_public_, PrevState=%s, CurrState=%s, Reason=%s)",
			a.Peer, prev, a.State, reason)
		return
	}
	tail := " (VRF: default) (AS: " + itoaU(remoteAS) + ")"
	switch {
	case up && !wasUp:
		d.logf(t, 5, "ROUTING-BGP", "ADJCHANGE", "neighbor %s Up%s", a.Peer, tail)
	case wasUp && !up:
		d.logf(t, 5, "ROUTING-BGP", "ADJCHANGE", "neighbor %s Down - %s%s", a.Peer, orText(reason, "session closed"), tail)
	default:
		// Neither up nor down: the session moved between the states that
		// lead to Established, or failed again for a (new) reason.
		d.logf(t, 5, "ROUTING-BGP", "ADJCHANGE_DETAIL", "neighbor %s %s - %s%s", a.Peer, a.State, orText(reason, "state change from "+prev), tail)
	}
}

func (d *Driver) ospfChanged(t time.Time, prev string, a netsim.AdjacencyStatus, area string) {
	reason := a.Reason
	if reason == "" && a.State == netsim.OSPFFull {
		reason = "Loading Done"
	}
	if d.dialect == DialectVRP {
		addr := a.Peer
		d.logf(t, 6, "OSPF", "NBR_CHANGE_E",
			"Neighbor changes event: neighbor status changed. (ProcessId=1, NeighborAddress=%s, NeighborEvent=%s, NeighborPreviousState=%s, NeighborCurrentState=%s)",
			addr, orText(reason, "StateChange"), prev, a.State)
		return
	}
	areaText := area
	if areaText == "" {
		areaText = "?"
	} else {
		areaText = areaNumber(area)
	}
	d.logf(t, 5, "ROUTING-OSPF", "ADJCHG", "Process 1, Nbr %s on %s in area %s from %s to %s, %s, vrf default vrfid 0x60000000",
		a.Peer, a.Interface, areaText, strings.ToUpper(prev), strings.ToUpper(a.State), orText(reason, "state change"))
}

// orText is s, or def when s is empty.
func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// itoaU formats an AS number ("?" when unknown).
func itoaU(n uint32) string {
	if n == 0 {
		return "?"
	}
	return strconv.FormatUint(uint64(n), 10)
}

// bootAdjacencyLog logs, after the boot messages, the adjacencies and
// sessions the device has at start-up (the lab records them quietly while
// it builds the model), as a router logs its sessions coming up.
func (d *Driver) bootAdjacencyLog() {
	d.lab.mu.Lock()
	var mine []netsim.AdjacencyStatus
	for _, a := range d.lab.adj {
		if a.Device == d.name && (a.State != downState(a.Protocol) || a.Reason != "") {
			mine = append(mine, a)
		}
	}
	d.lab.mu.Unlock()
	slices.SortFunc(mine, func(a, b netsim.AdjacencyStatus) int { return strings.Compare(adjKey(a), adjKey(b)) })
	t := d.lab.opts.Now()
	for _, a := range mine {
		d.adjacencyChanged(t, downState(a.Protocol), a)
	}
}
