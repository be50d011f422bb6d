package sim

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// vrpCommands are the huawei-vrp display commands, plus the IOS-style
// aliases the MCP-NET draft uses against a huawei-vrp device (show ip arp
// vrf mgmt 10.0.0.5, ping vrf mgmt ... source ... repeat 5).
var vrpCommands []cliCommand

func init() {
	vrpCommands = []cliCommand{
		{[]string{"display", "interface", "brief"}, vrpInterfaceBrief},
		{[]string{"display", "ip", "interface", "brief"}, vrpIPInterfaceBrief},
		{[]string{"display", "ip", "routing-table"}, func(v *view, a []string) (string, error) { return vrpRoutes(v, a, 4) }},
		{[]string{"display", "ipv6", "routing-table"}, func(v *view, a []string) (string, error) { return vrpRoutes(v, a, 6) }},
		{[]string{"display", "interface"}, vrpInterface},
		{[]string{"display", "arp"}, func(v *view, a []string) (string, error) { return vrpARP(v, append([]string{"all"}, a...)) }},
		{[]string{"display", "vlan"}, vrpVLAN},
		{[]string{"display", "logbuffer"}, vrpLogbuffer},
		{[]string{"display", "current-configuration"}, func(v *view, a []string) (string, error) { return v.runningText(), nil }},
		{[]string{"display", "saved-configuration"}, func(v *view, a []string) (string, error) { return v.startupText() }},
		{[]string{"display", "cpu-usage"}, vrpCPU},
		{[]string{"display", "memory-usage"}, vrpMemory},
		{[]string{"display", "version"}, vrpVersion},
		{[]string{"display", "device"}, vrpDevice},
		{[]string{"ping"}, vrpPing},
		{[]string{"tracert"}, vrpTracert},
		{[]string{"display", "lldp", "neighbor"}, vrpLLDPNeighbor},
		{[]string{"reset", "counters"}, vrpResetCounters},
		// IOS-style aliases.
		{[]string{"show", "ip", "arp"}, vrpARP},
		{[]string{"show", "arp"}, vrpARP},
		{[]string{"show", "interfaces", "brief"}, vrpInterfaceBrief},
		{[]string{"show", "ip", "interface", "brief"}, vrpIPInterfaceBrief},
		{[]string{"show", "ip", "route"}, func(v *view, a []string) (string, error) { return vrpRoutes(v, a, 4) }},
		{[]string{"show", "ipv6", "route"}, func(v *view, a []string) (string, error) { return vrpRoutes(v, a, 6) }},
		{[]string{"show", "interfaces"}, vrpInterface},
		{[]string{"show", "vlan"}, vrpVLAN},
		{[]string{"show", "logging"}, vrpLogbuffer},
		{[]string{"show", "running-config"}, func(v *view, a []string) (string, error) { return v.runningText(), nil }},
		{[]string{"show", "startup-config"}, func(v *view, a []string) (string, error) { return v.startupText() }},
		{[]string{"show", "version"}, vrpVersion},
		{[]string{"traceroute"}, vrpTracert},
	}
	vrpCommands = append(vrpRoutingCommands(), vrpCommands...) // OSPF, BGP: cli_routing_vrp.go
}

const vrpLegend = "*down: administratively down\n^down: standby\n(l): loopback\n(s): spoofing\n"

// vrpPhy is the PHY and Protocol columns of an interface in state st.
func vrpPhy(name string, st netsim.IfState) (phy, proto string) {
	phy, proto = "up", "up"
	switch {
	case !st.AdminUp:
		phy, proto = "*down", "down"
	case !st.OperUp:
		phy, proto = "down", "down"
	}
	if strings.HasPrefix(strings.ToLower(name), "loopback") && proto == "up" {
		proto = "up(s)"
	}
	return phy, proto
}

func vrpInterfaceBrief(v *view, args []string) (string, error) {
	var b strings.Builder
	b.WriteString("PHY: Physical\n" + vrpLegend + "(b): BFD down\n(e): ETHOAM down\n(d): Dampening Suppressed\n" +
		"InUti/OutUti: input utility/output utility\n")
	fmt.Fprintf(&b, "%-28s%-6s%-10s%-6s%-9s%-10s%s\n", "Interface", "PHY", "Protocol", "InUti", "OutUti", "inErrors", "outErrors")
	for _, it := range v.c.dev.Interfaces {
		st := v.ifState(it.Name)
		phy, proto := vrpPhy(it.Name, st)
		fmt.Fprintf(&b, "%-28s%-6s%-10s%5s%7s%11d%11d\n", it.Name, phy, proto, "0%", "0%", st.Counters.InErrors, st.Counters.OutErrors)
	}
	return b.String(), nil
}

func vrpIPInterfaceBrief(v *view, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(vrpLegend + "(E): E-Trunk down\n")
	// The model has one operational state: Physical and Protocol count alike.
	up := 0
	for _, it := range v.c.dev.Interfaces {
		if v.ifState(it.Name).OperUp {
			up++
		}
	}
	down := len(v.c.dev.Interfaces) - up
	fmt.Fprintf(&b, "The number of interface that is UP in Physical is %d\nThe number of interface that is DOWN in Physical is %d\n", up, down)
	fmt.Fprintf(&b, "The number of interface that is UP in Protocol is %d\nThe number of interface that is DOWN in Protocol is %d\n\n", up, down)
	fmt.Fprintf(&b, "%-34s%-21s%-11s%-10s%s\n", "Interface", "IP Address/Mask", "Physical", "Protocol", "VPN")
	for _, it := range v.c.dev.Interfaces {
		phy, proto := vrpPhy(it.Name, v.ifState(it.Name))
		addr := "unassigned"
		if v4, _ := splitAddrs(it); len(v4) > 0 {
			addr = v4[0].String()
		}
		fmt.Fprintf(&b, "%-34s%-21s%-11s%-10s%s\n", it.Name, addr, phy, proto, cmp.Or(it.VRF, "--"))
	}
	return b.String(), nil
}

func vrpInterface(v *view, args []string) (string, error) {
	names, err := v.ifNames(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteString("\n")
		}
		it := *v.c.iface(name, false)
		st := v.ifState(name)
		state := "UP"
		switch {
		case !st.AdminUp:
			state = "Administratively DOWN"
		case !st.OperUp:
			state = "DOWN"
		}
		fmt.Fprintf(&b, "%s current state : %s (ifindex: %d)\n", name, state, i+3)
		fmt.Fprintf(&b, "Line protocol current state : %s\n", map[bool]string{true: "UP", false: "DOWN"}[st.OperUp])
		fmt.Fprintf(&b, "Last line protocol %s time : %s\n", map[bool]string{true: "up", false: "down"}[st.OperUp],
			v.d.lastChangeOf(name).UTC().Format("2006-01-02 15:04:05"))
		fmt.Fprintf(&b, "Description: %s\n", it.Description)
		kind := "Route Port"
		if it.AccessVLAN > 0 || len(it.TrunkVLANs) > 0 {
			kind = "Switch Port"
		}
		fmt.Fprintf(&b, "%s,The Maximum Transmit Unit is %d\n", kind, st.MTU)
		v4, v6 := splitAddrs(it)
		if len(v4) == 0 {
			b.WriteString("Internet protocol processing : disabled\n")
		}
		for j, p := range v4 {
			sec := ""
			if j > 0 {
				sec = " Sub"
			}
			fmt.Fprintf(&b, "Internet Address is %s%s\n", p, sec)
		}
		for _, p := range v6 {
			fmt.Fprintf(&b, "IPv6 Address is %s\n", strings.ToUpper(p.String()))
		}
		if it.VRF != "" {
			fmt.Fprintf(&b, "The Vpn-Instance is %s\n", it.VRF)
		}
		fmt.Fprintf(&b, "IP Sending Frames' Format is PKTFMT_ETHNT_2, Hardware address is %s\n", macDotted(st.MAC, "-"))
		fmt.Fprintf(&b, "Current system time: %s\n", v.now.UTC().Format("2006-01-02 15:04:05"))
		fmt.Fprintf(&b, "    Input:  %d packets, %d bytes\n", st.Counters.InPkts, st.Counters.InOctets)
		fmt.Fprintf(&b, "            %d errors, %d discards\n", st.Counters.InErrors, st.Counters.InDiscards)
		fmt.Fprintf(&b, "    Output: %d packets, %d bytes\n", st.Counters.OutPkts, st.Counters.OutOctets)
		fmt.Fprintf(&b, "            %d errors, %d discards\n", st.Counters.OutErrors, st.Counters.OutDiscards)
		b.WriteString("    Input bandwidth utilization  :    0%\n    Output bandwidth utilization :    0%\n")
	}
	return b.String(), nil
}

var vrpProto = map[string]string{"direct": "Direct", "static": "Static", "igp": "OSPF", "ospf": "OSPF"}

func vrpRoutes(v *view, args []string, fam int) (string, error) {
	o, err := parseOpts(args, v.d.dialect)
	if err != nil {
		return "", err
	}
	if len(o.rest) > 0 && o.rest[0] != "verbose" {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (huawei-vrp: display ip routing-table [vpn-instance NAME])", strings.Join(o.rest, " "))
	}
	if err := v.checkVRF(o.vrf); err != nil {
		return "", err
	}
	routes, err := v.d.lab.net.Routes(v.d.name, o.vrf, fam)
	if err != nil {
		return "", err
	}
	protoName := v.vrpProtoNamer(o.vrf, fam) // EBGP/IBGP: cli_routing_vrp.go
	table := cmp.Or(o.vrf, "_public_")
	var b strings.Builder
	if fam == 4 {
		b.WriteString("Route Flags: R - relay, D - download to fib, T - to vpn-instance, B - black hole route\n")
		b.WriteString(strings.Repeat("-", 78) + "\n")
	}
	dests := map[netip.Prefix]bool{}
	for _, r := range routes {
		dests[r.Prefix] = true
	}
	fmt.Fprintf(&b, "Routing Table : %s\n         Destinations : %d        Routes : %d\n\n", table, len(dests), len(routes))
	if fam == 4 {
		b.WriteString("Destination/Mask    Proto   Pre  Cost        Flags NextHop         Interface\n\n")
	}
	for _, r := range routes {
		flags := "D"
		if r.NextHop.IsValid() && r.Protocol != "direct" {
			flags = "RD"
		}
		if r.Discard {
			flags = "DB"
		}
		if !r.Active {
			flags = strings.TrimSuffix(flags, "D")
		}
		nh, ifn := "0.0.0.0", r.Interface
		if r.NextHop.IsValid() {
			nh = r.NextHop.String()
		} else if r.Protocol == "direct" {
			nh = v.ownAddrIn(r.Interface, r.Prefix)
		}
		if r.Discard {
			ifn = "NULL0"
		}
		if fam == 4 {
			fmt.Fprintf(&b, "%18s  %-7s %-4d %-11d %5s  %-15s %s\n", r.Prefix, protoName(r), r.Preference, r.Metric, flags, nh, ifn)
			continue
		}
		if nh == "0.0.0.0" {
			nh = "::"
		}
		fmt.Fprintf(&b, " Destination  : %-40sPrefixLength : %d\n", r.Prefix.Addr(), r.Prefix.Bits())
		fmt.Fprintf(&b, " NextHop      : %-40sPreference   : %d\n", nh, r.Preference)
		fmt.Fprintf(&b, " Cost         : %-40dProtocol     : %s\n", r.Metric, protoName(r))
		fmt.Fprintf(&b, " RelayNextHop : %-40sTunnelID     : 0x0\n", "::")
		fmt.Fprintf(&b, " Interface    : %-40sFlags        : %s\n\n", ifn, flags)
	}
	return b.String(), nil
}

// ownAddrIn is the device's address on ifn inside p (the next hop VRP
// shows for a direct route).
func (v *view) ownAddrIn(ifn string, p netip.Prefix) string {
	if it := v.c.iface(ifn, false); it != nil {
		v4, v6 := splitAddrs(*it)
		for _, a := range append(v4, v6...) {
			if p.Contains(a.Addr()) {
				return a.Addr().String()
			}
		}
	}
	if p.Addr().Is4() {
		return "127.0.0.1"
	}
	return "::1"
}

func vrpARP(v *view, args []string) (string, error) {
	return v.arpQuery(args, func(vrf string, entries []arpEntry) string {
		var b strings.Builder
		b.WriteString("IP ADDRESS      MAC ADDRESS     EXPIRE(M) TYPE        INTERFACE      VPN-INSTANCE\n")
		b.WriteString("                                          VLAN/CEVLAN PVC\n")
		b.WriteString(strings.Repeat("-", 78) + "\n")
		var dyn, stat, intf int
		for _, e := range entries {
			exp, typ := "", "I -"
			switch e.kind {
			case "dynamic":
				exp, typ = fmt.Sprint(20-int(e.age.Minutes())%20), "D-0"
				dyn++
			case "static":
				typ = "S"
				stat++
			default:
				intf++
			}
			fmt.Fprintf(&b, "%-16s%-16s%-10s%-12s%-15s%s\n", e.ip, macDotted(e.mac, "-"), exp, typ, shortIfName(DialectVRP, e.ifn), e.vrf)
		}
		b.WriteString(strings.Repeat("-", 78) + "\n")
		fmt.Fprintf(&b, "Total:%-10dDynamic:%-8dStatic:%-6dInterface:%d\n", len(entries), dyn, stat, intf)
		return b.String()
	})
}

func vrpVLAN(v *view, args []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "The total number of vlans is : %d\n", len(v.c.dev.VLANs))
	b.WriteString(strings.Repeat("-", 80) + "\nU: Up;         D: Down;         TG: Tagged;         UT: Untagged;\n" +
		"MP: Vlan-mapping;               ST: Vlan-stacking;\n#: ProtocolTransparent-vlan;    *: Management-vlan;\n" +
		strings.Repeat("-", 80) + "\n\nVID  Type    Ports\n" + strings.Repeat("-", 80) + "\n")
	for _, vl := range v.c.dev.VLANs {
		var ports []string
		for _, it := range v.c.dev.Interfaces {
			tag := ""
			if it.AccessVLAN == vl.ID {
				tag = "UT:"
			}
			for _, t := range it.TrunkVLANs {
				if t == vl.ID {
					tag = "TG:"
				}
			}
			if tag != "" {
				ports = append(ports, tag+shortIfName(DialectVRP, it.Name)+"("+strings.ToUpper(upDown(v.ifState(it.Name).OperUp)[:1])+")")
			}
		}
		fmt.Fprintf(&b, "%-5d%-8s%s\n", vl.ID, "common", strings.Join(ports, " "))
	}
	b.WriteString("\nVID  Status  Property      MAC-LRN Statistics Description\n" + strings.Repeat("-", 80) + "\n")
	for _, vl := range v.c.dev.VLANs {
		fmt.Fprintf(&b, "%-5d%-8s%-14s%-8s%-11s%s\n", vl.ID, "enable", "default", "enable", "disable", cmp.Or(vl.Name, fmt.Sprintf("VLAN %04d", vl.ID)))
	}
	return b.String(), nil
}

func vrpLogbuffer(v *view, args []string) (string, error) {
	entries := v.d.log.last(0)
	n, over := v.d.log.stats()
	var b strings.Builder
	fmt.Fprintf(&b, "Logging buffer configuration and contents : enabled\nAllowed max buffer size : %d\nActual buffer size : %d\n", syslogCapacity, syslogCapacity)
	fmt.Fprintf(&b, "Channel number : 4 , Channel name : logbuffer\nDropped messages : 0\nOverwritten messages : %d\nCurrent messages : %d\n\n", over, n)
	for i := len(entries) - 1; i >= 0; i-- { // VRP shows the newest first
		b.WriteString(entries[i].Text + "\n")
	}
	return b.String(), nil
}

func vrpCPU(v *view, args []string) (string, error) {
	c, err := v.d.tel.cpu("")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CPU Usage Stat. Cycle: 60 (Second)\nCPU Usage            : %.0f%% Max: %.0f%%\n", c.Percent, max(c.Percent, c.FiveMinute)+7)
	fmt.Fprintf(&b, "CPU Usage Stat. Time : %s\n", c.Time.UTC().Format("2006-01-02  15:04:05"))
	fmt.Fprintf(&b, "CPU utilization for five seconds: %.0f%%: one minute: %.0f%%: five minutes: %.0f%%\n", c.Percent, c.OneMinute, c.FiveMinute)
	for _, slot := range v.d.tel.slots {
		s, _ := v.d.tel.cpu(slot)
		fmt.Fprintf(&b, "  Slot %-12s: %5.1f%%\n", slot, s.Percent)
	}
	return b.String(), nil
}

func vrpMemory(v *view, args []string) (string, error) {
	m, err := v.d.tel.memory("")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Memory utilization statistics at %s+00:00\nSystem Total Memory Is: %d Kbytes\nTotal Memory Used Is: %d Kbytes\nMemory Using Percentage Is: %d%%\n",
		m.Time.UTC().Format("2006-01-02 15:04:05"), m.Total/1024, m.Used/1024, m.Used*100/m.Total), nil
}

func vrpVersion(v *view, args []string) (string, error) {
	d := v.c.dev
	up := v.uptime()
	return fmt.Sprintf("Huawei Versatile Routing Platform Software\nVRP (R) software, Version 8.210 (%s %s)\n"+
		"Copyright (C) 2012-2025 Huawei Technologies Co., Ltd.\nHUAWEI %s uptime is %d days, %d hours, %d minutes\n",
		strings.SplitN(d.Platform, "-", 2)[0], d.SoftwareVersion, d.Platform, int(up.Hours())/24, int(up.Hours())%24, int(up.Minutes())%60), nil
}

func vrpDevice(v *view, args []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s's Device status:\n%-12s%-10s%-10s%-10s%s\n", v.c.dev.Platform, "Slot", "Type", "Online", "Register", "Status")
	b.WriteString(strings.Repeat("-", 60) + "\n")
	for i, s := range v.d.tel.slots {
		typ := "LPU"
		if i == 0 {
			typ = "MPU"
		}
		fmt.Fprintf(&b, "%-12s%-10s%-10s%-10s%s\n", s, typ, "Present", "Registered", "Normal")
	}
	return b.String(), nil
}

func vrpPing(v *view, args []string) (string, error) {
	req, err := v.probe(args)
	if err != nil {
		return "", err
	}
	if req.Size == 0 {
		req.Size = 56
	}
	out, err := v.d.lab.net.Ping(req)
	if err != nil {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "ping: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  PING %s: %d  data bytes, press CTRL_C to break\n", req.Destination, req.Size)
	for i := 0; i < max(out.Count, len(out.Replies)); i++ {
		if i < len(out.Replies) && out.Replies[i].Kind == netsim.ResultReply {
			r := out.Replies[i]
			fmt.Fprintf(&b, "    Reply from %s: bytes=%d Sequence=%d ttl=%d time=%d ms\n", r.From, req.Size, r.Seq, r.TTL, max(1, msInt(r.RTT)))
		} else {
			b.WriteString("    Request time out\n")
		}
	}
	recv, lo, avg, hi := pingStats(out)
	sent := max(out.Count, len(out.Replies))
	loss := 100.0
	if sent > 0 {
		loss = 100 * float64(sent-recv) / float64(sent)
	}
	fmt.Fprintf(&b, "\n  --- %s ping statistics ---\n    %d packet(s) transmitted\n    %d packet(s) received\n    %.2f%% packet loss\n", req.Destination, sent, recv, loss)
	if recv > 0 {
		fmt.Fprintf(&b, "    round-trip min/avg/max = %d/%d/%d ms\n", max(1, lo), max(1, avg), max(1, hi))
	}
	return b.String(), nil
}

func vrpTracert(v *view, args []string) (string, error) {
	req, err := v.probe(args)
	if err != nil {
		return "", err
	}
	out, err := v.d.lab.net.Traceroute(req)
	if err != nil {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "tracert: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, " traceroute to  %s(%s), max hops: %d ,packet length: %d,press CTRL_C to break \n", req.Destination, req.Destination, max(out.MaxHops, 30), max(out.PacketSize, 40))
	for _, h := range out.Hops {
		fmt.Fprintf(&b, " %d", h.TTL)
		var from netip.Addr
		for _, p := range h.Probes {
			if p.Kind == netsim.ResultLost {
				b.WriteString(" *")
				continue
			}
			if p.From != from {
				from = p.From
				fmt.Fprintf(&b, " %s", p.From)
			}
			fmt.Fprintf(&b, " %d ms ", max(1, msInt(p.RTT)))
			if a := p.Annotation(); a != "" {
				b.WriteString(a + " ")
			}
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
