package vrp

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// wording is VRP's log wording: MODULE/SEVERITY/NAME mnemonics, a
// sequence number in every line, upper-case states.
type wording struct{}

func msg(severity int, module, name, format string, args ...any) dialect.Message {
	return dialect.Message{Severity: severity, Facility: module, Name: name, Text: fmt.Sprintf(format, args...)}
}

// upper is "UP" or "DOWN".
func upper(up bool) string { return strings.ToUpper(dialect.UpDown(up)) }

func (wording) Format(m dialect.Message, t time.Time, hostname string, seq func() int) device.LogEntry {
	e := device.LogEntry{Time: t, Severity: m.Severity, Facility: m.Facility, Message: m.Text}
	e.Mnemonic = fmt.Sprintf("%s/%d/%s", m.Facility, m.Severity, m.Name)
	e.Text = fmt.Sprintf("%s %s %%%%01%s(l)[%d]:%s", t.UTC().Format("Jan _2 2006 15:04:05.000"), hostname, e.Mnemonic, seq(), m.Text)
	return e
}

func (wording) AdminDown(ifn string) dialect.Message {
	return msg(4, "IFNET", "IF_STATE", "Interface %s has turned into administratively DOWN state.", ifn)
}

func (wording) LinkState(ifn string, up bool) dialect.Message {
	return msg(4, "IFPDT", "IF_STATE", "Interface %s has turned into %s state.", ifn, upper(up))
}

func (wording) LineProtocol(ifn string, up bool) dialect.Message {
	return msg(4, "IFNET", "LINK_STATE", "The line protocol IP on the interface %s has entered the %s state.", ifn, upper(up))
}

func (wording) LinkErrors(ifn string, percent float64, injected bool) dialect.Message {
	if injected {
		return msg(2, "PORT", "CRCERRORRISING", "The CRC error is rising. (InterfaceName=%s, ErrorRate=%.0f%%)", ifn, percent)
	}
	return msg(2, "PORT", "CRCERRORRESUME", "The CRC error resume. (InterfaceName=%s)", ifn)
}

func (wording) MTUChanged(ifn string, mtu int) dialect.Message {
	return msg(6, "IFNET", "MTU_CHANGE", "The MTU of interface %s changed to %d.", ifn, mtu)
}

func (wording) ConfigEvent(severity int, name, text string) dialect.Message {
	return msg(severity, "CFG", name, "%s", text)
}

func (wording) Boot(version string) dialect.Message {
	return msg(5, "SYSTEM", "SYS_START", "The system is started. (Version=%s)", version)
}

func (wording) CountersCleared(what string) dialect.Message {
	return msg(5, "IFNET", "CLEAR_COUNTERS", "The statistics of %s were cleared.", what)
}

func (wording) AddressConflict(ip netip.Addr, ifn, mac string) dialect.Message {
	return msg(4, "ARP", "ARP_DUPLICATE_IPADDR", "Received an ARP packet with a duplicate IP address from the interface. (IpAddress=%s, InterfaceName=%s, MacAddress=%s)",
		ip, ifn, dialect.MacDotted(mac, "-"))
}

func (wording) BGPChanged(c dialect.AdjacencyChange) dialect.Message {
	reason := c.Reason
	if reason == "" {
		reason = map[bool]string{true: "Established", false: "None"}[c.State == netsim.BGPEstablished]
	}
	return msg(3, "BGP", "STATE_CHG_UPDATE",
		"The BGP peer state changed. (PeerAddress=%s, VpnInstance=_public_, PrevState=%s, CurrState=%s, Reason=%s)",
		c.Peer, c.Prev, c.State, reason)
}

func (wording) OSPFChanged(c dialect.AdjacencyChange) dialect.Message {
	event := c.Reason
	if event == "" {
		event = "StateChange"
	}
	return msg(6, "OSPF", "NBR_CHANGE_E",
		"Neighbor changes event: neighbor status changed. (ProcessId=1, NeighborAddress=%s, NeighborEvent=%s, NeighborPreviousState=%s, NeighborCurrentState=%s)",
		c.Peer, event, c.Prev, c.State)
}
