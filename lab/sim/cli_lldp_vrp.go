package sim

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// VRP's LLDP and counter commands: display lldp neighbor [brief | interface
// X] and reset counters interface [X].

// lldpExpires is the time left before a neighbour's information expires:
// each neighbour advertises every 30 s, at its own phase, with a TTL of 120 s.
func lldpExpires(v *view, nb netsim.LLDPNeighbor) int {
	h := fnv.New32a()
	h.Write([]byte(nb.SystemName + "/" + nb.PortID))
	return nb.TTL - int((uint64(v.now.Unix())+uint64(h.Sum32()))%30)
}

// lldpNeighbors returns the device's neighbours, of one interface when
// args name one ("interface X").
func (v *view) lldpNeighbors(args []string) ([]netsim.LLDPNeighbor, error) {
	nbs, err := v.d.lab.net.LLDPNeighbors(v.d.name)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return nbs, nil
	}
	if !strings.EqualFold(args[0], "interface") || len(args) < 2 {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "unexpected %q (want interface NAME) (%s)", strings.Join(args, " "), v.d.dialect)
	}
	name, ok := v.resolveIf(args[1:])
	if !ok {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "no interface %q on %s (%s)", strings.Join(args[1:], " "), v.d.name, v.d.dialect)
	}
	var out []netsim.LLDPNeighbor
	for _, nb := range nbs {
		if nb.LocalInterface == name {
			out = append(out, nb)
		}
	}
	return out, nil
}

func vrpLLDPNeighbor(v *view, args []string) (string, error) {
	if len(args) > 0 && strings.EqualFold(args[0], "brief") {
		return vrpLLDPBrief(v, args[1:])
	}
	nbs, err := v.lldpNeighbors(args)
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
			row("Chassis ID", macDotted(nb.ChassisID, "-"))
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
			row("Expired time", fmt.Sprintf("%ds", lldpExpires(v, nb)))
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

func vrpLLDPBrief(v *view, args []string) (string, error) {
	nbs, err := v.lldpNeighbors(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-17s%-25s%-26s%s\n", "Local Intf", "Neighbor Dev", "Neighbor Intf", "Exptime(s)")
	for _, nb := range nbs {
		fmt.Fprintf(&b, "%-17s%-25s%-26s%d\n", shortIfName(DialectVRP, nb.LocalInterface), nb.SystemName,
			shortIfName(DialectVRP, nb.PortID), lldpExpires(v, nb))
	}
	return b.String(), nil
}

// vrpResetCounters: reset counters interface [X].
func vrpResetCounters(v *view, args []string) (string, error) {
	if len(args) == 0 || !strings.EqualFold(args[0], "interface") {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible, "incomplete command: reset counters interface [NAME] (%s)", v.d.dialect)
	}
	ifname, err := v.clearCounters(args[1:])
	if err != nil {
		return "", err
	}
	if ifname == "" {
		return "Info: The statistics of all interfaces have been cleared.\n", nil
	}
	return fmt.Sprintf("Info: The statistics of interface %s have been cleared.\n", ifname), nil
}
