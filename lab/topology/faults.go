package topology

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// TargetKind tells what a fault's target names.
type TargetKind string

// Target kinds.
const (
	// TargetDevice is a device name: "r2", "h3".
	TargetDevice TargetKind = "device"
	// TargetInterface is "device:interface".
	TargetInterface TargetKind = "interface"
	// TargetLink is either end of a link, "device:interface".
	TargetLink TargetKind = "link"
)

// Device roles a fault applies to.
const (
	OnRouter = "router" // routers and switches
	OnHost   = "host"
	OnAny    = "any"
)

// FaultSpec describes one fault name: what it targets, its parameters
// and what it does. The fault names are those of the NIKA benchmark of
// network incidents (arXiv 2512.16381) where NIKA has one, so diagnoses
// score in NIKA's terms (root_cause_name).
type FaultSpec struct {
	Name string
	// Targets are the accepted target kinds, the first being the usual one.
	Targets []TargetKind
	// On is the kind of device the target must be: OnRouter, OnHost or OnAny.
	On string
	// Params are the accepted key=value parameters.
	Params []ParamSpec
	// NIKA is false for the few names netmcp adds (NIKA has no name for them).
	NIKA bool
	// Doc says what the fault does, in one sentence.
	Doc string
}

// ParamSpec is one parameter of a fault.
type ParamSpec struct {
	Key string
	// Default is the value used when the parameter is absent ("" = none or
	// derived from the topology, as Doc says).
	Default string
	Doc     string
}

var (
	dirParam     = ParamSpec{Key: "direction", Default: "both", Doc: "both, in or out (relative to the target interface)"}
	aclDirParam  = ParamSpec{Key: "direction", Default: "in", Doc: "in or out: the ACL is applied inbound or outbound on the interface"}
	hostIfParam  = ParamSpec{Key: "interface", Doc: "the host interface (default: its first addressed one)"}
	linkOnly     = []TargetKind{TargetLink}
	ifaceOnly    = []TargetKind{TargetInterface}
	deviceOnly   = []TargetKind{TargetDevice}
	deviceOrLink = []TargetKind{TargetInterface, TargetDevice}
)

// Catalog lists every fault netmcp can inject, sorted by name.
var Catalog = sortedSpecs([]FaultSpec{
	// Links and interfaces.
	{Name: "link_down", Targets: linkOnly, On: OnAny, NIKA: true,
		Doc: "the target end is shut down (ip link set down): administratively down, its peer without carrier"},
	{Name: "link_flap", Targets: linkOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{{Key: "period", Default: "10", Doc: "seconds between two downs"}, {Key: "down", Default: "3", Doc: "seconds each down lasts"}},
		Doc:    "the link goes down and up again periodically"},
	{Name: "link_detach", Targets: ifaceOnly, On: OnAny, NIKA: true,
		Doc: "the interface is detached from its link: administratively up without carrier, its peer up but hearing nothing"},
	{Name: "link_bandwidth_throttling", Targets: linkOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{{Key: "rate", Default: "64", Doc: "kbit/s"}, dirParam},
		Doc:    "the link is rate-limited: queueing delay grows and packets beyond the rate drop"},
	{Name: "link_high_packet_corruption", Targets: linkOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{{Key: "percent", Default: "30", Doc: "share of packets corrupted (and dropped as errors)"}, dirParam},
		Doc:    "packets are corrupted on the link and discarded by the receiver (input errors)"},
	{Name: "link_high_latency", Targets: linkOnly, On: OnAny, NIKA: false,
		Params: []ParamSpec{{Key: "delay-ms", Default: "200", Doc: "added one-way delay"}, {Key: "jitter-ms", Default: "0", Doc: "random variation"}, dirParam},
		Doc:    "the link adds delay"},
	{Name: "link_fragmentation_disabled", Targets: ifaceOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{{Key: "mtu", Default: "1400", Doc: "the lowered MTU"}},
		Doc:    "the interface's MTU is lowered and it does not fragment: large packets with DF get 'frag needed', others are dropped"},
	{Name: "mtu_mismatch", Targets: ifaceOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{{Key: "mtu", Default: "1400", Doc: "the interface's configured MTU"}},
		Doc:    "the interface's configured MTU differs from its neighbour's: OSPF sticks in ExStart/Exchange"},
	// ACLs: each is a real ACL in the device's configuration.
	{Name: "icmp_acl_block", Targets: ifaceOnly, On: OnAny, NIKA: true, Params: []ParamSpec{aclDirParam},
		Doc: "an ACL on the interface denies ICMP echo"},
	{Name: "bgp_acl_block", Targets: ifaceOnly, On: OnRouter, NIKA: true, Params: []ParamSpec{aclDirParam},
		Doc: "an ACL on the interface denies TCP port 179 (both source and destination port)"},
	{Name: "ospf_acl_block", Targets: ifaceOnly, On: OnRouter, NIKA: true, Params: []ParamSpec{aclDirParam},
		Doc: "an ACL on the interface denies IP protocol 89 (OSPF)"},
	{Name: "http_acl_block", Targets: ifaceOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{aclDirParam, {Key: "port", Default: "80", Doc: "the TCP port blocked"}},
		Doc:    "an ACL on the interface denies TCP to the HTTP port"},
	{Name: "dns_port_blocked", Targets: deviceOrLink, On: OnAny, NIKA: true, Params: []ParamSpec{aclDirParam},
		Doc: "UDP and TCP port 53 are denied on the interface (or on the DNS server's own interfaces for a device target)"},
	{Name: "arp_acl_block", Targets: ifaceOnly, On: OnAny, NIKA: true, Params: []ParamSpec{aclDirParam},
		Doc: "ARP is dropped on the interface: neighbours stay incomplete"},
	// Routing protocols: each is a real configuration difference.
	{Name: "ospf_neighbor_missing", Targets: ifaceOnly, On: OnRouter, NIKA: true,
		Doc: "the interface is removed from OSPF on the device: no adjacency on that link"},
	{Name: "ospf_area_misconfiguration", Targets: ifaceOnly, On: OnRouter, NIKA: true,
		Params: []ParamSpec{{Key: "area", Default: "", Doc: "the wrong area (default: one no neighbour uses)"}},
		Doc:    "the interface is put in a different OSPF area from its neighbour's"},
	{Name: "bgp_asn_misconfig", Targets: deviceOnly, On: OnRouter, NIKA: true,
		Params: []ParamSpec{{Key: "neighbor", Default: "", Doc: "the neighbour address (default: the first configured)"}, {Key: "remote-as", Default: "", Doc: "the wrong remote AS (default: the right one + 1000)"}},
		Doc:    "a BGP neighbour is configured with the wrong remote AS: Idle with OPEN Message Error/Bad Peer AS"},
	{Name: "bgp_missing_route_advertisement", Targets: deviceOnly, On: OnRouter, NIKA: true,
		Params: []ParamSpec{{Key: "prefix", Default: "", Doc: "the network statement removed (default: the first)"}},
		Doc:    "a BGP network statement is removed: the prefix disappears from the peers"},
	{Name: "frr_service_down", Targets: deviceOnly, On: OnRouter, NIKA: true,
		Doc: "the routing daemons stop: every adjacency and session of the router goes down, its protocol routes vanish"},
	// Hosts.
	{Name: "host_incorrect_ip", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{hostIfParam, {Key: "address", Default: "", Doc: "the wrong address in CIDR form (default: one outside the LAN's subnet)"}},
		Doc:    "the host's address is wrong"},
	{Name: "host_incorrect_netmask", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{hostIfParam, {Key: "prefix-length", Default: "", Doc: "the wrong prefix length (default: 30 on IPv4)"}},
		Doc:    "the host's netmask is wrong"},
	{Name: "host_incorrect_gateway", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{{Key: "gateway", Default: "", Doc: "the wrong gateway (default: an unused address of the LAN)"}},
		Doc:    "the host's default gateway is wrong"},
	{Name: "host_missing_ip", Targets: deviceOnly, On: OnHost, NIKA: true, Params: []ParamSpec{hostIfParam},
		Doc: "the host's interface has no address"},
	{Name: "host_ip_conflict", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{{Key: "with", Default: "", Doc: "the device whose address the host takes (default: its gateway)"}},
		Doc:    "the host uses an address another device already has"},
	{Name: "mac_address_conflict", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{{Key: "with", Default: "", Doc: "the device whose MAC the host takes (default: another host of its LAN, else its gateway)"}},
		Doc:    "the host uses a MAC address another device on its LAN already has"},
	{Name: "host_static_blackhole", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{{Key: "prefix", Default: "", Doc: "the blackholed destination (default: the other hosts' LANs)"}},
		Doc:    "the host has a static blackhole route"},
	{Name: "host_crash", Targets: deviceOnly, On: OnHost, NIKA: true,
		Doc: "the host is down: it answers nothing and its link is down"},
	{Name: "host_incorrect_dns", Targets: deviceOnly, On: OnHost, NIKA: true,
		Params: []ParamSpec{{Key: "server", Default: "", Doc: "the wrong resolver address (default: an address where no DNS service runs)"}},
		Doc:    "the host's resolver points to the wrong server"},
	// DNS service.
	{Name: "dns_service_down", Targets: deviceOnly, On: OnAny, NIKA: true,
		Doc: "the DNS service stops: queries get ICMP port unreachable (connection refused)"},
	{Name: "dns_record_error", Targets: deviceOnly, On: OnAny, NIKA: true,
		Params: []ParamSpec{{Key: "name", Default: "", Doc: "the record's owner name (default: the first A record)"}, {Key: "value", Default: "", Doc: "the wrong value (default: an unused address)"}},
		Doc:    "a DNS record of the service has a wrong value"},
})

func sortedSpecs(s []FaultSpec) []FaultSpec {
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	return s
}

// LookupFault returns the spec of a fault name.
func LookupFault(name string) (FaultSpec, bool) {
	i, ok := slices.BinarySearchFunc(Catalog, name, func(s FaultSpec, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return FaultSpec{}, false
	}
	return Catalog[i], true
}

// FaultNames lists every fault name of the catalog, sorted.
func FaultNames() []string {
	out := make([]string, len(Catalog))
	for i, s := range Catalog {
		out[i] = s.Name
	}
	return out
}

// ParseFault parses the words of a fault, "NAME TARGET [key=value ...]",
// as written after `netmcp lab up --fault` and in a topology's fault list:
//
//	bgp_acl_block r2:GigabitEthernet0/0/0/1
//	link_high_packet_corruption r1:GigabitEthernet0/0/0 percent=30 direction=out
//	host_incorrect_gateway h3 gateway=10.3.0.99
//
// It checks the name, the target's form and the parameter keys against
// the Catalog; whether the target exists is the network model's check.
func ParseFault(s string) (Fault, error) {
	words := strings.Fields(s)
	if len(words) < 2 {
		return Fault{}, fmt.Errorf("fault %q: want NAME TARGET [key=value ...]", s)
	}
	f := Fault{Name: words[0], Target: words[1]}
	for _, w := range words[2:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return Fault{}, fmt.Errorf("fault %q: parameter %q: want key=value", s, w)
		}
		if f.Params == nil {
			f.Params = map[string]string{}
		}
		if _, dup := f.Params[k]; dup {
			return Fault{}, fmt.Errorf("fault %q: parameter %q given twice", s, k)
		}
		f.Params[k] = v
	}
	if err := f.CheckSpec(); err != nil {
		return Fault{}, err
	}
	return f, nil
}

// CheckSpec checks a named fault against the Catalog: a known name, a
// target of an accepted form, known parameter keys.
func (f Fault) CheckSpec() error {
	spec, ok := LookupFault(f.Name)
	if !ok {
		return fmt.Errorf("fault %q: unknown name (known: %s)", f.Name, strings.Join(FaultNames(), ", "))
	}
	_, _, isEnd := SplitEnd(f.Target)
	switch {
	case f.Target == "":
		return fmt.Errorf("fault %s: needs a target", f.Name)
	case isEnd && !slices.Contains(spec.Targets, TargetInterface) && !slices.Contains(spec.Targets, TargetLink):
		return fmt.Errorf("fault %s: target %q: want a device name, not device:interface", f.Name, f.Target)
	case !isEnd && !slices.Contains(spec.Targets, TargetDevice):
		return fmt.Errorf("fault %s: target %q: want device:interface", f.Name, f.Target)
	}
	keys := make([]string, 0, len(f.Params))
	for k := range f.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.ContainsFunc(spec.Params, func(p ParamSpec) bool { return p.Key == k }) {
			known := make([]string, len(spec.Params))
			for i, p := range spec.Params {
				known[i] = p.Key
			}
			if len(known) == 0 {
				return fmt.Errorf("fault %s: unknown parameter %q (it takes none)", f.Name, k)
			}
			return fmt.Errorf("fault %s: unknown parameter %q (known: %s)", f.Name, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// Param returns a parameter's value, or its default from the Catalog.
func (f Fault) Param(key string) string {
	if v, ok := f.Params[key]; ok {
		return v
	}
	if spec, ok := LookupFault(f.Name); ok {
		for _, p := range spec.Params {
			if p.Key == key {
				return p.Default
			}
		}
	}
	return ""
}

// String writes a named fault back as its words, parameters sorted by key,
// so ParseFault(f.String()) gives f back.
func (f Fault) String() string {
	if f.Name == "" {
		return f.Kind
	}
	var b strings.Builder
	b.WriteString(f.Name)
	b.WriteByte(' ')
	b.WriteString(f.Target)
	keys := make([]string, 0, len(f.Params))
	for k := range f.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, f.Params[k])
	}
	return b.String()
}

// UnmarshalYAML accepts a fault written as its words (a string, as
// ParseFault takes) or as a mapping of its fields.
func (f *Fault) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		p, err := ParseFault(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		*f = p
		return nil
	}
	type plain Fault
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*f = Fault(p)
	if f.Name != "" {
		if err := f.CheckSpec(); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
	}
	return nil
}
