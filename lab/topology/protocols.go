package topology

// This file holds the control-plane part of a topology: OSPFv2, BGP, LLDP,
// the hosts' resolver and the DNS service. Every field maps onto FRR (or
// lldpd, unbound) configuration one to one, so the same file builds the
// simulated network and the real one in network namespaces.

// OSPF is a router's OSPFv2 process. Interfaces join it through their
// Interface.OSPF settings; an interface without them is not in OSPF.
type OSPF struct {
	// RouterID overrides the device's router-id for OSPF.
	RouterID string `yaml:"router-id,omitempty" json:"router-id,omitempty"`
	// Redistribute lists the route sources fed into OSPF as external
	// routes: "connected", "static", "bgp".
	Redistribute []string `yaml:"redistribute,omitempty" json:"redistribute,omitempty"`
	// DefaultOriginate advertises a default route (FRR's
	// "default-information originate", "always" when the router has none).
	DefaultOriginate bool `yaml:"default-originate,omitempty" json:"default-originate,omitempty"`
	// ReferenceBandwidthMbps derives interface costs (FRR's
	// "auto-cost reference-bandwidth"; default 100).
	ReferenceBandwidthMbps int `yaml:"reference-bandwidth,omitempty" json:"reference-bandwidth,omitempty"`
}

// OSPF network types.
const (
	OSPFPointToPoint = "point-to-point"
	OSPFBroadcast    = "broadcast"
)

// InterfaceOSPF puts an interface into OSPF (FRR's "ip ospf ..." lines).
type InterfaceOSPF struct {
	// Area is the area id, dotted ("0.0.0.0") or decimal ("0").
	Area string `yaml:"area" json:"area"`
	// NetworkType is point-to-point or broadcast (default broadcast, as FRR).
	NetworkType string `yaml:"network-type,omitempty" json:"network-type,omitempty"`
	// Cost is the interface cost (default: reference bandwidth / interface speed, at least 1).
	Cost int `yaml:"cost,omitempty" json:"cost,omitempty"`
	// Hello and Dead are the intervals in seconds (default 10 and 40).
	Hello int `yaml:"hello-interval,omitempty" json:"hello-interval,omitempty"`
	Dead  int `yaml:"dead-interval,omitempty" json:"dead-interval,omitempty"`
	// Priority is the DR election priority on broadcast networks (default 1).
	Priority *int `yaml:"priority,omitempty" json:"priority,omitempty"`
	// Passive advertises the interface's prefix but forms no adjacency.
	Passive bool `yaml:"passive,omitempty" json:"passive,omitempty"`
	// MTUIgnore turns off the MTU check of Database Description packets.
	MTUIgnore bool `yaml:"mtu-ignore,omitempty" json:"mtu-ignore,omitempty"`
}

// BGP is a router's BGP process (one per device, global table).
type BGP struct {
	// ASN is the local autonomous system number (1-4294967295).
	ASN uint32 `yaml:"asn" json:"asn"`
	// RouterID overrides the device's router-id for BGP.
	RouterID string `yaml:"router-id,omitempty" json:"router-id,omitempty"`
	// Keepalive and Hold are the timers in seconds (default 60 and 180).
	Keepalive int `yaml:"keepalive,omitempty" json:"keepalive,omitempty"`
	Hold      int `yaml:"hold-time,omitempty" json:"hold-time,omitempty"`
	// Neighbors are the configured peers.
	Neighbors []BGPNeighbor `yaml:"neighbors,omitempty" json:"neighbors,omitempty"`
	// Networks are the prefixes advertised by "network" statements; a
	// prefix is advertised only while a route to it is in the RIB.
	Networks []string `yaml:"networks,omitempty" json:"networks,omitempty"`
	// Redistribute lists the route sources fed into BGP: "connected",
	// "static", "ospf".
	Redistribute []string `yaml:"redistribute,omitempty" json:"redistribute,omitempty"`
}

// BGPNeighbor is one configured BGP peer.
type BGPNeighbor struct {
	// Address is the peer's address (IPv4 or IPv6).
	Address string `yaml:"address" json:"address"`
	// RemoteAS is the AS the peer must announce in its OPEN; equal to the
	// local ASN for iBGP.
	RemoteAS    uint32 `yaml:"remote-as" json:"remote-as"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// UpdateSource is the local interface whose address sources the
	// session (typically a loopback for iBGP).
	UpdateSource string `yaml:"update-source,omitempty" json:"update-source,omitempty"`
	// EBGPMultihop allows an eBGP peer that many hops away (default 1).
	EBGPMultihop int `yaml:"ebgp-multihop,omitempty" json:"ebgp-multihop,omitempty"`
	// NextHopSelf rewrites the next hop of routes sent to an iBGP peer.
	NextHopSelf bool `yaml:"next-hop-self,omitempty" json:"next-hop-self,omitempty"`
	// Shutdown administratively disables the session.
	Shutdown bool `yaml:"shutdown,omitempty" json:"shutdown,omitempty"`
	// MaxPrefix tears the session down when the peer sends more prefixes
	// (0 = no limit).
	MaxPrefix int `yaml:"maximum-prefix,omitempty" json:"maximum-prefix,omitempty"`
	// Password is the TCP MD5 key: a secret, masked by the layers above.
	Password string `yaml:"password,omitempty" json:"password,omitempty"`
}

// LLDP configures a device's LLDP agent. LLDP runs on every link of every
// device unless Disabled.
type LLDP struct {
	Disabled bool `yaml:"disabled,omitempty" json:"disabled,omitempty"`
	// CustomTLVs are organisationally specific TLVs (type 127) the device
	// advertises; the device-to-device agent uses one for discovery.
	CustomTLVs []LLDPTLV `yaml:"custom-tlvs,omitempty" json:"custom-tlvs,omitempty"`
}

// LLDPTLV is one organisationally specific LLDP TLV.
type LLDPTLV struct {
	// OUI is three bytes in hex, colon or comma separated: "11:22:33".
	OUI string `yaml:"oui" json:"oui"`
	// Subtype is the organisationally defined subtype, 0-255.
	Subtype int `yaml:"subtype" json:"subtype"`
	// Value is the information string as bytes written in hex ("72:6f:6c"
	// or "726f6c"); at most 507 bytes.
	Value string `yaml:"value" json:"value"`
}

// DNSService is a DNS server running on a device (usually a host): it
// answers authoritatively for its zones and refuses recursion.
type DNSService struct {
	// Disabled stops the service (the port is closed).
	Disabled bool `yaml:"disabled,omitempty" json:"disabled,omitempty"`
	// Zones are the served zones.
	Zones []DNSZone `yaml:"zones" json:"zones"`
}

// DNSZone is one authoritative zone.
type DNSZone struct {
	// Name is the zone's origin, e.g. "lab.example".
	Name    string      `yaml:"name" json:"name"`
	Records []DNSRecord `yaml:"records" json:"records"`
}

// DNSRecord is one resource record. Name is relative to the zone ("www",
// "@" for the apex) or absolute with a trailing dot.
type DNSRecord struct {
	Name  string `yaml:"name" json:"name"`
	Type  string `yaml:"type" json:"type"` // A, AAAA, CNAME, MX, TXT, PTR, NS
	Value string `yaml:"value" json:"value"`
	TTL   int    `yaml:"ttl,omitempty" json:"ttl,omitempty"` // default 300
}
