package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// The DNS faults in the simulator: port 53 denied by an ACL, and the
// device's DNS service stopped or serving a wrong record, each in the
// device's configuration.

// registerDNSFaults binds the DNS faults.
func registerDNSFaults(b *fault.Backend[*faultOp]) {
	b.Register("dns_port_blocked", configFault(aclChange("NIKA-DNS-BLOCK", func(topology.Fault) []topology.ACLEntry {
		return []topology.ACLEntry{{Action: "deny", Protocol: "udp", DstPort: 53}, {Action: "deny", Protocol: "tcp", DstPort: 53},
			{Action: "deny", Protocol: "udp", SrcPort: 53}, {Action: "deny", Protocol: "tcp", SrcPort: 53}}
	})))
	b.Register("dns_service_down", configFault(dnsServiceDown))
	b.Register("dns_record_error", configFault(dnsRecordError))
}

// dnsServiceDown disables the device's DNS service.
func dnsServiceDown(_ *netsim.Network, d topology.Device, _ topology.Fault, where string) (topology.Device, string, error) {
	if d.DNS == nil || d.DNS.Disabled {
		return d, "", fmt.Errorf("%s: %s runs no DNS service", where, d.Name)
	}
	s := *d.DNS
	s.Disabled = true
	d.DNS = &s
	return d, "DNS service stopped", nil
}

// dnsRecordError gives a record of the device's DNS service a wrong value.
func dnsRecordError(net *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	if d.DNS == nil {
		return d, "", fmt.Errorf("%s: %s runs no DNS service", where, d.Name)
	}
	s := *d.DNS
	s.Zones = slices.Clone(s.Zones)
	d.DNS = &s
	name := f.Param("name")
	for zi := range s.Zones {
		z := &s.Zones[zi]
		z.Records = slices.Clone(z.Records)
		for ri := range z.Records {
			r := &z.Records[ri]
			if name == "" && r.Type != "A" {
				continue
			}
			fqdn := strings.TrimSuffix(r.Name, ".")
			if !strings.HasSuffix(r.Name, ".") {
				fqdn = strings.TrimPrefix(r.Name+"."+z.Name, "@.")
			}
			if name != "" && !strings.EqualFold(name, r.Name) && !strings.EqualFold(strings.TrimSuffix(name, "."), fqdn) {
				continue
			}
			value := f.Param("value")
			if value == "" {
				v, err := wrongValue(net, r.Type)
				if err != nil {
					return d, "", fmt.Errorf("%s: %v", where, err)
				}
				value = v
			}
			if value == r.Value {
				return d, "", fmt.Errorf("%s: record %s %s already has value %s", where, fqdn, r.Type, value)
			}
			r.Value = value
			return d, fmt.Sprintf("record %s %s now %s", fqdn, r.Type, value), nil
		}
	}
	if name == "" {
		return d, "", fmt.Errorf("%s: %s serves no A record", where, d.Name)
	}
	return d, "", fmt.Errorf("%s: %s serves no record %q", where, d.Name, name)
}

// wrongValue is an unused address for an A or AAAA record (documentation
// prefixes no device of the lab uses), a name for the other types.
func wrongValue(net *netsim.Network, typ string) (string, error) {
	used := usedAddrs(net)
	switch typ {
	case "A":
		for i := 1; i < 255; i++ {
			a := netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})
			if !used[a] {
				return a.String(), nil
			}
		}
		return "", fmt.Errorf("no unused address in 192.0.2.0/24")
	case "AAAA":
		return "2001:db8:dead::1", nil
	}
	return "wrong.invalid.", nil
}
