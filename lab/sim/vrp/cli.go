package vrp

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// commands are the huawei-vrp display commands, plus the IOS-style
// aliases the MCP-NET draft uses against a huawei-vrp device (show ip arp
// vrf mgmt 10.0.0.5, ping vrf mgmt ... source ... repeat 5).
var commands []dialect.Command

func init() {
	commands = []dialect.Command{
		dialect.Cmd("display interface brief", interfaceBrief),
		dialect.Cmd("display ip interface brief", ipInterfaceBrief),
		dialect.Cmd("display ip routing-table", func(v *dialect.View, a []string) (string, error) { return routingTable(v, a, 4) }),
		dialect.Cmd("display ipv6 routing-table", func(v *dialect.View, a []string) (string, error) { return routingTable(v, a, 6) }),
		dialect.Cmd("display interface", displayInterface),
		dialect.Cmd("display arp", func(v *dialect.View, a []string) (string, error) { return arp(v, append([]string{"all"}, a...)) }),
		dialect.Cmd("display vlan", displayVLAN),
		dialect.Cmd("display logbuffer", logbuffer),
		dialect.Cmd("display current-configuration", func(v *dialect.View, a []string) (string, error) { return running(v), nil }),
		dialect.Cmd("display saved-configuration", func(v *dialect.View, a []string) (string, error) { return v.Device.StartupText() }),
		dialect.Cmd("display cpu-usage", cpuUsage),
		dialect.Cmd("display memory-usage", memoryUsage),
		dialect.Cmd("display version", version),
		dialect.Cmd("display device", deviceStatus),
		dialect.Cmd("ping", ping),
		dialect.Cmd("tracert", tracert),
		dialect.Cmd("display lldp neighbor", lldpNeighbor),
		dialect.Cmd("reset counters", resetCounters),
		// IOS-style aliases.
		dialect.Cmd("show ip arp", arp),
		dialect.Cmd("show arp", arp),
		dialect.Cmd("show interfaces brief", interfaceBrief),
		dialect.Cmd("show ip interface brief", ipInterfaceBrief),
		dialect.Cmd("show ip route", func(v *dialect.View, a []string) (string, error) { return routingTable(v, a, 4) }),
		dialect.Cmd("show ipv6 route", func(v *dialect.View, a []string) (string, error) { return routingTable(v, a, 6) }),
		dialect.Cmd("show interfaces", displayInterface),
		dialect.Cmd("show vlan", displayVLAN),
		dialect.Cmd("show logging", logbuffer),
		dialect.Cmd("show running-config", func(v *dialect.View, a []string) (string, error) { return running(v), nil }),
		dialect.Cmd("show startup-config", func(v *dialect.View, a []string) (string, error) { return v.Device.StartupText() }),
		dialect.Cmd("show version", version),
		dialect.Cmd("traceroute", tracert),
	}
	commands = append(routingCommands(), commands...) // OSPF, BGP: cli_routing.go
}

const legend = "*down: administratively down\n^down: standby\n(l): loopback\n(s): spoofing\n"

// phyProto is the PHY and Protocol columns of an interface in state st.
func phyProto(name string, st netsim.IfState) (phy, proto string) {
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

func interfaceBrief(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString("PHY: Physical\n" + legend + "(b): BFD down\n(e): ETHOAM down\n(d): Dampening Suppressed\n" +
		"InUti/OutUti: input utility/output utility\n")
	fmt.Fprintf(&b, "%-28s%-6s%-10s%-6s%-9s%-10s%s\n", "Interface", "PHY", "Protocol", "InUti", "OutUti", "inErrors", "outErrors")
	for _, it := range v.Config.Dev.Interfaces {
		st := v.IfState(it.Name)
		phy, proto := phyProto(it.Name, st)
		fmt.Fprintf(&b, "%-28s%-6s%-10s%5s%7s%11d%11d\n", it.Name, phy, proto, "0%", "0%", st.Counters.InErrors, st.Counters.OutErrors)
	}
	return b.String(), nil
}

func ipInterfaceBrief(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(legend + "(E): E-Trunk down\n")
	// The model has one operational state: Physical and Protocol count alike.
	up := 0
	for _, it := range v.Config.Dev.Interfaces {
		if v.IfState(it.Name).OperUp {
			up++
		}
	}
	down := len(v.Config.Dev.Interfaces) - up
	fmt.Fprintf(&b, "The number of interface that is UP in Physical is %d\nThe number of interface that is DOWN in Physical is %d\n", up, down)
	fmt.Fprintf(&b, "The number of interface that is UP in Protocol is %d\nThe number of interface that is DOWN in Protocol is %d\n\n", up, down)
	fmt.Fprintf(&b, "%-34s%-21s%-11s%-10s%s\n", "Interface", "IP Address/Mask", "Physical", "Protocol", "VPN")
	for _, it := range v.Config.Dev.Interfaces {
		phy, proto := phyProto(it.Name, v.IfState(it.Name))
		addr := "unassigned"
		if v4, _ := dialect.SplitAddrs(it); len(v4) > 0 {
			addr = v4[0].String()
		}
		fmt.Fprintf(&b, "%-34s%-21s%-11s%-10s%s\n", it.Name, addr, phy, proto, cmp.Or(it.VRF, "--"))
	}
	return b.String(), nil
}

func displayInterface(v *dialect.View, args []string) (string, error) {
	names, err := v.IfNames(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, name := range names {
		if i > 0 {
			b.WriteString("\n")
		}
		it := *v.Config.Iface(name, false)
		st := v.IfState(name)
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
			v.Device.LastChange(name).UTC().Format("2006-01-02 15:04:05"))
		fmt.Fprintf(&b, "Description: %s\n", it.Description)
		kind := "Route Port"
		if it.AccessVLAN > 0 || len(it.TrunkVLANs) > 0 {
			kind = "Switch Port"
		}
		fmt.Fprintf(&b, "%s,The Maximum Transmit Unit is %d\n", kind, st.MTU)
		v4, v6 := dialect.SplitAddrs(it)
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
		fmt.Fprintf(&b, "IP Sending Frames' Format is PKTFMT_ETHNT_2, Hardware address is %s\n", dialect.MacDotted(st.MAC, "-"))
		fmt.Fprintf(&b, "Current system time: %s\n", v.Now.UTC().Format("2006-01-02 15:04:05"))
		fmt.Fprintf(&b, "    Input:  %d packets, %d bytes\n", st.Counters.InPkts, st.Counters.InOctets)
		fmt.Fprintf(&b, "            %d errors, %d discards\n", st.Counters.InErrors, st.Counters.InDiscards)
		fmt.Fprintf(&b, "    Output: %d packets, %d bytes\n", st.Counters.OutPkts, st.Counters.OutOctets)
		fmt.Fprintf(&b, "            %d errors, %d discards\n", st.Counters.OutErrors, st.Counters.OutDiscards)
		b.WriteString("    Input bandwidth utilization  :    0%\n    Output bandwidth utilization :    0%\n")
	}
	return b.String(), nil
}

var protoColumn = map[string]string{"direct": "Direct", "static": "Static", "igp": "OSPF", "ospf": "OSPF"}

func routingTable(v *dialect.View, args []string, fam int) (string, error) {
	o, err := dialect.ParseOpts(args, v.Dialect)
	if err != nil {
		return "", err
	}
	if len(o.Rest) > 0 && o.Rest[0] != "verbose" {
		return "", dialect.Errorf("unexpected %q (huawei-vrp: display ip routing-table [vpn-instance NAME])", strings.Join(o.Rest, " "))
	}
	if err := v.CheckVRF(o.VRF); err != nil {
		return "", err
	}
	routes, err := v.Net.Routes(v.Name, o.VRF, fam)
	if err != nil {
		return "", err
	}
	protoName := protoNamer(v, o.VRF, fam) // EBGP/IBGP: cli_routing.go
	table := cmp.Or(o.VRF, "_public_")
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
	for i, r := range routes {
		// The further next hops of an equal-cost route follow on lines
		// of their own, the destination left blank.
		dest := r.Prefix.String()
		if i > 0 && r.Active && routes[i-1].Active && routes[i-1].Prefix == r.Prefix {
			dest = ""
		}
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
			nh = v.OwnAddrIn(r.Interface, r.Prefix)
		}
		if r.Discard {
			ifn = "NULL0"
		}
		if fam == 4 {
			fmt.Fprintf(&b, "%18s  %-7s %-4d %-11d %5s  %-15s %s\n", dest, protoName(r), r.Preference, r.Metric, flags, nh, ifn)
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

// shortIfName abbreviates an interface name as VRP's tables do.
func shortIfName(name string) string {
	a, n := dialect.SplitIfName(name)
	switch strings.ToLower(a) {
	case "gigabitethernet":
		return "GE" + n
	case "xgigabitethernet":
		return "XGE" + n
	}
	return name
}

func arp(v *dialect.View, args []string) (string, error) {
	return v.ARPQuery(args, func(vrf string, entries []dialect.ARPEntry) string {
		var b strings.Builder
		b.WriteString("IP ADDRESS      MAC ADDRESS     EXPIRE(M) TYPE        INTERFACE      VPN-INSTANCE\n")
		b.WriteString("                                          VLAN/CEVLAN PVC\n")
		b.WriteString(strings.Repeat("-", 78) + "\n")
		var dyn, stat, intf int
		for _, e := range entries {
			exp, typ := "", "I -"
			switch e.Kind {
			case "dynamic":
				exp, typ = fmt.Sprint(20-int(e.Age.Minutes())%20), "D-0"
				dyn++
			case "static":
				typ = "S"
				stat++
			default:
				intf++
			}
			fmt.Fprintf(&b, "%-16s%-16s%-10s%-12s%-15s%s\n", e.IP, dialect.MacDotted(e.MAC, "-"), exp, typ, shortIfName(e.If), e.VRF)
		}
		b.WriteString(strings.Repeat("-", 78) + "\n")
		fmt.Fprintf(&b, "Total:%-10dDynamic:%-8dStatic:%-6dInterface:%d\n", len(entries), dyn, stat, intf)
		return b.String()
	})
}

func displayVLAN(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "The total number of vlans is : %d\n", len(v.Config.Dev.VLANs))
	b.WriteString(strings.Repeat("-", 80) + "\nU: Up;         D: Down;         TG: Tagged;         UT: Untagged;\n" +
		"MP: Vlan-mapping;               ST: Vlan-stacking;\n#: ProtocolTransparent-vlan;    *: Management-vlan;\n" +
		strings.Repeat("-", 80) + "\n\nVID  Type    Ports\n" + strings.Repeat("-", 80) + "\n")
	for _, vl := range v.Config.Dev.VLANs {
		var ports []string
		for _, it := range v.Config.Dev.Interfaces {
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
				ports = append(ports, tag+shortIfName(it.Name)+"("+strings.ToUpper(dialect.UpDown(v.IfState(it.Name).OperUp)[:1])+")")
			}
		}
		fmt.Fprintf(&b, "%-5d%-8s%s\n", vl.ID, "common", strings.Join(ports, " "))
	}
	b.WriteString("\nVID  Status  Property      MAC-LRN Statistics Description\n" + strings.Repeat("-", 80) + "\n")
	for _, vl := range v.Config.Dev.VLANs {
		fmt.Fprintf(&b, "%-5d%-8s%-14s%-8s%-11s%s\n", vl.ID, "enable", "default", "enable", "disable", cmp.Or(vl.Name, fmt.Sprintf("VLAN %04d", vl.ID)))
	}
	return b.String(), nil
}

func logbuffer(v *dialect.View, args []string) (string, error) {
	buf := v.Device.Log()
	entries, n, over := buf.Entries, buf.Count, buf.Overwritten
	var b strings.Builder
	fmt.Fprintf(&b, "Logging buffer configuration and contents : enabled\nAllowed max buffer size : %d\nActual buffer size : %d\n", buf.Capacity, buf.Capacity)
	fmt.Fprintf(&b, "Channel number : 4 , Channel name : logbuffer\nDropped messages : 0\nOverwritten messages : %d\nCurrent messages : %d\n\n", over, n)
	for i := len(entries) - 1; i >= 0; i-- { // VRP shows the newest first
		b.WriteString(entries[i].Text + "\n")
	}
	return b.String(), nil
}

func cpuUsage(v *dialect.View, args []string) (string, error) {
	c, err := v.Device.CPU("")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CPU Usage Stat. Cycle: 60 (Second)\nCPU Usage            : %.0f%% Max: %.0f%%\n", c.Percent, max(c.Percent, c.FiveMinute)+7)
	fmt.Fprintf(&b, "CPU Usage Stat. Time : %s\n", c.Time.UTC().Format("2006-01-02  15:04:05"))
	fmt.Fprintf(&b, "CPU utilization for five seconds: %.0f%%: one minute: %.0f%%: five minutes: %.0f%%\n", c.Percent, c.OneMinute, c.FiveMinute)
	for _, slot := range v.Device.Slots() {
		s, _ := v.Device.CPU(slot)
		fmt.Fprintf(&b, "  Slot %-12s: %5.1f%%\n", slot, s.Percent)
	}
	return b.String(), nil
}

func memoryUsage(v *dialect.View, args []string) (string, error) {
	m, err := v.Device.Memory("")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Memory utilization statistics at %s+00:00\nSystem Total Memory Is: %d Kbytes\nTotal Memory Used Is: %d Kbytes\nMemory Using Percentage Is: %d%%\n",
		m.Time.UTC().Format("2006-01-02 15:04:05"), m.Total/1024, m.Used/1024, m.Used*100/m.Total), nil
}

func version(v *dialect.View, args []string) (string, error) {
	d := v.Config.Dev
	up := v.Uptime()
	return fmt.Sprintf("Huawei Versatile Routing Platform Software\nVRP (R) software, Version 8.210 (%s %s)\n"+
		"Copyright (C) 2012-2025 Huawei Technologies Co., Ltd.\nHUAWEI %s uptime is %d days, %d hours, %d minutes\n",
		strings.SplitN(d.Platform, "-", 2)[0], d.SoftwareVersion, d.Platform, int(up.Hours())/24, int(up.Hours())%24, int(up.Minutes())%60), nil
}

func deviceStatus(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s's Device status:\n%-12s%-10s%-10s%-10s%s\n", v.Config.Dev.Platform, "Slot", "Type", "Online", "Register", "Status")
	b.WriteString(strings.Repeat("-", 60) + "\n")
	for i, s := range v.Device.Slots() {
		typ := "LPU"
		if i == 0 {
			typ = "MPU"
		}
		fmt.Fprintf(&b, "%-12s%-10s%-10s%-10s%s\n", s, typ, "Present", "Registered", "Normal")
	}
	return b.String(), nil
}

func ping(v *dialect.View, args []string) (string, error) {
	req, err := v.Probe(args)
	if err != nil {
		return "", err
	}
	if req.Size == 0 {
		req.Size = 56
	}
	out, err := v.Net.Ping(req)
	if err != nil {
		return "", dialect.Errorf("ping: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  PING %s: %d  data bytes, press CTRL_C to break\n", req.Destination, req.Size)
	for i := 0; i < max(out.Count, len(out.Replies)); i++ {
		if i < len(out.Replies) && out.Replies[i].Kind == netsim.ResultReply {
			r := out.Replies[i]
			fmt.Fprintf(&b, "    Reply from %s: bytes=%d Sequence=%d ttl=%d time=%d ms\n", r.From, req.Size, r.Seq, r.TTL, max(1, dialect.MsInt(r.RTT)))
		} else {
			b.WriteString("    Request time out\n")
		}
	}
	recv, lo, avg, hi := dialect.PingStats(out)
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

func tracert(v *dialect.View, args []string) (string, error) {
	req, err := v.Probe(args)
	if err != nil {
		return "", err
	}
	out, err := v.Net.Traceroute(req)
	if err != nil {
		return "", dialect.Errorf("tracert: %v", err)
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
			fmt.Fprintf(&b, " %d ms ", max(1, dialect.MsInt(p.RTT)))
			if a := p.Annotation(); a != "" {
				b.WriteString(a + " ")
			}
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
