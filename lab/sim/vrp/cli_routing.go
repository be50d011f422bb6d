package vrp

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// routingCommands are the huawei-vrp display commands of OSPF and BGP;
// cli.go puts them ahead of its own table.
func routingCommands() []dialect.Command {
	return []dialect.Command{
		dialect.Cmd("display bgp peer", dialect.RoutingCommand(bgpPeer)),
		dialect.Cmd("display bgp routing-table", dialect.RoutingCommand(bgpRoutingTable)),
		dialect.Cmd("display ospf peer brief", dialect.RoutingCommand(ospfPeerBrief)),
		dialect.Cmd("display ospf peer", dialect.RoutingCommand(ospfPeer)),
		dialect.Cmd("display ospf interface", dialect.RoutingCommand(ospfInterface)),
	}
}

// ospfHeader is the first lines of every "display ospf" table.
func ospfHeader(s dialect.Routing, what string) string {
	return fmt.Sprintf("\n\t OSPF Process 1 with Router ID %s\n\t\t %s\n", s.OSPF.RouterID, what)
}

// bgpPeer renders "display bgp peer [ADDRESS] [verbose]": the peer
// table (of one peer with an address), or with verbose the details.
func bgpPeer(s dialect.Routing, args []string) (string, error) {
	addr, rest, err := dialect.PeerArg(args, Name, "display bgp peer [ADDRESS] [verbose]")
	if err != nil {
		return "", err
	}
	if !s.BGP.Configured {
		return "", nil
	}
	if len(rest) > 0 {
		return bgpPeerVerbose(s, addr)
	}
	peers, err := s.Peers(addr, Name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	est := 0
	for _, n := range s.BGP.Neighbors {
		if n.State == netsim.BGPEstablished {
			est++
		}
	}
	fmt.Fprintf(&b, "\n BGP local router ID : %s\n Local AS number : %d\n", s.BGP.RouterID, s.BGP.ASN)
	fmt.Fprintf(&b, " Total number of peers : %-18dPeers in established state : %d\n\n", len(s.BGP.Neighbors), est)
	fmt.Fprintf(&b, "  %-16s%-1s%12s%9s%9s%6s%9s%12s%9s\n", "Peer", "V", "AS", "MsgRcvd", "MsgSent", "OutQ", "Up/Down", "State", "PrefRcv")
	for _, n := range peers {
		rcvd, sent := s.BGPMessages(n)
		fmt.Fprintf(&b, "  %-16s%-1d%12d%9d%9d%6d%9s%12s%9d\n", n.Address, 4, n.RemoteAS, rcvd, sent, 0,
			dialect.UpDownTime(s.Since(n.Since)), peerState(n), n.PrefixesReceived)
	}
	return b.String(), nil
}

// peerState is a peer's state as VRP prints it.
func peerState(n netsim.BGPNeighbor) string {
	if n.AdminDown {
		return "Idle(Admin)"
	}
	return n.State
}

// bgpPeerVerbose renders "display bgp peer ADDRESS verbose" (every
// peer without an address).
func bgpPeerVerbose(s dialect.Routing, addr netip.Addr) (string, error) {
	peers, err := s.Peers(addr, Name)
	if err != nil {
		return "", err
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
		fmt.Fprintf(&b, " BGP current state: %s, %s for %s\n", peerState(n),
			map[bool]string{true: "Up", false: "Down"}[n.State == netsim.BGPEstablished], duration(s.Since(n.Since)))
		fmt.Fprintf(&b, " Received total routes: %d\n Received active routes total: %d\n Advertised total routes: %d\n",
			n.PrefixesReceived, n.PrefixesAccepted, n.PrefixesSent)
		if n.LocalAddress.IsValid() {
			b.WriteString(" Port: Local - 179 Remote - 179\n")
		}
		fmt.Fprintf(&b, " Configured: Active Hold Time: %d sec Keepalive Time:%d sec\n", dialect.CmpPos(n.Hold, 180), dialect.CmpPos(n.Keepalive, 60))
		rcvd, sent := s.BGPMessages(n)
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

// bgpRoutingTable renders "display bgp routing-table".
func bgpRoutingTable(s dialect.Routing, args []string) (string, error) {
	if len(args) > 0 {
		return "", dialect.Errorf("unexpected %q (huawei-vrp: display bgp routing-table)", strings.Join(args, " "))
	}
	if !s.BGP.Configured {
		return "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n BGP Local router ID is %s\n", s.BGP.RouterID)
	b.WriteString(" Status codes: * - valid, > - best, d - damped, x - best external, a - add path,\n" +
		"               h - history,  i - internal, s - suppressed, S - Stale\n" +
		"               Origin : i - IGP, e - EGP, ? - incomplete\n" +
		" RPKI validation codes: V - valid, I - invalid, N - not-found\n\n")
	fmt.Fprintf(&b, "\n Total Number of Routes: %d\n", len(s.Routes))
	fmt.Fprintf(&b, "        %-19s%-15s%-11s%-10s%-8s%s\n\n", "Network", "NextHop", "MED", "LocPrf", "PrefVal", "Path/Ogn")
	for _, r := range s.Routes {
		st := dialect.BGPStatus(r)
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
		fmt.Fprintf(&b, " %-7s%-19s%-15s%-11d%-10s%-8d%s\n", st, r.Prefix, nh, r.MED, lp, 0, dialect.ASPath(r))
	}
	return b.String(), nil
}

// ospfPeerBrief renders "display ospf peer brief".
func ospfPeerBrief(s dialect.Routing, args []string) (string, error) {
	if len(args) > 0 {
		return "", dialect.Errorf("unexpected %q (huawei-vrp: display ospf peer brief)", strings.Join(args, " "))
	}
	if !s.OSPF.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(ospfHeader(s, " Peer Statistic Information"))
	line := " " + strings.Repeat("-", 76) + "\n"
	b.WriteString(line)
	fmt.Fprintf(&b, " %-17s%-33s%-17s%-9s\n", "Area Id", "Interface", "Neighbor id", "State")
	for _, n := range s.OSPF.Neighbors {
		oi, _ := s.OSPFIface(n.Interface)
		fmt.Fprintf(&b, " %-17s%-33s%-17s%-9s\n", oi.Area, n.Interface, n.NeighborID, n.State)
	}
	b.WriteString(line)
	fmt.Fprintf(&b, " Total Peer(s): %5d\n", len(s.OSPF.Neighbors))
	return b.String(), nil
}

// ospfPeer renders "display ospf peer".
func ospfPeer(s dialect.Routing, args []string) (string, error) {
	if len(args) > 0 {
		return "", dialect.Errorf("unexpected %q (huawei-vrp: display ospf peer [brief])", strings.Join(args, " "))
	}
	if !s.OSPF.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(ospfHeader(s, "Neighbors "))
	for _, oi := range s.OSPF.Interfaces {
		ns := s.NeighborsOn(oi.Interface)
		if len(ns) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n Area %s interface %s(%s)'s neighbors\n", oi.Area, s.IfAddr(oi).Addr(), oi.Interface)
		for _, n := range ns {
			fmt.Fprintf(&b, " Router ID: %-16s Address: %-16s GR State: Normal\n", n.NeighborID, n.Address)
			fmt.Fprintf(&b, "   State: %s  Mode:Nbr is  %s  Priority: %d\n", n.State, map[bool]string{true: "Master", false: "Slave"}[n.NeighborID.Compare(s.OSPF.RouterID) > 0], n.Priority)
			dr, bdr := "None", "None"
			if oi.DR.IsValid() {
				dr = oi.DR.String()
			}
			if oi.BDR.IsValid() {
				bdr = oi.BDR.String()
			}
			fmt.Fprintf(&b, "   DR: %s   BDR: %s   MTU: %d    \n", dr, bdr, oi.MTU)
			fmt.Fprintf(&b, "   Dead timer due in %d  sec \n   Retrans timer interval: 5 \n", s.OSPFDeadDue(n))
			fmt.Fprintf(&b, "   Neighbor is up for %s     \n", dialect.FmtDuration(s.Since(n.Since)))
			if n.Reason != "" {
				fmt.Fprintf(&b, "   Reason: %s\n", n.Reason)
			}
			b.WriteString("   Authentication Sequence: [ 0 ] \n")
		}
	}
	return b.String(), nil
}

// ospfIfType and ospfIfState are the Type and State columns.
var (
	ospfIfType  = map[string]string{"point-to-point": "P2P", "broadcast": "Broadcast"}
	ospfIfState = map[string]string{"Point-To-Point": "P-2-P", "Loopback": "P-2-P", "DR": "DR", "Backup": "BDR", "DROther": "DROther", "Down": "Down"}
)

// ospfInterface renders "display ospf interface".
func ospfInterface(s dialect.Routing, args []string) (string, error) {
	if len(args) > 0 {
		return "", dialect.Errorf("unexpected %q (huawei-vrp: display ospf interface)", strings.Join(args, " "))
	}
	if !s.OSPF.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString(ospfHeader(s, "Interfaces "))
	for _, area := range s.OSPF.Areas {
		fmt.Fprintf(&b, "\n Area: %-16s (MPLS TE not enabled)\n", area)
		fmt.Fprintf(&b, " %-16s%-13s%-9s%-8s%-6s%-16s%s\n", "IP Address", "Type", "State", "Cost", "Pri", "DR", "BDR")
		for _, oi := range s.OSPF.Interfaces {
			if oi.Area != area {
				continue
			}
			typ := ospfIfType[oi.NetworkType]
			if typ == "" {
				typ = oi.NetworkType
			}
			st := ospfIfState[oi.State]
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
			fmt.Fprintf(&b, " %-16s%-13s%-9s%-8d%-6d%-16s%s\n", s.IfAddr(oi).Addr(), typ, st, oi.Cost, s.Priority(oi.Interface), dr, bdr)
		}
	}
	return b.String(), nil
}

// duration prints a time in state as VRP's verbose output does: 00h57m53s.
func duration(d time.Duration) string {
	d = d.Truncate(time.Second)
	return fmt.Sprintf("%02dh%02dm%02ds", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// protoNamer returns the Proto column of VRP's routing table for the
// routes of a table (the global one has BGP routes).
func protoNamer(v *dialect.View, vrf string, fam int) func(r netsim.Route) string {
	var routes []netsim.BGPRoute
	if vrf == "" {
		routes, _ = v.Net.BGPRoutes(v.Name, fam)
	}
	return protoNames(routes)
}

// protoNames names a route's protocol as VRP's routing table does: a
// BGP route is EBGP or IBGP after the best path of its prefix in the BGP
// table, the others as protoColumn names them.
func protoNames(bgp []netsim.BGPRoute) func(r netsim.Route) string {
	internal := map[netip.Prefix]bool{}
	for _, r := range bgp {
		if r.Best {
			internal[r.Prefix] = r.Internal
		}
	}
	return func(r netsim.Route) string {
		if r.Protocol != netsim.ProtoBGP {
			return protoColumn[r.Protocol]
		}
		if internal[r.Prefix] {
			return "IBGP"
		}
		return "EBGP"
	}
}
