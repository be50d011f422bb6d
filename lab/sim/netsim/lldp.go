package netsim

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// LLDP as the model derives it: a device hears an LLDPDU on an interface
// when a link joins it to another device's interface, both interfaces are
// operationally up and neither device has LLDP disabled. What the
// neighbour advertises comes from its configuration: its name, the MAC of
// its first interface as chassis id, the interface name as port id, the
// interface description, its kind as capabilities, its router id (or first
// loopback address) as management address, and its custom TLVs.

// LLDPTTL is the time to live neighbours advertise (lldpd's and most
// routers' default: 4 x 30 s).
const LLDPTTL = 120

// LLDP capability names.
const (
	LLDPCapRouter  = "router"
	LLDPCapBridge  = "bridge"
	LLDPCapStation = "station"
)

// LLDPNeighbor is one neighbour a device learned on a local interface.
type LLDPNeighbor struct {
	// LocalInterface is the receiving interface.
	LocalInterface string
	// ChassisID is a MAC address (chassis id subtype 4).
	ChassisID string
	// PortID is the sending interface's name (port id subtype 5).
	PortID            string
	PortDescription   string
	SystemName        string
	SystemDescription string
	// Capabilities are the system capabilities, all enabled.
	Capabilities []string
	// ManagementAddress is invalid when the neighbour has no address.
	ManagementAddress netip.Addr
	TTL               int
	CustomTLVs        []LLDPTLV
}

// LLDPTLV is one organisationally specific TLV (type 127).
type LLDPTLV struct {
	OUI     [3]byte
	Subtype uint8
	Value   []byte
}

// OUIString is the OUI as "00:00:5e".
func (t LLDPTLV) OUIString() string {
	return fmt.Sprintf("%02x:%02x:%02x", t.OUI[0], t.OUI[1], t.OUI[2])
}

// ParseLLDPTLV decodes a topology TLV: the OUI is three hex bytes,
// colon or comma separated; the value is hex bytes, separated or not.
func ParseLLDPTLV(t topology.LLDPTLV) (LLDPTLV, error) {
	var out LLDPTLV
	oui, err := hexBytes(t.OUI)
	if err != nil || len(oui) != 3 {
		return out, fmt.Errorf("netsim: LLDP TLV OUI %q: want three hex bytes such as 00:00:5e", t.OUI)
	}
	copy(out.OUI[:], oui)
	if t.Subtype < 0 || t.Subtype > 255 {
		return out, fmt.Errorf("netsim: LLDP TLV subtype %d: want 0-255", t.Subtype)
	}
	out.Subtype = uint8(t.Subtype)
	if out.Value, err = hexBytes(t.Value); err != nil {
		return out, fmt.Errorf("netsim: LLDP TLV value %q: %v", t.Value, err)
	}
	if len(out.Value) > 507 {
		return out, fmt.Errorf("netsim: LLDP TLV value of %d bytes: at most 507", len(out.Value))
	}
	return out, nil
}

func hexBytes(s string) ([]byte, error) {
	s = strings.NewReplacer(":", "", ",", "", " ", "").Replace(s)
	return hex.DecodeString(s)
}

// lldpOn tells whether a device runs LLDP.
func lldpOn(d *device) bool { return d.cfg.LLDP == nil || !d.cfg.LLDP.Disabled }

// chassisID is a device's chassis id: the MAC of its first interface.
func (d *device) chassisID() string {
	if len(d.ifList) == 0 {
		return derivedMAC(d.name, "")
	}
	return d.ifList[0].mac
}

// managementAddress is the router id, else the first loopback IPv4
// address, else the first address of any interface.
func (d *device) managementAddress() netip.Addr {
	if a, err := netip.ParseAddr(d.cfg.RouterID); err == nil {
		return a
	}
	for _, it := range d.ifList {
		if it.loopback {
			if p, ok := it.addrOf(4); ok {
				return p.Addr()
			}
		}
	}
	for _, fam := range []int{4, 6} {
		for _, it := range d.ifList {
			if p, ok := it.addrOf(fam); ok {
				return p.Addr()
			}
		}
	}
	return netip.Addr{}
}

// lldpCapabilities are a device's system capabilities by kind.
func lldpCapabilities(kind string) []string {
	switch kind {
	case topology.KindSwitch:
		return []string{LLDPCapBridge}
	case topology.KindHost:
		return []string{LLDPCapStation}
	}
	return []string{LLDPCapRouter}
}

// systemDescription is what the neighbour says it is.
func systemDescription(c *topology.Device) string {
	return strings.Join(strings.Fields(strings.Join([]string{c.Vendor, c.Platform, c.SoftwareVersion}, " ")), " ")
}

// LLDPNeighbors returns the neighbours a device hears, in the order of its
// interfaces. A device with LLDP disabled hears nothing.
func (n *Network) LLDPNeighbors(dev string) ([]LLDPNeighbor, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	d, _, err := n.state.iface(dev, "")
	if err != nil {
		return nil, err
	}
	if !lldpOn(d) {
		return nil, nil
	}
	var out []LLDPNeighbor
	for _, it := range d.ifList {
		if it.link == nil || it.link.down || !it.operUp {
			continue
		}
		peer := it.link.other(it)
		if !peer.operUp || !lldpOn(peer.dev) {
			continue
		}
		pd := peer.dev
		nb := LLDPNeighbor{LocalInterface: it.name, ChassisID: pd.chassisID(), PortID: peer.name,
			PortDescription: peer.cfg.Description, SystemName: pd.name,
			SystemDescription: systemDescription(pd.cfg), Capabilities: lldpCapabilities(pd.kind),
			ManagementAddress: pd.managementAddress(), TTL: LLDPTTL}
		if pd.cfg.LLDP != nil {
			for _, t := range pd.cfg.LLDP.CustomTLVs {
				tlv, err := ParseLLDPTLV(t)
				if err != nil {
					return nil, fmt.Errorf("netsim: device %q: %v", pd.name, err)
				}
				nb.CustomTLVs = append(nb.CustomTLVs, tlv)
			}
		}
		out = append(out, nb)
	}
	return out, nil
}

// LLDP's ethertype and destination (nearest bridge).
const (
	etherTypeLLDP = 0x88cc
	lldpMulticast = "01:80:c2:00:00:0e"
	lldpInterval  = 30 * time.Second
)

// lldpdu is the LLDPDU a device sends out of an interface (IEEE 802.1AB
// section 8): chassis id (MAC), port id (interface name), TTL, port and
// system description, system name, capabilities, management address,
// the organisationally specific TLVs, end.
func lldpdu(d *device, it *iface) []byte {
	var b []byte
	tlv := func(typ int, v []byte) {
		b = append(b, byte(typ<<1|len(v)>>8), byte(len(v)))
		b = append(b, v...)
	}
	tlv(1, append([]byte{4}, macBytes(d.chassisID())...))
	tlv(2, append([]byte{5}, it.name...))
	tlv(3, []byte{0, LLDPTTL})
	if it.cfg.Description != "" {
		tlv(4, []byte(it.cfg.Description))
	}
	tlv(5, []byte(d.name))
	if s := systemDescription(d.cfg); s != "" {
		tlv(6, []byte(s))
	}
	var caps uint16
	for _, c := range lldpCapabilities(d.kind) {
		caps |= map[string]uint16{LLDPCapBridge: 0x04, LLDPCapRouter: 0x10, LLDPCapStation: 0x80}[c]
	}
	tlv(7, []byte{byte(caps >> 8), byte(caps), byte(caps >> 8), byte(caps)})
	if a := d.managementAddress(); a.IsValid() {
		ab, fam := a.AsSlice(), byte(1)
		if a.Is6() {
			fam = 2
		}
		v := append([]byte{byte(len(ab) + 1), fam}, ab...)
		v = append(v, 2, 0, 0, 0, 0, 0) // interface numbering: ifIndex, unknown; no OID
		tlv(8, v)
	}
	if d.cfg.LLDP != nil {
		for _, t := range d.cfg.LLDP.CustomTLVs {
			if p, err := ParseLLDPTLV(t); err == nil {
				tlv(127, append(append(p.OUI[:], p.Subtype), p.Value...))
			}
		}
	}
	tlv(0, nil)
	return b
}

func macBytes(s string) []byte {
	hw, err := net.ParseMAC(s)
	if err != nil || len(hw) != 6 {
		return make([]byte, 6)
	}
	return hw
}
