package sim

import (
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// This file logs every change of an OSPF adjacency or a BGP session with
// its reason, in each dialect's words (dialect.Syslog's BGPChanged and
// OSPFChanged: XR %ROUTING-BGP-5-ADJCHANGE and %ROUTING-OSPF-5-ADJCHG, VRP
// BGP/3/STATE_CHG_UPDATE and OSPF/6/NBR_CHANGE_E). The lab diffs Network.Adjacencies before and after
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
	ch := dialect.AdjacencyChange{Peer: a.Peer, Interface: a.Interface, Prev: prev, State: a.State, Reason: a.Reason}
	if a.Protocol == netsim.ProtoBGP {
		if c.dev.BGP != nil {
			if n, err := dialect.BGPPeer(c.dev.BGP, a.Peer, false); err == nil {
				ch.RemoteAS = n.RemoteAS
			}
		}
		d.logMessage(t, d.cli.Syslog().BGPChanged(ch))
		return
	}
	if it := c.iface(a.Interface, false); it != nil && it.OSPF != nil {
		ch.Area = dialect.DottedArea(it.OSPF.Area)
	}
	if ch.Reason == "" && a.State == netsim.OSPFFull {
		ch.Reason = "Loading Done"
	}
	d.logMessage(t, d.cli.Syslog().OSPFChanged(ch))
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
