package xr

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// wording is XR's log wording: %FACILITY-SEVERITY-NAME mnemonics and
// lower-case states.
type wording struct{}

func msg(severity int, facility, name, format string, args ...any) dialect.Message {
	return dialect.Message{Severity: severity, Facility: facility, Name: name, Text: fmt.Sprintf(format, args...)}
}

func (wording) Format(m dialect.Message, t time.Time, hostname string, seq func() int) device.LogEntry {
	e := device.LogEntry{Time: t, Severity: m.Severity, Facility: m.Facility, Message: m.Text}
	e.Mnemonic = fmt.Sprintf("%s-%d-%s", m.Facility, m.Severity, m.Name)
	e.Text = fmt.Sprintf("%s: %%%s: %s", t.UTC().Format("Jan _2 15:04:05.000"), e.Mnemonic, m.Text)
	return e
}

func (wording) AdminDown(ifn string) dialect.Message {
	return msg(5, "LINK", "CHANGED", "Interface %s, changed state to administratively down", ifn)
}

func (wording) LinkState(ifn string, up bool) dialect.Message {
	return msg(3, "LINK", "UPDOWN", "Interface %s, changed state to %s", ifn, dialect.UpDown(up))
}

func (wording) LineProtocol(ifn string, up bool) dialect.Message {
	return msg(5, "LINEPROTO", "UPDOWN", "Line protocol on Interface %s, changed state to %s", ifn, dialect.UpDown(up))
}

func (wording) LinkErrors(ifn string, percent float64, injected bool) dialect.Message {
	act := "DECLARE"
	if !injected {
		act = "CLEAR"
	}
	return msg(3, "PKT_INFRA-FM", "FAULT_MAJOR", "ALARM_MAJOR :CRC-ERROR :%s :%s: input CRC error rate above threshold", act, ifn)
}

func (wording) MTUChanged(ifn string, mtu int) dialect.Message {
	return msg(6, "PKT_INFRA-IM", "MTU_CHANGE", "MTU of interface %s changed to %d", ifn, mtu)
}

func (wording) ConfigEvent(severity int, name, text string) dialect.Message {
	return msg(severity, "MGBL-CONFIG", name, "%s", text)
}

func (wording) Boot(version string) dialect.Message {
	return msg(5, "SYS", "RESTART", "System restarted -- Cisco IOS XR Software, Version %s", version)
}

func (wording) CountersCleared(what string) dialect.Message {
	return msg(6, "IFSTATS", "CLEAR_COUNTERS", "Clear counters on %s", what)
}

func (wording) AddressConflict(ip netip.Addr, ifn, mac string) dialect.Message {
	return msg(4, "IP-ARP", "DUPADDR", "Duplicate IP address %s on %s, sourced by %s", ip, ifn, dialect.MacDotted(mac, "."))
}

func (wording) BGPChanged(c dialect.AdjacencyChange) dialect.Message {
	up := c.State == netsim.BGPEstablished
	wasUp := c.Prev == netsim.BGPEstablished
	tail := " (VRF: default) (AS: " + asText(c.RemoteAS) + ")"
	switch {
	case up && !wasUp:
		return msg(5, "ROUTING-BGP", "ADJCHANGE", "neighbor %s Up%s", c.Peer, tail)
	case wasUp && !up:
		return msg(5, "ROUTING-BGP", "ADJCHANGE", "neighbor %s Down - %s%s", c.Peer, orText(c.Reason, "session closed"), tail)
	}
	// Neither up nor down: the session moved between the states that
	// lead to Established, or failed again for a (new) reason.
	return msg(5, "ROUTING-BGP", "ADJCHANGE_DETAIL", "neighbor %s %s - %s%s", c.Peer, c.State, orText(c.Reason, "state change from "+c.Prev), tail)
}

func (wording) OSPFChanged(c dialect.AdjacencyChange) dialect.Message {
	area := "?"
	if c.Area != "" {
		area = areaNumber(c.Area)
	}
	return msg(5, "ROUTING-OSPF", "ADJCHG", "Process 1, Nbr %s on %s in area %s from %s to %s, %s, vrf default vrfid 0x60000000",
		c.Peer, c.Interface, area, strings.ToUpper(c.Prev), strings.ToUpper(c.State), orText(c.Reason, "state change"))
}

// orText is s, or def when s is empty.
func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// asText formats an AS number ("?" when unknown).
func asText(n uint32) string {
	if n == 0 {
		return "?"
	}
	return fmt.Sprint(n)
}
