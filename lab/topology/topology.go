// Package topology describes a simulated network: devices with their
// interfaces, addresses, VLANs, VRFs, static routes and ACLs, the links
// between interfaces, and the faults injected on them. It is both the
// format of a topology YAML file and the input of the network model
// (package netsim), so a file on disk and a configuration edited through
// MCP describe the network the same way.
package topology

import "strings"

// Topology is a whole simulated network.
type Topology struct {
	// Name labels the network.
	Name string `yaml:"name" json:"name"`
	// Devices are the routers, switches and hosts.
	Devices []Device `yaml:"devices" json:"devices"`
	// Links join two interfaces, each written "device:interface".
	Links []Link `yaml:"links" json:"links"`
	// Faults are injected problems.
	Faults []Fault `yaml:"faults,omitempty" json:"faults,omitempty"`
}

// Device kinds.
const (
	KindRouter = "router"
	KindSwitch = "switch"
	KindHost   = "host"
)

// Device is one simulated device.
type Device struct {
	Name string `yaml:"name" json:"name"`
	// Kind is router (default), switch or host. A host answers pings and
	// forwards nothing; it serves no MCP server in a lab.
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty"`
	// Dialect is the CLI dialect: huawei-vrp or cisco-iosxr.
	Dialect         string `yaml:"dialect,omitempty" json:"dialect,omitempty"`
	Vendor          string `yaml:"vendor,omitempty" json:"vendor,omitempty"`
	Platform        string `yaml:"platform,omitempty" json:"platform,omitempty"`
	SoftwareVersion string `yaml:"version,omitempty" json:"version,omitempty"`
	// RouterID identifies the device in the IGP (defaults to its first loopback address).
	RouterID   string        `yaml:"router-id,omitempty" json:"router-id,omitempty"`
	Interfaces []Interface   `yaml:"interfaces" json:"interfaces"`
	VLANs      []VLAN        `yaml:"vlans,omitempty" json:"vlans,omitempty"`
	VRFs       []VRF         `yaml:"vrfs,omitempty" json:"vrfs,omitempty"`
	Routes     []StaticRoute `yaml:"static-routes,omitempty" json:"static-routes,omitempty"`
	ACLs       []ACL         `yaml:"acls,omitempty" json:"acls,omitempty"`
	// Neighbors are ARP/ND entries for hosts that are not modelled as devices.
	Neighbors []Neighbor `yaml:"neighbors,omitempty" json:"neighbors,omitempty"`
	// Users and SNMPCommunities are secrets: they appear in the running
	// configuration and must be redacted by the layers above.
	Users           []User   `yaml:"users,omitempty" json:"users,omitempty"`
	SNMPCommunities []string `yaml:"snmp-communities,omitempty" json:"snmp-communities,omitempty"`
	// Slots lists hardware slots (e.g. "0/RP0", "0/0/CPU0"); crash records per slot.
	Slots   []string      `yaml:"slots,omitempty" json:"slots,omitempty"`
	Crashes []CrashRecord `yaml:"crashes,omitempty" json:"crashes,omitempty"`
	// CPUBase is the idle CPU percentage around which the figure moves.
	CPUBase float64 `yaml:"cpu-base,omitempty" json:"cpu-base,omitempty"`
	// MemoryTotalMB is the total memory.
	MemoryTotalMB int `yaml:"memory-total-mb,omitempty" json:"memory-total-mb,omitempty"`

	// OSPF and BGP are the routing protocols (routers only); see protocols.go.
	OSPF *OSPF `yaml:"ospf,omitempty" json:"ospf,omitempty"`
	BGP  *BGP  `yaml:"bgp,omitempty" json:"bgp,omitempty"`
	// LLDP configures the LLDP agent (on by default on every device).
	LLDP *LLDP `yaml:"lldp,omitempty" json:"lldp,omitempty"`
	// Gateway is a host's default gateway: shorthand for a static default
	// route, and what the host_incorrect_gateway fault changes.
	Gateway string `yaml:"gateway,omitempty" json:"gateway,omitempty"`
	// DNSServers are the resolvers a host queries (its resolv.conf).
	DNSServers []string `yaml:"dns-servers,omitempty" json:"dns-servers,omitempty"`
	// DNS is a DNS service running on the device.
	DNS *DNSService `yaml:"dns-service,omitempty" json:"dns-service,omitempty"`
}

// Interface is one interface of a device.
type Interface struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Type is an iana-if-type identity without prefix: ethernetCsmacd
	// (default), softwareLoopback, l3ipvlan.
	Type string `yaml:"type,omitempty" json:"type,omitempty"`
	MTU  int    `yaml:"mtu,omitempty" json:"mtu,omitempty"` // default 1500
	// Shutdown sets admin state down (admin up is the default).
	Shutdown bool `yaml:"shutdown,omitempty" json:"shutdown,omitempty"`
	// Addresses are IPv4 or IPv6 prefixes in CIDR form, e.g. 10.0.12.1/30.
	Addresses []string `yaml:"addresses,omitempty" json:"addresses,omitempty"`
	MAC       string   `yaml:"mac,omitempty" json:"mac,omitempty"`
	// VRF puts the interface in a VRF (default: the global table).
	VRF string `yaml:"vrf,omitempty" json:"vrf,omitempty"`
	// AccessVLAN / TrunkVLANs make a switched port; RoutedVLAN makes a VLAN interface (SVI).
	AccessVLAN int    `yaml:"access-vlan,omitempty" json:"access-vlan,omitempty"`
	TrunkVLANs []int  `yaml:"trunk-vlans,omitempty" json:"trunk-vlans,omitempty"`
	RoutedVLAN int    `yaml:"routed-vlan,omitempty" json:"routed-vlan,omitempty"`
	IngressACL string `yaml:"ingress-acl,omitempty" json:"ingress-acl,omitempty"`
	EgressACL  string `yaml:"egress-acl,omitempty" json:"egress-acl,omitempty"`
	// IGPCost is the interface's cost in the IGP (default 10); 0 with
	// Passive true keeps the interface out of adjacencies.
	IGPCost int  `yaml:"igp-cost,omitempty" json:"igp-cost,omitempty"`
	Passive bool `yaml:"passive,omitempty" json:"passive,omitempty"`
	// SpeedMbps is the port speed (default 1000; 10000 for a TenGigE name).
	SpeedMbps int `yaml:"speed,omitempty" json:"speed,omitempty"`
	// OSPF puts the interface into the device's OSPF process. A device
	// with an OSPF process routes by OSPF alone; one without keeps the
	// abstract IGP of IGPCost and Passive, so old topologies work as before.
	OSPF *InterfaceOSPF `yaml:"ospf,omitempty" json:"ospf,omitempty"`
}

// VLAN is an 802.1Q VLAN.
type VLAN struct {
	ID   int    `yaml:"id" json:"id"`
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
}

// VRF is a routing instance.
type VRF struct {
	Name string `yaml:"name" json:"name"`
	RD   string `yaml:"rd,omitempty" json:"rd,omitempty"`
}

// StaticRoute is a static route; NextHop or Interface (or both) is set.
type StaticRoute struct {
	Prefix    string `yaml:"prefix" json:"prefix"`
	NextHop   string `yaml:"next-hop,omitempty" json:"next-hop,omitempty"`
	Interface string `yaml:"interface,omitempty" json:"interface,omitempty"`
	VRF       string `yaml:"vrf,omitempty" json:"vrf,omitempty"`
	Distance  int    `yaml:"distance,omitempty" json:"distance,omitempty"` // default 1
	// Discard makes a blackhole route (Null0).
	Discard bool `yaml:"discard,omitempty" json:"discard,omitempty"`
}

// ACL is an ordered list of rules; the first match decides, and a packet
// matching no rule is denied (implicit deny), as on routers.
type ACL struct {
	Name  string     `yaml:"name" json:"name"`
	Rules []ACLEntry `yaml:"rules" json:"rules"`
}

// ACLEntry is one ACL rule.
type ACLEntry struct {
	Seq    int    `yaml:"seq" json:"seq"`
	Action string `yaml:"action" json:"action"` // permit or deny
	// Protocol is ip (any IP packet), icmp, tcp, udp, ospf (IP protocol
	// 89) or arp (ARP requests and replies, which are not IP: a rule for
	// arp matches on Source/Destination as the ARP sender/target address).
	Protocol    string `yaml:"protocol,omitempty" json:"protocol,omitempty"`
	Source      string `yaml:"source,omitempty" json:"source,omitempty"`           // prefix; default any
	Destination string `yaml:"destination,omitempty" json:"destination,omitempty"` // prefix; default any
	// SrcPort and DstPort match TCP and UDP ports (0 = any).
	SrcPort int `yaml:"src-port,omitempty" json:"src-port,omitempty"`
	DstPort int `yaml:"dst-port,omitempty" json:"dst-port,omitempty"`
}

// Neighbor is a static ARP/ND entry of an unmodelled host.
type Neighbor struct {
	IP        string `yaml:"ip" json:"ip"`
	MAC       string `yaml:"mac" json:"mac"`
	Interface string `yaml:"interface" json:"interface"`
	// Reachable makes the host answer pings (default true).
	Unreachable bool `yaml:"unreachable,omitempty" json:"unreachable,omitempty"`
}

// User is a local account; Password is a secret.
type User struct {
	Name     string `yaml:"name" json:"name"`
	Role     string `yaml:"role,omitempty" json:"role,omitempty"`
	Password string `yaml:"password" json:"password"`
}

// CrashRecord is a crash recorded on a slot.
type CrashRecord struct {
	Slot    string `yaml:"slot" json:"slot"`
	Time    string `yaml:"time" json:"time"` // RFC 3339
	Process string `yaml:"process" json:"process"`
	Reason  string `yaml:"reason" json:"reason"`
}

// Link joins two interfaces, each "device:interface".
type Link struct {
	A     string  `yaml:"a" json:"a"`
	B     string  `yaml:"b" json:"b"`
	Delay float64 `yaml:"delay-ms,omitempty" json:"delay-ms,omitempty"` // one-way, default 0.5 ms
}

// SplitEnd splits a link end or fault target "device:interface" at its
// first colon; ok is false unless both parts are non-empty.
func SplitEnd(s string) (dev, ifname string, ok bool) {
	dev, ifname, ok = strings.Cut(s, ":")
	if !ok || dev == "" || ifname == "" {
		return "", "", false
	}
	return dev, ifname, true
}

// Fault kinds.
const (
	FaultLinkDown = "link-down" // the link carries nothing; both ends oper-down
	FaultLoss     = "loss"      // Percent of packets lost on the link, each way
	FaultMTU      = "mtu"       // MTU of Interface set to MTU
	FaultACLDrop  = "acl-drop"  // traffic to Destination dropped entering Interface
	FaultDelay    = "delay"     // DelayMS added on the link, each way
)

// Fault is an injected problem. A fault is named (Name, Target, Params:
// the NIKA vocabulary of Catalog, written "NAME TARGET key=value ..." in a
// topology file or after --fault) or, in the older form, has a Kind of the
// constants above. Link faults name the link by either end
// ("r1:GigabitEthernet0/0/0/0"); interface faults name the interface.
type Fault struct {
	// Name is a fault name of the Catalog, e.g. "bgp_acl_block".
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Target is a device ("h3"), an interface or a link end ("r2:Gi0/0/0/1").
	Target string `yaml:"target,omitempty" json:"target,omitempty"`
	// Params are the fault's parameters (keys of its FaultSpec).
	Params map[string]string `yaml:"params,omitempty" json:"params,omitempty"`

	// Kind is the older form's kind (link-down, loss, mtu, acl-drop, delay).
	Kind        string  `yaml:"kind,omitempty" json:"kind,omitempty"`
	Link        string  `yaml:"link,omitempty" json:"link,omitempty"`
	Interface   string  `yaml:"interface,omitempty" json:"interface,omitempty"`
	Percent     float64 `yaml:"percent,omitempty" json:"percent,omitempty"`
	MTU         int     `yaml:"mtu,omitempty" json:"mtu,omitempty"`
	Destination string  `yaml:"destination,omitempty" json:"destination,omitempty"`
	DelayMS     float64 `yaml:"delay-ms,omitempty" json:"delay-ms,omitempty"`
}
