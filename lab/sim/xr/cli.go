package xr

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// commands are the cisco-iosxr show commands (and a few IOS spellings).
var commands []dialect.Command

func init() {
	commands = []dialect.Command{
		dialect.Cmd("show interfaces brief", interfaceBrief),
		dialect.Cmd("show ipv4 interface brief", ipInterfaceBrief),
		dialect.Cmd("show ip interface brief", ipInterfaceBrief),
		dialect.Cmd("show interfaces", showInterface),
		dialect.Cmd("show route", showRoute),
		dialect.Cmd("show ip route", showRoute),
		dialect.Cmd("show arp", arp),
		dialect.Cmd("show ip arp", arp),
		dialect.Cmd("show vlan", showVLAN),
		dialect.Cmd("show logging", logging),
		dialect.Cmd("show running-config", func(v *dialect.View, a []string) (string, error) { return running(v), nil }),
		dialect.Cmd("show startup-config", func(v *dialect.View, a []string) (string, error) { return v.Device.StartupText() }),
		dialect.Cmd("show processes cpu", processesCPU),
		dialect.Cmd("show memory summary", memorySummary),
		dialect.Cmd("show version", version),
		dialect.Cmd("show platform", platform),
		dialect.Cmd("ping", ping),
		dialect.Cmd("traceroute", traceroute),
		dialect.Cmd("show lldp neighbors", lldpNeighbors),
		dialect.Cmd("clear counters", clearCounters),
	}
	commands = append(routingCommands(), commands...) // OSPF, BGP: cli_routing.go
}

// shortIfName abbreviates an interface name as XR's tables do.
func shortIfName(name string) string {
	a, n := dialect.SplitIfName(name)
	switch strings.ToLower(a) {
	case "gigabitethernet":
		return "Gi" + n
	case "tengige":
		return "Te" + n
	case "loopback":
		return "Lo" + n
	case "bundle-ether":
		return "BE" + n
	}
	return name
}

// lastClearAgo is how long ago the counters were cleared, as IOS XR says
// it ("never" or 00:01:02).
func lastClearAgo(now time.Time, c netsim.Counters) string {
	if c.LastClear.IsZero() {
		return "never"
	}
	return dialect.FmtDuration(now.Sub(c.LastClear))
}

func timestamp(v *dialect.View) string {
	return v.Now.UTC().Format("Mon Jan _2 15:04:05.000 UTC")
}

// states is the interface and line protocol states of an interface in state st.
func states(st netsim.IfState) (intf, linep string) {
	switch {
	case !st.AdminUp:
		return "admin-down", "admin-down"
	case !st.OperUp:
		return "down", "down"
	}
	return "up", "up"
}

func interfaceBrief(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n\n")
	fmt.Fprintf(&b, "%19s %11s %11s %18s %5s %9s\n", "Intf", "Intf", "LineP", "Encap", "MTU", "BW")
	fmt.Fprintf(&b, "%19s %11s %11s %18s %5s %9s\n", "Name", "State", "State", "Type", "(byte)", "(Kbps)")
	b.WriteString(strings.Repeat("-", 80) + "\n")
	for _, it := range v.Config.Dev.Interfaces {
		st := v.IfState(it.Name)
		s, l := states(st)
		encap, bw := "ARPA", 1000000
		switch l := strings.ToLower(it.Name); {
		case strings.HasPrefix(l, "loopback"):
			encap, bw = "Loopback", 0
		case strings.HasPrefix(l, "tengig"):
			bw = 10000000
		}
		fmt.Fprintf(&b, "%19s %11s %11s %18s %5d %9d\n", shortIfName(it.Name), s, l, encap, st.MTU, bw)
	}
	return b.String(), nil
}

func ipInterfaceBrief(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n\n")
	fmt.Fprintf(&b, "%-31s%-16s%-16s%-9s%s\n", "Interface", "IP-Address", "Status", "Protocol", "Vrf-Name")
	for _, it := range v.Config.Dev.Interfaces {
		st := v.IfState(it.Name)
		status, proto := "Up", "Up"
		switch {
		case !st.AdminUp:
			status, proto = "Shutdown", "Down"
		case !st.OperUp:
			status, proto = "Down", "Down"
		}
		addr := "unassigned"
		if v4, _ := dialect.SplitAddrs(it); len(v4) > 0 {
			addr = v4[0].Addr().String()
		}
		fmt.Fprintf(&b, "%-31s%-16s%-16s%-9s%s \n", it.Name, addr, status, proto, cmp.Or(it.VRF, "default"))
	}
	return b.String(), nil
}

func showInterface(v *dialect.View, args []string) (string, error) {
	names, err := v.IfNames(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n")
	for _, name := range names {
		it := *v.Config.Iface(name, false)
		st := v.IfState(name)
		state, lp := "up", "up"
		switch {
		case !st.AdminUp:
			state, lp = "administratively down", "administratively down"
		case !st.OperUp:
			state, lp = "down", "down"
		}
		loop := strings.HasPrefix(strings.ToLower(name), "loopback")
		fmt.Fprintf(&b, "%s is %s, line protocol is %s \n", name, state, lp)
		b.WriteString("  Interface state transitions: 1\n")
		if loop {
			b.WriteString("  Hardware is Loopback interface(s)\n")
		} else {
			mac := dialect.MacDotted(st.MAC, ".")
			fmt.Fprintf(&b, "  Hardware is GigabitEthernet, address is %s (bia %s)\n", mac, mac)
		}
		if it.Description != "" {
			fmt.Fprintf(&b, "  Description: %s\n", it.Description)
		}
		v4, v6 := dialect.SplitAddrs(it)
		if len(v4) == 0 {
			b.WriteString("  Internet address is Unknown\n")
		}
		for _, p := range v4 {
			fmt.Fprintf(&b, "  Internet address is %s\n", p)
		}
		for _, p := range v6 {
			fmt.Fprintf(&b, "  IPv6 address is %s\n", p)
		}
		if it.VRF != "" {
			fmt.Fprintf(&b, "  VRF is %s\n", it.VRF)
		}
		bw := 1000000
		if loop {
			bw = 0
		}
		fmt.Fprintf(&b, "  MTU %d bytes, BW %d Kbit (Max: %d Kbit)\n", st.MTU, bw, bw)
		b.WriteString("     reliability 255/255, txload 0/255, rxload 0/255\n")
		if loop {
			b.WriteString("  Encapsulation Loopback,  loopback not set,\n")
		} else {
			b.WriteString("  Encapsulation ARPA,\n  Full-duplex, 1000Mb/s, link type is force-up\n  output flow control is off, input flow control is off\n  loopback not set,\n")
		}
		fmt.Fprintf(&b, "  Last link flapped %s\n", dialect.FmtDuration(v.Now.Sub(v.Device.LastChange(name))))
		fmt.Fprintf(&b, "  Last input 00:00:00, output 00:00:00\n  Last clearing of \"show interface\" counters %s\n", lastClearAgo(v.Now, st.Counters))
		b.WriteString("  5 minute input rate 0 bits/sec, 0 packets/sec\n  5 minute output rate 0 bits/sec, 0 packets/sec\n")
		c := st.Counters
		fmt.Fprintf(&b, "     %d packets input, %d bytes, %d total input drops\n", c.InPkts, c.InOctets, c.InDiscards)
		b.WriteString("     0 drops for unrecognized upper-level protocol\n     Received 0 broadcast packets, 0 multicast packets\n")
		fmt.Fprintf(&b, "     %d input errors, %d CRC, 0 frame, 0 overrun, 0 ignored, 0 abort\n", c.InErrors, c.InErrors)
		fmt.Fprintf(&b, "     %d packets output, %d bytes, %d total output drops\n", c.OutPkts, c.OutOctets, c.OutDiscards)
		fmt.Fprintf(&b, "     %d output errors, 0 underruns, 0 applique, 0 resets\n\n", c.OutErrors)
	}
	return b.String(), nil
}

const routeCodes = `Codes: C - connected, S - static, R - RIP, B - BGP, (>) - Diversion path
       D - EIGRP, EX - EIGRP external, O - OSPF, IA - OSPF inter area
       N1 - OSPF NSSA external type 1, N2 - OSPF NSSA external type 2
       E1 - OSPF external type 1, E2 - OSPF external type 2, E - EGP
       i - ISIS, L1 - IS-IS level-1, L2 - IS-IS level-2
       ia - IS-IS inter area, su - IS-IS summary null, * - candidate default
       U - per-user static route, o - ODR, L - local, G  - DAGR, l - LISP
       A - access/subscriber, a - Application route
       M - mobile route, r - RPL, t - Traffic Engineering, (!) - FRR Backup path
`

func showRoute(v *dialect.View, args []string) (string, error) {
	fam := 4
	var rest []string
	for _, a := range args {
		switch a {
		case "ipv6":
			fam = 6
		case "ipv4", "unicast":
		default:
			rest = append(rest, a)
		}
	}
	o, err := dialect.ParseOpts(rest, v.Dialect)
	if err != nil {
		return "", err
	}
	vrf := o.VRF
	if vrf == "default" {
		vrf = ""
	}
	if err := v.CheckVRF(vrf); err != nil {
		return "", err
	}
	var only netip.Addr
	if len(o.Rest) == 1 {
		if only, err = netip.ParseAddr(o.Rest[0]); err != nil {
			p, perr := netip.ParsePrefix(o.Rest[0])
			if perr != nil {
				return "", dialect.Errorf("unexpected %q (cisco-iosxr: show route [vrf NAME] [ipv4|ipv6] [ADDRESS])", o.Rest[0])
			}
			only = p.Addr()
		}
		fam = map[bool]int{true: 4, false: 6}[only.Is4()]
	} else if len(o.Rest) > 1 {
		return "", dialect.Errorf("unexpected %q (cisco-iosxr)", strings.Join(o.Rest, " "))
	}
	routes, err := v.Net.Routes(v.Name, vrf, fam)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n\n")
	age := dialect.FmtDuration(v.Uptime())
	if only.IsValid() {
		b.WriteString(routeEntry(routes, only, age))
		return b.String(), nil
	}
	b.WriteString(routeCodes + "\n")
	gw := "Gateway of last resort is not set\n"
	for _, r := range routes {
		if r.Active && r.Prefix.Bits() == 0 {
			if r.NextHop.IsValid() {
				gw = fmt.Sprintf("Gateway of last resort is %s to network %s\n", r.NextHop, r.Prefix.Addr())
			} else {
				gw = fmt.Sprintf("Gateway of last resort is 0.0.0.0 to network %s\n", r.Prefix.Addr())
			}
		}
	}
	b.WriteString(gw + "\n")
	for i, r := range routes {
		switch {
		case !r.Active:
		case i > 0 && routes[i-1].Active && routes[i-1].Prefix == r.Prefix && r.NextHop.IsValid():
			// A further next hop of an equal-cost route: its own line,
			// aligned under the first one's "[distance/metric]".
			lead := len(fmt.Sprintf("%-4s %s ", routeCode(r), r.Prefix))
			fmt.Fprintf(&b, "%s[%d/%d] via %s, %s, %s\n", strings.Repeat(" ", lead), r.Preference, r.Metric, r.NextHop, age, r.Interface)
		default:
			b.WriteString(routeLine(v, r, age))
		}
	}
	return b.String(), nil
}

// routeCode is a route's code column: the protocol's letter, "*" for a
// default route.
func routeCode(r netsim.Route) string {
	code := map[string]string{"direct": "C", "static": "S", "igp": "O", "ospf": "O", "bgp": "B"}[r.Protocol]
	if r.Prefix.Bits() == 0 {
		code += "*"
	}
	return code
}

// routeEntry is "show route ADDRESS": the active route that matches it
// longest, in detail.
func routeEntry(routes []netsim.Route, only netip.Addr, age string) string {
	var best *netsim.Route
	for i := range routes {
		r := &routes[i]
		if r.Active && r.Prefix.Contains(only) && (best == nil || r.Prefix.Bits() > best.Prefix.Bits()) {
			best = r
		}
	}
	if best == nil {
		return "% Network not in table\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Routing entry for %s\n  Known via \"%s\", distance %d, metric %d\n  Installed %s ago\n  Routing Descriptor Blocks\n",
		best.Prefix, map[string]string{"direct": "connected", "static": "static", "igp": "ospf 1", "ospf": "ospf 1", "bgp": "bgp"}[best.Protocol], best.Preference, best.Metric, age)
	// One descriptor block per next hop (several for an equal-cost route).
	for _, r := range routes {
		if !r.Active || r.Prefix != best.Prefix {
			continue
		}
		nh := "directly connected"
		if r.NextHop.IsValid() {
			nh = r.NextHop.String() + ", from " + r.NextHop.String()
		}
		fmt.Fprintf(&b, "    %s, via %s\n", nh, cmp.Or(r.Interface, "Null0"))
	}
	return b.String()
}

// routeLine is an active route's line (two for a connected one: the
// subnet and the device's own address, L).
func routeLine(v *dialect.View, r netsim.Route, age string) string {
	code := routeCode(r)
	switch {
	case r.Discard:
		return fmt.Sprintf("%-4s %s is directly connected, %s, Null0\n", code, r.Prefix, age)
	case r.Protocol == "direct":
		s := fmt.Sprintf("%-4s %s is directly connected, %s, %s\n", code, r.Prefix, age, r.Interface)
		if own := v.OwnAddrIn(r.Interface, r.Prefix); r.Prefix.Bits() < r.Prefix.Addr().BitLen() && !strings.HasPrefix(own, "127.") && own != "::1" {
			s += fmt.Sprintf("%-4s %s/%d is directly connected, %s, %s\n", "L", own, r.Prefix.Addr().BitLen(), age, r.Interface)
		}
		return s
	case r.NextHop.IsValid():
		return fmt.Sprintf("%-4s %s [%d/%d] via %s, %s, %s\n", code, r.Prefix, r.Preference, r.Metric, r.NextHop, age, r.Interface)
	}
	return fmt.Sprintf("%-4s %s is directly connected, %s, %s\n", code, r.Prefix, age, r.Interface)
}

func arp(v *dialect.View, args []string) (string, error) {
	return v.ARPQuery(args, func(vrf string, entries []dialect.ARPEntry) string {
		var b strings.Builder
		b.WriteString(timestamp(v) + "\n\n")
		b.WriteString(strings.Repeat("-", 79) + "\n0/0/CPU0\n" + strings.Repeat("-", 79) + "\n")
		fmt.Fprintf(&b, "%-16s%-11s%-16s%-11s%-6s%s\n", "Address", "Age", "Hardware Addr", "State", "Type", "Interface")
		for _, e := range entries {
			age, state := "-", "Interface"
			switch e.Kind {
			case "dynamic":
				age, state = dialect.FmtDuration(e.Age), "Dynamic"
			case "static":
				state = "Static"
			}
			fmt.Fprintf(&b, "%-16s%-11s%-16s%-11s%-6s%s\n", e.IP, age, dialect.MacDotted(e.MAC, "."), state, "ARPA", e.If)
		}
		return b.String()
	})
}

func showVLAN(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n\n")
	fmt.Fprintf(&b, "%-5s%-33s%-10s%s\n", "VLAN", "Name", "Status", "Ports")
	b.WriteString("---- -------------------------------- --------- -------------------------------\n")
	for _, vl := range v.Config.Dev.VLANs {
		var ports []string
		for _, it := range v.Config.Dev.Interfaces {
			if it.AccessVLAN == vl.ID {
				ports = append(ports, shortIfName(it.Name))
			}
			for _, t := range it.TrunkVLANs {
				if t == vl.ID {
					ports = append(ports, shortIfName(it.Name)+"(T)")
				}
			}
		}
		fmt.Fprintf(&b, "%-5d%-33s%-10s%s\n", vl.ID, cmp.Or(vl.Name, fmt.Sprintf("VLAN%04d", vl.ID)), "active", strings.Join(ports, ", "))
	}
	return b.String(), nil
}

func logging(v *dialect.View, args []string) (string, error) {
	buf := v.Device.Log()
	entries, n, over := buf.Entries, buf.Count, buf.Overwritten
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n")
	fmt.Fprintf(&b, "Syslog logging: enabled (0 messages dropped, 0 flushes, %d overruns)\n", over)
	b.WriteString("    Console logging: level warnings, 0 messages logged\n    Monitor logging: level debugging, 0 messages logged\n")
	b.WriteString("    Trap logging: level informational, 0 messages logged\n")
	fmt.Fprintf(&b, "    Buffer logging: level debugging, %d messages logged\n\nLog Buffer (%d entries):\n\n", n, buf.Capacity)
	for _, e := range entries {
		b.WriteString(e.Text + "\n")
	}
	return b.String(), nil
}

func processesCPU(v *dialect.View, args []string) (string, error) {
	c, err := v.Device.CPU("")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n")
	fmt.Fprintf(&b, "CPU utilization for one minute: %.0f%%; five minutes: %.0f%%; fifteen minutes: %.0f%%\n\n", c.OneMinute, c.FiveMinute, (c.FiveMinute*2+c.OneMinute)/3)
	b.WriteString("PID    1Min    5Min    15Min Process\n")
	procs := []struct {
		pid   int
		name  string
		share float64
	}{{1142, "ipv4_rib", 0.22}, {1187, "ospf", 0.18}, {402, "ifmgr", 0.12}, {611, "cfgmgr-rp", 0.10}, {733, "sysdb_svr_local", 0.08}}
	for _, p := range procs {
		fmt.Fprintf(&b, "%-7d%3.0f%%%7.0f%%%8.0f%% %s\n", p.pid, c.OneMinute*p.share, c.FiveMinute*p.share, c.FiveMinute*p.share, p.name)
	}
	return b.String(), nil
}

func memorySummary(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n\n")
	for _, slot := range v.Device.Slots() {
		m, err := v.Device.Memory(slot)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "node:      node%s\n%s\n\n", strings.ReplaceAll(slot, "/", "_"), strings.Repeat("-", 66))
		fmt.Fprintf(&b, "Physical Memory: %dM total (%dM available)\n Application Memory : %dM (%dM available)\n", m.Total>>20, m.Free>>20, m.Total>>20-394, m.Free>>20)
		b.WriteString(" Image: 4M (bootram: 0M)\n Reserved: 0M, IOMem: 0M, flashfsys: 0M\n Total shared window: 0M\n\n")
	}
	return b.String(), nil
}

func version(v *dialect.View, args []string) (string, error) {
	d := v.Config.Dev
	up := v.Uptime()
	return fmt.Sprintf("%s\n\nCisco IOS XR Software, Version %s\nCopyright (c) 2013-2025 by Cisco Systems, Inc.\n\n"+
		"Build Information:\n Built By     : netmcp\n Built On     : simulated\n Version      : %s\n Location     : /opt/cisco/XR/packages/\n\n"+
		"cisco %s () processor\nSystem uptime is %d days %d hours %d minutes\n",
		timestamp(v), d.SoftwareVersion, d.SoftwareVersion, d.Platform, int(up.Hours())/24, int(up.Hours())%24, int(up.Minutes())%60), nil
}

func platform(v *dialect.View, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n")
	fmt.Fprintf(&b, "%-19s%-28s%-19s%s\n", "Node", "Type", "State", "Config state")
	b.WriteString(strings.Repeat("-", 80) + "\n")
	for i, s := range v.Device.Slots() {
		typ := v.Config.Dev.Platform + "-LC"
		if i == 0 {
			typ = v.Config.Dev.Platform + "-RP(Active)"
		}
		fmt.Fprintf(&b, "%-19s%-28s%-19s%s\n", s, typ, "IOS XR RUN", "NSHUT")
	}
	return b.String(), nil
}

func ping(v *dialect.View, args []string) (string, error) {
	req, err := v.Probe(args)
	if err != nil {
		return "", err
	}
	size := 100 // XR counts the whole datagram
	if req.Size > 0 {
		size = req.Size
	}
	req.Size = max(0, size-28)
	if req.Count == 0 {
		req.Count = 5
	}
	out, err := v.Net.Ping(req)
	if err != nil {
		return "", dialect.Errorf("ping: %v", err)
	}
	var b strings.Builder
	b.WriteString(timestamp(v) + "\nType escape sequence to abort.\n")
	fmt.Fprintf(&b, "Sending %d, %d-byte ICMP Echos to %s, timeout is 2 seconds:\n", req.Count, size, req.Destination)
	for i := 0; i < req.Count; i++ {
		c := "."
		if i < len(out.Replies) {
			switch out.Replies[i].Kind {
			case netsim.ResultReply:
				c = "!"
			case netsim.ResultHostUnreachable, netsim.ResultNetUnreachable:
				c = "U"
			case netsim.ResultFragNeeded:
				c = "M"
			}
		}
		b.WriteString(c)
	}
	recv, lo, avg, hi := dialect.PingStats(out)
	fmt.Fprintf(&b, "\nSuccess rate is %d percent (%d/%d)", recv*100/max(1, req.Count), recv, req.Count)
	if recv > 0 {
		fmt.Fprintf(&b, ", round-trip min/avg/max = %d/%d/%d ms", lo, avg, hi)
	}
	b.WriteString("\n")
	return b.String(), nil
}

func traceroute(v *dialect.View, args []string) (string, error) {
	req, err := v.Probe(args)
	if err != nil {
		return "", err
	}
	out, err := v.Net.Traceroute(req)
	if err != nil {
		return "", dialect.Errorf("traceroute: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nType escape sequence to abort.\nTracing the route to %s\n\n", timestamp(v), req.Destination)
	for _, h := range out.Hops {
		fmt.Fprintf(&b, " %d ", h.TTL)
		var from netip.Addr
		for _, p := range h.Probes {
			if p.Kind == netsim.ResultLost {
				b.WriteString(" * ")
				continue
			}
			if p.From != from {
				from = p.From
				fmt.Fprintf(&b, " %s", p.From)
			}
			fmt.Fprintf(&b, " %d msec", dialect.MsInt(p.RTT))
			if a := p.Annotation(); a != "" {
				b.WriteString(" " + a)
			}
			b.WriteString(" ")
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
