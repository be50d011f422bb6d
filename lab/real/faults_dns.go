//go:build linux

package real

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/topology"
)

// The DNS faults on the real lab: port 53 dropped by nftables, and the
// DNS host's unbound stopped or restarted with a wrong record.

// registerDNSFaults binds the DNS faults.
func registerDNSFaults(b *fault.Backend[*Lab]) {
	b.Register("dns_port_blocked", onOff((*Lab).dnsPortBlocked))
	b.Register("dns_service_down", onOff((*Lab).dnsService))
	b.Register("dns_record_error", configured(onOff((*Lab).dnsRecord)))
}

// dnsRules are dns_port_blocked's nftables rules (nftACL adds the
// interface match).
var dnsRules = []string{"udp dport 53 counter drop", "tcp dport 53 counter drop"}

// dnsPortBlocked drops port 53 on an interface, or on every interface of
// a device target.
func (l *Lab) dnsPortBlocked(ctx context.Context, f topology.Fault, on bool) error {
	var d *planDevice
	ifname := ""
	if strings.Contains(f.Target, ":") {
		pd, i, err := l.target(f)
		if err != nil {
			return err
		}
		d, ifname = pd, i.Linux
	} else {
		pd, err := l.device(f)
		if err != nil {
			return err
		}
		d = pd
	}
	if !on {
		_, err := run(ctx, d.NS, "nft", "delete", "table", "inet", nftTable(f.Name, ifname))
		return err
	}
	return l.nft(ctx, d, nftACL(f.Name, ifname, f.Param("direction"), dnsRules))
}

// dnsService stops the device's unbound, and starts it again.
func (l *Lab) dnsService(ctx context.Context, f topology.Fault, on bool) error {
	d, p, err := l.dnsServer(f)
	if err != nil {
		return err
	}
	if on {
		if p == nil || !p.alive() {
			return fmt.Errorf("%s: %s's DNS service is not running", f.Name, f.Target)
		}
		return p.stop(3 * time.Second)
	}
	if p != nil && p.alive() {
		return nil
	}
	return l.startUnbound(d)
}

// dnsServer returns the target of a DNS fault and its unbound process
// (nil when it was never started).
func (l *Lab) dnsServer(f topology.Fault) (*planDevice, *proc, error) {
	d, err := l.device(f)
	if err != nil {
		return nil, nil, err
	}
	if d.Dev.DNS == nil || d.Dev.DNS.Disabled {
		return nil, nil, fmt.Errorf("%s: %s runs no DNS service", f.Name, f.Target)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return d, l.byName[d.Dev.Name+"/unbound"], nil
}

// dnsRecord restarts the device's unbound with one record's value wrong
// (the "name" parameter's record, by default the first A record; the
// "value" parameter, by default an address of no device), and with the
// plan's records again.
func (l *Lab) dnsRecord(ctx context.Context, f topology.Fault, on bool) error {
	d, p, err := l.dnsServer(f)
	if err != nil {
		return err
	}
	dd := *d
	if on {
		dns := *d.Dev.DNS
		dns.Zones = slices.Clone(dns.Zones)
		found := false
		for zi := range dns.Zones {
			recs := slices.Clone(dns.Zones[zi].Records)
			for ri, r := range recs {
				if found || !strings.EqualFold(r.Type, "A") || (f.Param("name") != "" && r.Name != f.Param("name")) {
					continue
				}
				v := f.Param("value")
				if v == "" {
					a, err := netip.ParseAddr(r.Value)
					if err != nil {
						return fmt.Errorf("%s: record %s: %v", f.Name, r.Name, err)
					}
					v = unusedAddr(netip.PrefixFrom(a, 24), l.plan).String()
				}
				if a, err := netip.ParseAddr(v); err != nil || !a.Is4() {
					return fmt.Errorf("%s: value %q is not an IPv4 address", f.Name, v)
				}
				recs[ri].Value, found = v, true
			}
			dns.Zones[zi].Records = recs
		}
		if !found {
			return fmt.Errorf("%s: %s has no A record %q", f.Name, f.Target, f.Param("name"))
		}
		dd.Dev.DNS = &dns
	}
	if p != nil && p.alive() {
		if err := p.stop(3 * time.Second); err != nil {
			return err
		}
	}
	// startUnbound returns once unbound serves (its "start of service").
	return l.startUnbound(&dd)
}
