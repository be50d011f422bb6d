package sim

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// vrpRoutingCommands are the huawei-vrp display commands of OSPF and BGP;
// cli_vrp.go puts them ahead of its own table.
func vrpRoutingCommands() []cliCommand {
	return []cliCommand{
		{[]string{"display", "bgp", "peer"}, snapCommand(vrpBGPPeer)},
		{[]string{"display", "bgp", "routing-table"}, snapCommand(vrpBGPRoutingTable)},
		{[]string{"display", "ospf", "peer", "brief"}, snapCommand(vrpOSPFPeerBrief)},
		{[]string{"display", "ospf", "peer"}, snapCommand(vrpOSPFPeer)},
		{[]string{"display", "ospf", "interface"}, snapCommand(vrpOSPFInterface)},
	}
}

// vrpOSPFHeader is the first lines of every "display ospf" table.
func vrpOSPFHeader(s routingSnap, what string) string {
	return fmt.Sprintf("\n\t OSPF Process 1 with Router ID %s\n\t\t %s\n", s.ospf.RouterID, what)
}

// vrpBGPPeer renders "display bgp peer [ADDRESS] [verbose]": the peer
// table (of one peer with an address), or with verbose the details.
func vrpBGPPeer(s routingSnap, args []string) (string, error) {
	addr, rest, err := peerArg(args, DialectVRP, "display bgp peer [ADDRESS] [verbose]")
	if err != nil {
		return "", err
	}
	if !s.bgp.Configured {
		return "", nil
	}
	if len(rest) > 0 {
		return vrpBGPPeerVerbose(s, addr)
	}
	peers := s.bgp.Neighbors
	if addr.IsValid() {
		n, err := s.findPeer(addr, DialectVRP)
		if err != nil {
			return "", err
		}
		peers = []netsim.BGPNeighbor{n}
	}
	var b strings.Builder
	est := 0
	for _, n := range s.bgp.Neighbors {
		if n.State == netsim.BGPEstablished {
			est++
		}
	}
	fmt.Fprintf(&b, "\n BGP local router ID : %s\n Local AS number : %d\n", s.bgp.RouterID, s.bgp.ASN)
	fmt.Fprintf(&b, " Total number of peers : %-18dPeers in established state : %d\n\n", len(s.bgp.Neighbors), est)
	fmt.Fprintf(&b, "  %-16s%-1s%12s%9s%9s%6s%9s%12s%9s\n", "Peer", "V", "AS", "MsgRcvd", "MsgSent", "OutQ", "Up/Down", "State", "PrefRcv")
	for _, n := range peers {
		rcvd, sent := s.bgpMessages(n)
		fmt.Fprintf(&b, "  %-16s%-1d%12d%9d%9d%6d%9s%12s%9d\n", n.Address, 4, n.RemoteAS, rcvd, sent, 0,
			upDownTime(s.since(n.Since)), vrpPeerState(n), n.PrefixesReceived)
	}
	return b.String(), nil
}

// vrpPeerState is a peer's state as VRP prints it.
func vrpPeerState(n netsim.BGPNeighbor) string {
	if n.AdminDown {
		return "Idle(Admin)"
	}
	return n.State
}

// vrpBGPPeerVerbose renders "display bgp peer ADDRESS verbose" (every
// peer without an address).
func vrpBGPPeerVerbose(s routingSnap, addr netip.Addr) (string, error) {
	peers := s.bgp.Neighbors
	if addr.IsValid() {
		n, err := s.findPeer(addr, DialectVRP)
		if err != nil {
			return "", err
		}
		peers = []netsim.BGPNeighbor{n}
	}
	var b strings.Builder
	for _, n := range peers {
		link := "EBGP link"
		if n.Internal {
			link = "IBGP link"
		}
		fmt.Fprintf(&b, "\n BGP Peer is %s, remote AS %d\n Type: %s\n", n.Address, n.RemoteAS, link)
		if n.Description != "" {
			fmt.Fprintf(&b, " Peer's description: \"%s\"\n", n.Description)
		}
		rid := "0.0.0.0"
		if n.RemoteRouterID.IsValid() {
			rid = n.RemoteRouterID.String()
		}
		fmt.Fprintf(&b, " BGP version 4, Remote router ID %s\n", rid)
		fmt.Fprintf(&b, " BGP current state: %s, %s for %s\n", vrpPeerState(n),
			map[bool]string{true: "Up", false: "Down"}[n.State == netsim.BGPEstablished], vrpDuration(s.since(n.Since)))
		fmt.Fprintf(&b, " Received total routes: %d\n Received active routes total: %d\n Advertised total routes: %d\n",
			n.PrefixesReceived, n.PrefixesAccepted, n.PrefixesSent)
		if n.LocalAddress.IsValid() {
			b.WriteString(" Port: Local - 179 Remote - 179\n")
		}
		fmt.Fprintf(&b, " Configured: Active Hold Time: %d sec Keepalive Time:%d sec\n", cmpPos(n.Hold, 180), cmpPos(n.Keepalive, 60))
		rcvd, sent := s.bgpMessages(n)
		fmt.Fprintf(&b, " Received: Total %d messages\n Sent: Total %d messages\n", rcvd, sent)
		if n.LastError != "" {
			fmt.Fprintf(&b, " Last error: %s\n", n.LastError)
		}
		if n.AdminDown {
			b.WriteString(" Peer's state is ignored (peer ignore)\n")
		}
	}
	return b.String(), nil
}

// cmpPos is v when positive, else def.
func cmpPos(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// vrpBGPRoutingTable renders "display bgp routing-table".
func vrpBGPRoutingTable(s routingSnap, args []string) (string, error) {
	if len(args) > 0 {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (huawei-vrp: display bgp routing-table)", strings.Join(args, " "))
	}
	if !s.bgp.Configured {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n BGP Local router ID is %s\n", s.bgp.RouterID)
	b.WriteString(" Status codes: * - valid, > - best, d - damped, x - best external, a - add path,\n" +
		"               h - history,  i - internal, s - suppressed, S - Stale\n" +
		"               Origin : i - IGP, e - EGP, ? - incomplete\n" +
		" RPKI validation codes: V - valid, I - invalid, N - not-found\n\n")
	fmt.Fprintf(&b, "\n Total Number of Routes: %d\n", len(s.routes))
	fmt.Fprintf(&b, "        %-19s%-15s%-11s%-10s%-8s%s\n\n", "Network", "NextHop", "MED", "LocPrf", "PrefVal", "Path/Ogn")
	for _, r := range s.routes {
		st := bgpStatus(r)
		if r.Internal {
			st += "i"
		}
		lp := ""
		if r.Internal || r.LocalPref != 100 && r.LocalPref != 0 {
			lp = fmt.Sprint(r.LocalPref)
		}
		nh := "0.0.0.0"
		if r.NextHop.IsValid() {
			nh = r.NextHop.String()
		}
		fmt.Fprintf(&b, " %-7s%-19s%-15s%-11d%-10s%-8d%s\n", st, r.Prefix, nh, r.MED, lp, 0, asPath(r))
	}
	return b.String(), nil
}

// vrpOSPFPeerBrief renders "display ospf peer brief".
func vrpOSPFPeerBrief(s routingSnap, args []string) (string, error) {
	if len(args) > 0 {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (huawei-vrp: display ospf peer brief)", strings.Join(args, " "))
	}
	if !s.ospf.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(vrpOSPFHeader(s, " Peer Statistic Information"))
	line := " " + strings.Repeat("-", 76) + "\n"
	b.WriteString(line)
	fmt.Fprintf(&b, " %-17s%-33s%-17s%-9s\n", "Area Id", "Interface", "Neighbor id", "State")
	for _, n := range s.ospf.Neighbors {
		oi, _ := s.ospfIface(n.Interface)
		fmt.Fprintf(&b, " %-17s%-33s%-17s%-9s\n", oi.Area, n.Interface, n.NeighborID, n.State)
	}
	b.WriteString(line)
	fmt.Fprintf(&b, " Total Peer(s): %5d\n", len(s.ospf.Neighbors))
	return b.String(), nil
}

// vrpOSPFPeer renders "display ospf peer".
func vrpOSPFPeer(s routingSnap, args []string) (string, error) {
	if len(args) > 0 {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (huawei-vrp: display ospf peer [brief])", strings.Join(args, " "))
	}
	if !s.ospf.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(vrpOSPFHeader(s, "Neighbors "))
	for _, oi := range s.ospf.Interfaces {
		ns := s.neighborsOn(oi.Interface)
		if len(ns) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n Area %s interface %s(%s)'s neighbors\n", oi.Area, s.ifAddr(oi).Addr(), oi.Interface)
		for _, n := range ns {
			fmt.Fprintf(&b, " Router ID: %-16s Address: %-16s GR State: Normal\n", n.NeighborID, n.Address)
			fmt.Fprintf(&b, "   State: %s  Mode:Nbr is  %s  Priority: %d\n", n.State, map[bool]string{true: "Master", false: "Slave"}[n.NeighborID.Compare(s.ospf.RouterID) > 0], n.Priority)
			dr, bdr := "None", "None"
			if oi.DR.IsValid() {
				dr = oi.DR.String()
			}
			if oi.BDR.IsValid() {
				bdr = oi.BDR.String()
			}
			fmt.Fprintf(&b, "   DR: %s   BDR: %s   MTU: %d    \n", dr, bdr, oi.MTU)
			fmt.Fprintf(&b, "   Dead timer due in %d  sec \n   Retrans timer interval: 5 \n", s.ospfDeadDue(n))
			fmt.Fprintf(&b, "   Neighbor is up for %s     \n", fmtDuration(s.since(n.Since)))
			if n.Reason != "" {
				fmt.Fprintf(&b, "   Reason: %s\n", n.Reason)
			}
			b.WriteString("   Authentication Sequence: [ 0 ] \n")
		}
	}
	return b.String(), nil
}

// vrpOSPFIfType and vrpOSPFIfState are the Type and State columns.
var (
	vrpOSPFIfType  = map[string]string{"point-to-point": "P2P", "broadcast": "Broadcast"}
	vrpOSPFIfState = map[string]string{"Point-To-Point": "P-2-P", "Loopback": "P-2-P", "DR": "DR", "Backup": "BDR", "DROther": "DROther", "Down": "Down"}
)

// vrpOSPFInterface renders "display ospf interface".
func vrpOSPFInterface(s routingSnap, args []string) (string, error) {
	if len(args) > 0 {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (huawei-vrp: display ospf interface)", strings.Join(args, " "))
	}
	if !s.ospf.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(vrpOSPFHeader(s, "Interfaces "))
	for _, area := range s.ospf.Areas {
		fmt.Fprintf(&b, "\n Area: %-16s (MPLS TE not enabled)\n", area)
		fmt.Fprintf(&b, " %-16s%-13s%-9s%-8s%-6s%-16s%s\n", "IP Address", "Type", "State", "Cost", "Pri", "DR", "BDR")
		for _, oi := range s.ospf.Interfaces {
			if oi.Area != area {
				continue
			}
			typ := vrpOSPFIfType[oi.NetworkType]
			if typ == "" {
				typ = oi.NetworkType
			}
			st := vrpOSPFIfState[oi.State]
			if st == "" {
				st = oi.State
			}
			dr, bdr := "0.0.0.0", "0.0.0.0"
			if oi.DR.IsValid() {
				dr = oi.DR.String()
			}
			if oi.BDR.IsValid() {
				bdr = oi.BDR.String()
			}
			fmt.Fprintf(&b, " %-16s%-13s%-9s%-8d%-6d%-16s%s\n", s.ifAddr(oi).Addr(), typ, st, oi.Cost, s.priority(oi.Interface), dr, bdr)
		}
	}
	return b.String(), nil
}

// vrpDuration prints a time in state as VRP's verbose output does: 00h57m53s.
func vrpDuration(d time.Duration) string {
	d = d.Truncate(time.Second)
	return fmt.Sprintf("%02dh%02dm%02ds", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// vrpProtoNamer returns the Proto column of VRP's routing table for the
// routes of a table (the global one has BGP routes).
func (v *view) vrpProtoNamer(vrf string, fam int) func(r netsim.Route) string {
	var routes []netsim.BGPRoute
	if vrf == "" {
		routes, _ = v.d.lab.net.BGPRoutes(v.d.name, fam)
	}
	return vrpProtoNames(routes)
}

// vrpProtoNames names a route's protocol as VRP's routing table does: a
// BGP route is EBGP or IBGP after the best path of its prefix in the BGP
// table, the others as vrpProto names them.
func vrpProtoNames(bgp []netsim.BGPRoute) func(r netsim.Route) string {
	internal := map[netip.Prefix]bool{}
	for _, r := range bgp {
		if r.Best {
			internal[r.Prefix] = r.Internal
		}
	}
	return func(r netsim.Route) string {
		if r.Protocol != netsim.ProtoBGP {
			return vrpProto[r.Protocol]
		}
		if internal[r.Prefix] {
			return "IBGP"
		}
		return "EBGP"
	}
}
