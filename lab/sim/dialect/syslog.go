package dialect

import (
	"net/netip"
	"time"

	"github.com/netmcp/netmcp/device"
)

// Message is one log message as a dialect words it, before it becomes an
// entry of the device's log buffer.
type Message struct {
	Severity int
	// Facility is the XR facility or the VRP module ("LINEPROTO", "IFNET").
	Facility string
	// Name is the mnemonic's last part ("UPDOWN", "LINK_STATE").
	Name string
	// Text is the message itself.
	Text string
}

// AdjacencyChange is an OSPF adjacency's or a BGP session's change of state.
type AdjacencyChange struct {
	// Peer is the neighbour's router ID (OSPF) or address (BGP).
	Peer string
	// Interface is the local interface (OSPF).
	Interface   string
	Prev, State string
	// Reason says why, "" when the model gives none.
	Reason string
	// Area is the interface's area, dotted, "" when unknown (OSPF).
	Area string
	// RemoteAS is the peer's configured AS, 0 when unknown (BGP).
	RemoteAS uint32
}

// Syslog is the wording of a dialect's log messages: Format turns a
// message into the entry the device records, and each other method words
// one event.
type Syslog interface {
	// Format makes the log entry of m at t: its mnemonic and the full line
	// of text. seq returns the device's next message sequence number, for
	// dialects that print one.
	Format(m Message, t time.Time, hostname string, seq func() int) device.LogEntry
	// AdminDown: an interface was shut down.
	AdminDown(ifn string) Message
	// LinkState: an interface's physical state changed.
	LinkState(ifn string, up bool) Message
	// LineProtocol: an interface's line protocol changed (or is up at boot).
	LineProtocol(ifn string, up bool) Message
	// LinkErrors: an error rate rose on an interface (injected) or fell back.
	LinkErrors(ifn string, percent float64, injected bool) Message
	// MTUChanged: an interface's MTU changed.
	MTUChanged(ifn string, mtu int) Message
	// ConfigEvent: the configuration store reports a commit, confirm or
	// rollback (name is its mnemonic's last part, text its message).
	ConfigEvent(severity int, name, text string) Message
	// Boot: the device started with software version.
	Boot(version string) Message
	// CountersCleared: the counters of what ("all interfaces" or one) were cleared.
	CountersCleared(what string) Message
	// AddressConflict: a device on ifn answers for the device's own ip
	// with its MAC.
	AddressConflict(ip netip.Addr, ifn, mac string) Message
	// BGPChanged: a BGP session changed state.
	BGPChanged(c AdjacencyChange) Message
	// OSPFChanged: an OSPF adjacency changed state.
	OSPFChanged(c AdjacencyChange) Message
}
