package xr

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
)

// IOS XR's LLDP and counter commands: show lldp neighbors [interface X]
// [detail] and clear counters [all | X].

const lldpLegend = `Capability codes:
        (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device
        (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other

`

var capCode = map[string]string{"router": "R", "bridge": "B", "station": "S"}

func capCodes(caps []string) string {
	var s []string
	for _, c := range caps {
		s = append(s, capCode[c])
	}
	return strings.Join(s, ",")
}

func lldpNeighbors(v *dialect.View, args []string) (string, error) {
	detail := len(args) > 0 && strings.EqualFold(args[len(args)-1], "detail")
	if detail {
		args = args[:len(args)-1]
	}
	nbs, err := v.LLDPNeighbors(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(timestamp(v) + "\n" + lldpLegend)
	if !detail {
		fmt.Fprintf(&b, "%-16s%-25s%-11s%-15s%s\n", "Device ID", "Local Intf", "Hold-time", "Capability", "Port ID")
		for _, nb := range nbs {
			fmt.Fprintf(&b, "%-16s%-25s%-11d%-15s%s\n", nb.SystemName, nb.LocalInterface, nb.TTL, capCodes(nb.Capabilities), nb.PortID)
		}
		fmt.Fprintf(&b, "\nTotal entries displayed: %d\n\n", len(nbs))
		return b.String(), nil
	}
	for _, nb := range nbs {
		b.WriteString("------------------------------------------------\n")
		fmt.Fprintf(&b, "Local Interface: %s\n", nb.LocalInterface)
		fmt.Fprintf(&b, "Chassis id: %s\n", dialect.MacDotted(nb.ChassisID, "."))
		fmt.Fprintf(&b, "Port id: %s\n", nb.PortID)
		fmt.Fprintf(&b, "Port Description: %s\n", nb.PortDescription)
		fmt.Fprintf(&b, "System Name: %s\n\n", nb.SystemName)
		fmt.Fprintf(&b, "System Description: \n%s\n\n", nb.SystemDescription)
		fmt.Fprintf(&b, "Time remaining: %d seconds\n", v.LLDPExpires(nb))
		fmt.Fprintf(&b, "Hold Time: %d seconds\n", nb.TTL)
		fmt.Fprintf(&b, "System Capabilities: %s\n", capCodes(nb.Capabilities))
		fmt.Fprintf(&b, "Enabled Capabilities: %s\n", capCodes(nb.Capabilities))
		b.WriteString("Management Addresses:\n")
		if a := nb.ManagementAddress; a.IsValid() {
			fam := "IPv4"
			if a.Is6() {
				fam = "IPv6"
			}
			fmt.Fprintf(&b, "  %s address: %s\n", fam, a)
		} else {
			b.WriteString("  not advertised\n")
		}
		if len(nb.CustomTLVs) > 0 {
			b.WriteString("Organizationally Specific TLVs:\n")
			for _, t := range nb.CustomTLVs {
				fmt.Fprintf(&b, "  OUI %s, subtype %d: %x\n", t.OUIString(), t.Subtype, t.Value)
			}
		}
		fmt.Fprintf(&b, "\nPeer MAC Address: %s\n\n", nb.ChassisID)
	}
	fmt.Fprintf(&b, "\nTotal entries displayed: %d\n\n", len(nbs))
	return b.String(), nil
}

// clearCounters: clear counters [all | X], confirmed.
func clearCounters(v *dialect.View, args []string) (string, error) {
	ifname, err := v.ClearCounters(args)
	if err != nil {
		return "", err
	}
	what := "all interfaces"
	if ifname != "" {
		what = ifname
	}
	return fmt.Sprintf("%s\nClear \"show interface\" counters on %s [confirm]\n", timestamp(v), what), nil
}
