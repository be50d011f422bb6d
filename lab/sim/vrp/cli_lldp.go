package vrp

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/dialect"
)

// VRP's LLDP and counter commands: display lldp neighbor [brief | interface
// X] and reset counters interface [X].

func lldpNeighbor(v *dialect.View, args []string) (string, error) {
	if len(args) > 0 && strings.EqualFold(args[0], "brief") {
		return lldpBrief(v, args[1:])
	}
	nbs, err := v.LLDPNeighbors(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := 0; i < len(nbs); {
		local := nbs[i].LocalInterface
		j := i
		for j < len(nbs) && nbs[j].LocalInterface == local {
			j++
		}
		fmt.Fprintf(&b, "%s has %d neighbor(s):\n\n", local, j-i)
		for k, nb := range nbs[i:j] {
			caps := strings.Join(nb.Capabilities, " ")
			row := func(k, val string) { fmt.Fprintf(&b, "%-35s:%s\n", k, val) }
			row("Neighbor index", fmt.Sprint(k+1))
			row("Chassis type", "macAddress")
			row("Chassis ID", dialect.MacDotted(nb.ChassisID, "-"))
			row("Port ID type", "interfaceName")
			row("Port ID", nb.PortID)
			row("Port description", nb.PortDescription)
			row("System name", nb.SystemName)
			row("System description", nb.SystemDescription)
			row("System capabilities supported", caps)
			row("System capabilities enabled", caps)
			if nb.ManagementAddress.IsValid() {
				typ := "ipv4"
				if nb.ManagementAddress.Is6() {
					typ = "ipv6"
				}
				row("Management address type", typ)
				row("Management address", nb.ManagementAddress.String())
			}
			row("Expired time", fmt.Sprintf("%ds", v.LLDPExpires(nb)))
			for n, t := range nb.CustomTLVs {
				fmt.Fprintf(&b, "\nOrganizationally specific TLV %d:\n", n+1)
				row("  OUI", strings.ToUpper(strings.ReplaceAll(t.OUIString(), ":", "-")))
				row("  Subtype", fmt.Sprint(t.Subtype))
				row("  Information", strings.ToUpper(fmt.Sprintf("%x", t.Value)))
			}
			b.WriteString("\n")
		}
		i = j
	}
	return b.String(), nil
}

func lldpBrief(v *dialect.View, args []string) (string, error) {
	nbs, err := v.LLDPNeighbors(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-17s%-25s%-26s%s\n", "Local Intf", "Neighbor Dev", "Neighbor Intf", "Exptime(s)")
	for _, nb := range nbs {
		fmt.Fprintf(&b, "%-17s%-25s%-26s%d\n", shortIfName(nb.LocalInterface), nb.SystemName,
			shortIfName(nb.PortID), v.LLDPExpires(nb))
	}
	return b.String(), nil
}

// resetCounters: reset counters interface [X].
func resetCounters(v *dialect.View, args []string) (string, error) {
	if len(args) == 0 || !strings.EqualFold(args[0], "interface") {
		return "", dialect.Errorf("incomplete command: reset counters interface [NAME] (%s)", v.Dialect)
	}
	ifname, err := v.ClearCounters(args[1:])
	if err != nil {
		return "", err
	}
	if ifname == "" {
		return "Info: The statistics of all interfaces have been cleared.\n", nil
	}
	return fmt.Sprintf("Info: The statistics of interface %s have been cleared.\n", ifname), nil
}
