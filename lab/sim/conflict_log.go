package sim

import (
	"strings"
	"time"
)

// logConflicts makes each router log, once, every duplicate of one of its
// own addresses that a device of its LANs announces (a host_ip_conflict
// with the gateway's address), as routers log a received ARP packet
// carrying their own address. A conflict that ends is forgotten, so it is
// logged again if it comes back. quiet records without logging (boot).
func (l *Lab) logConflicts(now time.Time, quiet bool) {
	if l.conflicts == nil {
		l.conflicts = map[string]map[string]bool{}
	}
	for _, name := range l.routers {
		drv := l.drivers[name]
		cs, err := l.net.AddressConflicts(name)
		if err != nil || drv == nil {
			continue
		}
		cur := map[string]bool{}
		for _, c := range cs {
			if c.OwnMAC == "" || c.With == "" {
				continue
			}
			own := false
			for _, it := range drv.config().dev.Interfaces {
				if it.Name == c.Interface {
					for _, a := range it.Addresses {
						own = own || strings.HasPrefix(a, c.IP.String()+"/")
					}
				}
			}
			if !own {
				continue
			}
			key := c.Interface + "|" + c.IP.String() + "|" + c.MAC
			cur[key] = true
			if quiet || l.conflicts[name][key] {
				continue
			}
			if drv.dialect == DialectVRP {
				drv.logf(now, 4, "ARP", "ARP_DUPLICATE_IPADDR", "Received an ARP packet with a duplicate IP address from the interface. (IpAddress=%s, InterfaceName=%s, MacAddress=%s)",
					c.IP, c.Interface, macDotted(c.MAC, "-"))
			} else {
				drv.logf(now, 4, "IP-ARP", "DUPADDR", "Duplicate IP address %s on %s, sourced by %s", c.IP, c.Interface, macDotted(c.MAC, "."))
			}
		}
		l.conflicts[name] = cur
	}
}
