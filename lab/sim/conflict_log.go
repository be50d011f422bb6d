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
			drv.logMessage(now, drv.cli.Syslog().AddressConflict(c.IP, c.Interface, c.MAC))
		}
		l.conflicts[name] = cur
	}
}
