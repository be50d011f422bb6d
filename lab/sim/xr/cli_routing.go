package xr

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// routingCommands are the cisco-iosxr show commands of OSPF and BGP;
// cli.go puts them ahead of its own table (so "show route bgp" is not
// read as "show route" of an address).
func routingCommands() []dialect.Command {
	return []dialect.Command{
		dialect.Cmd("show bgp summary", snap(bgpSummary)),
		dialect.Cmd("show bgp ipv4 unicast summary", snap(bgpSummary)),
		dialect.Cmd("show bgp neighbors", snap(bgpNeighbor)),
		dialect.Cmd("show bgp neighbor", snap(bgpNeighbor)),
		dialect.Cmd("show bgp ipv4 unicast", snap(bgpTable)),
		dialect.Cmd("show bgp", snap(bgpTable)),
		dialect.Cmd("show ospf neighbor", snap(ospfNeighbor)),
		dialect.Cmd("show ospf interface brief", snap(ospfInterfaceBrief)),
		dialect.Cmd("show route bgp", snap(func(s dialect.Routing, a []string) (string, error) { return routeProto(s, a, netsim.ProtoBGP) })),
		dialect.Cmd("show route ospf", snap(func(s dialect.Routing, a []string) (string, error) { return routeProto(s, a, netsim.ProtoOSPF) })),
	}
}

// snap is snapCommand with XR's timestamp line first.
func snap(render func(s dialect.Routing, args []string) (string, error)) func(v *dialect.View, args []string) (string, error) {
	return dialect.RoutingCommand(func(s dialect.Routing, args []string) (string, error) {
		out, err := render(s, args)
		if err != nil {
			return "", err
		}
		return s.Now.UTC().Format("Mon Jan _2 15:04:05.000 UTC") + "\n" + out, nil
	})
}

func noArgs(args []string, usage string) error {
	if len(args) > 0 {
		return dialect.Errorf("unexpected %q (cisco-iosxr: %s)", strings.Join(args, " "), usage)
	}
	return nil
}

// bgpInactive is what XR prints when the BGP process is not there.
const bgpInactive = "% BGP instance 'default' not active\n"

// bgpHeader is the process lines that open "show bgp" and its summary.
func bgpHeader(s dialect.Routing) string {
	v := s.TableVersion()
	return fmt.Sprintf("BGP router identifier %s, local AS number %d\nBGP generic scan interval 60 secs\n"+
		"Non-stop routing is enabled\nBGP table state: Active\nTable ID: 0xe0000000   RD version: %d\n"+
		"BGP main routing table version %d\nBGP NSR Initial initsync version 2 (Reached)\n"+
		"BGP NSR/ISSU Sync-Group versions 0/0\nBGP scan interval 60 secs\n", s.BGP.RouterID, s.BGP.ASN, v, v)
}

// bgpSummary renders "show bgp summary".
func bgpSummary(s dialect.Routing, args []string) (string, error) {
	if err := noArgs(args, "show bgp summary"); err != nil {
		return "", err
	}
	if !s.BGP.Configured || !s.BGP.Running {
		return bgpInactive, nil
	}
	v := s.TableVersion()
	var b strings.Builder
	b.WriteString(bgpHeader(s))
	b.WriteString("\nBGP is operating in STANDALONE mode.\n\n\n")
	b.WriteString("Process       RcvTblVer   bRIB/RIB   LabelVer  ImportVer  SendTblVer  StandbyVer\n")
	fmt.Fprintf(&b, "Speaker       %9d  %9d  %9d  %9d   %9d   %9d\n\n", v, v, v, v, v, 0)
	b.WriteString("Neighbor        Spk    AS MsgRcvd MsgSent   TblVer  InQ OutQ  Up/Down  St/PfxRcd\n")
	for _, n := range s.BGP.Neighbors {
		rcvd, sent := s.BGPMessages(n)
		tbl := 0
		if n.State == netsim.BGPEstablished {
			tbl = v
		}
		st := fmt.Sprintf("%10d", n.PrefixesAccepted)
		switch {
		case n.AdminDown:
			st = "Idle (Admin)"
		case n.State != netsim.BGPEstablished:
			st = n.State
		}
		fmt.Fprintf(&b, "%-15s %3d %5d %7d %7d %8d %4d %4d %8s %s\n", n.Address, 0, n.RemoteAS, rcvd, sent, tbl, 0, 0,
			dialect.UpDownTime(s.Since(n.Since)), st)
	}
	return b.String(), nil
}

// bgpNeighbor renders "show bgp neighbor [ADDRESS]".
func bgpNeighbor(s dialect.Routing, args []string) (string, error) {
	addr, _, err := dialect.PeerArg(args, Name, "show bgp neighbor [ADDRESS]")
	if err != nil {
		return "", err
	}
	if !s.BGP.Configured || !s.BGP.Running {
		return bgpInactive, nil
	}
	peers, err := s.Peers(addr, Name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range peers {
		link := "external"
		if n.Internal {
			link = "internal"
		}
		fmt.Fprintf(&b, "\nBGP neighbor is %s\n Remote AS %d, local AS %d, %s link\n", n.Address, n.RemoteAS, n.LocalAS, link)
		if n.Description != "" {
			fmt.Fprintf(&b, " Description: %s\n", n.Description)
		}
		rid := "0.0.0.0"
		if n.RemoteRouterID.IsValid() {
			rid = n.RemoteRouterID.String()
		}
		fmt.Fprintf(&b, " Remote router ID %s\n", rid)
		up := dialect.UpDownTime(s.Since(n.Since))
		switch {
		case n.AdminDown:
			fmt.Fprintf(&b, "  BGP state = Idle (Administratively shut down)\n")
		case n.State == netsim.BGPEstablished:
			fmt.Fprintf(&b, "  BGP state = Established, up for %s\n", up)
		default:
			fmt.Fprintf(&b, "  BGP state = %s\n", n.State)
		}
		fmt.Fprintf(&b, "  Hold time is %d, keepalive interval is %d seconds\n", dialect.CmpPos(n.Hold, 180), dialect.CmpPos(n.Keepalive, 60))
		rcvd, sent := s.BGPMessages(n)
		fmt.Fprintf(&b, "  Received %d messages, 0 notifications, 0 in queue\n  Sent %d messages, 0 notifications, 0 in queue\n", rcvd, sent)
		b.WriteString("\n For Address Family: IPv4 Unicast\n")
		fmt.Fprintf(&b, "  %d accepted prefixes, %d are bestpaths\n", n.PrefixesAccepted, bestFrom(s, n.Address))
		fmt.Fprintf(&b, "  Prefix advertised %d, suppressed 0, withdrawn 0\n\n", n.PrefixesSent)
		est := 0
		if n.State == netsim.BGPEstablished {
			est = 1
		}
		fmt.Fprintf(&b, "  Connections established %d; dropped 0\n", est)
		if n.LocalAddress.IsValid() {
			fmt.Fprintf(&b, "  Local host: %s, Local port: 179, IF Handle: 0x00000000\n  Foreign host: %s, Foreign port: 179\n", n.LocalAddress, n.Address)
		}
		if n.LastError != "" {
			fmt.Fprintf(&b, "  Last reset %s, due to %s\n", up, n.LastError)
		} else {
			b.WriteString("  Last reset 00:00:00, due to BGP neighbor initialized\n")
		}
	}
	return b.String(), nil
}

// bestFrom counts the best paths learnt from a peer.
func bestFrom(s dialect.Routing, a netip.Addr) int {
	n := 0
	for _, r := range s.Routes {
		if r.Best && r.From == a {
			n++
		}
	}
	return n
}

// bgpTable renders "show bgp [ipv4 unicast]".
func bgpTable(s dialect.Routing, args []string) (string, error) {
	if err := noArgs(args, "show bgp [ipv4 unicast]"); err != nil {
		return "", err
	}
	if !s.BGP.Configured || !s.BGP.Running {
		return bgpInactive, nil
	}
	var b strings.Builder
	b.WriteString(bgpHeader(s))
	b.WriteString("\nStatus codes: s suppressed, d damped, h history, * valid, > best\n" +
		"              i - internal, r RIB-failure, S stale, N Nexthop-discard\n" +
		"Origin codes: i - IGP, e - EGP, ? - incomplete\n")
	fmt.Fprintf(&b, "   %-19s%-20s%6s %6s %6s %s\n", "Network", "Next Hop", "Metric", "LocPrf", "Weight", "Path")
	prefixes := map[netip.Prefix]bool{}
	for _, r := range s.Routes {
		prefixes[r.Prefix] = true
		st := dialect.BGPStatus(r)
		if r.Internal {
			st += "i"
		} else {
			st += " "
		}
		nh := "0.0.0.0"
		if r.NextHop.IsValid() {
			nh = r.NextHop.String()
		}
		lp, w := "", 0
		if r.Internal {
			lp = fmt.Sprint(r.LocalPref)
		}
		if !r.From.IsValid() {
			w = 32768
		}
		fmt.Fprintf(&b, "%s%-19s%-20s%6d %6s %6d %s\n", st, r.Prefix, nh, r.MED, lp, w, dialect.ASPath(r))
	}
	fmt.Fprintf(&b, "\nProcessed %d prefixes, %d paths\n", len(prefixes), len(s.Routes))
	return b.String(), nil
}

// ospfNeighbor renders "show ospf neighbor".
func ospfNeighbor(s dialect.Routing, args []string) (string, error) {
	if err := noArgs(args, "show ospf neighbor"); err != nil {
		return "", err
	}
	if !s.OSPF.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("\n* Indicates MADJ interface\n# Indicates Neighbor awaiting BFD session up\n\nNeighbors for OSPF 1\n\n")
	fmt.Fprintf(&b, "%-16s%-6s%-16s%-12s%-16s%s\n", "Neighbor ID", "Pri", "State", "Dead Time", "Address", "Interface")
	for _, n := range s.OSPF.Neighbors {
		role := map[string]string{"": "  -", "DR": "DR", "Backup": "BDR", "BDR": "BDR", "DROther": "DROTHER"}[n.Role]
		if role == "" {
			role = strings.ToUpper(n.Role)
		}
		st := strings.ToUpper(strings.ReplaceAll(n.State, "-", "")) + "/" + role
		dead := dialect.FmtDuration(secs(s.OSPFDeadDue(n)))
		fmt.Fprintf(&b, "%-16s%-6d%-16s%-12s%-16s%s\n", n.NeighborID, n.Priority, st, dead, n.Address, n.Interface)
		fmt.Fprintf(&b, "    Neighbor is up for %s\n", dialect.FmtDuration(s.Since(n.Since)))
	}
	fmt.Fprintf(&b, "\nTotal neighbor count: %d\n", len(s.OSPF.Neighbors))
	return b.String(), nil
}

// ospfIfState is the State column of "show ospf interface brief".
var ospfIfState = map[string]string{"Point-To-Point": "P2P", "Loopback": "LOOP", "DR": "DR", "Backup": "BDR", "DROther": "DROTH", "Down": "DOWN"}

// ospfInterfaceBrief renders "show ospf interface brief".
func ospfInterfaceBrief(s dialect.Routing, args []string) (string, error) {
	if err := noArgs(args, "show ospf interface brief"); err != nil {
		return "", err
	}
	if !s.OSPF.Configured {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("\n* Indicates MADJ interface, (P) Indicates fast-reroute protection\n\nInterfaces for OSPF 1\n\n")
	fmt.Fprintf(&b, "%-19s%-6s%-16s%-19s%-6s%-6s%s\n", "Interface", "PID", "Area", "IP Address/Mask", "Cost", "State", "Nbrs F/C")
	for _, oi := range s.OSPF.Interfaces {
		full, all := 0, 0
		for _, n := range s.NeighborsOn(oi.Interface) {
			all++
			if n.State == netsim.OSPFFull {
				full++
			}
		}
		st := ospfIfState[oi.State]
		if st == "" {
			st = strings.ToUpper(oi.State)
		}
		fmt.Fprintf(&b, "%-19s%-6d%-16s%-19s%-6d%-6s%d/%d\n", shortIfName(oi.Interface), 1, areaNumber(oi.Area),
			s.IfAddr(oi), oi.Cost, st, full, all)
	}
	return b.String(), nil
}

// routeProto renders "show route bgp" and "show route ospf": the active
// routes of one protocol in the global IPv4 table.
func routeProto(s dialect.Routing, args []string, proto string) (string, error) {
	if err := noArgs(args, "show route "+proto); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("\n" + routeCodes + "\n")
	code := map[string]string{netsim.ProtoBGP: "B", netsim.ProtoOSPF: "O"}[proto]
	for _, r := range s.RIB {
		if !r.Active || r.Protocol != proto {
			continue
		}
		// The route is as old as the session or adjacency it came over.
		age := dialect.FmtDuration(0)
		for _, n := range s.BGP.Neighbors {
			if proto == netsim.ProtoBGP && n.State == netsim.BGPEstablished && bestFromTo(s, n.Address, r.Prefix) {
				age = dialect.UpDownTime(s.Since(n.Since))
			}
		}
		for _, n := range s.OSPF.Neighbors {
			if proto == netsim.ProtoOSPF && n.State == netsim.OSPFFull && n.Interface == r.Interface {
				age = dialect.UpDownTime(s.Since(n.Since))
			}
		}
		ifn := ""
		if r.Interface != "" {
			ifn = ", " + r.Interface
		}
		nh := "0.0.0.0"
		if r.NextHop.IsValid() {
			nh = r.NextHop.String()
		}
		fmt.Fprintf(&b, "%-4s %s [%d/%d] via %s, %s%s\n", code, r.Prefix, r.Preference, r.Metric, nh, age, ifn)
	}
	return b.String(), nil
}

// bestFromTo reports whether the best path of p came from peer a.
func bestFromTo(s dialect.Routing, a netip.Addr, p netip.Prefix) bool {
	for _, r := range s.Routes {
		if r.Best && r.Prefix == p && r.From == a {
			return true
		}
	}
	return false
}

// secs is n seconds.
func secs(n int) time.Duration { return time.Duration(n) * time.Second }
