//go:build linux

package real

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// lldpdConfig renders lldpd's startup commands for a device: its host
// name, a one-second transmit interval (the lab's; the default is 30 s),
// interface names as port ids, and the custom TLVs.
func lldpdConfig(d *planDevice) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "configure system hostname %s\n", d.Dev.Name)
	b.WriteString("configure lldp tx-interval 1\n")
	b.WriteString("configure lldp portidsubtype ifname\n")
	if d.Dev.LLDP != nil {
		for _, t := range d.Dev.LLDP.CustomTLVs {
			oui, err := hexBytes(t.OUI)
			if err != nil || len(oui) != 3 {
				return "", fmt.Errorf("lldp custom TLV oui %q: want three bytes in hex", t.OUI)
			}
			val, err := hexBytes(t.Value)
			if err != nil || len(val) > 507 {
				return "", fmt.Errorf("lldp custom TLV value %q: want at most 507 bytes in hex", t.Value)
			}
			if t.Subtype < 0 || t.Subtype > 255 {
				return "", fmt.Errorf("lldp custom TLV subtype %d: want 0..255", t.Subtype)
			}
			fmt.Fprintf(&b, "configure lldp custom-tlv add oui %s subtype %d", commaHex(oui), t.Subtype)
			if len(val) > 0 {
				fmt.Fprintf(&b, " oui-info %s", commaHex(val))
			}
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}

// lldpInterfaces is the -I pattern of lldpd: the device's links.
func lldpInterfaces(d *planDevice) string {
	var names []string
	for _, i := range d.Ifaces {
		if i.Kind == ifVeth || i.Kind == ifUnplugged {
			names = append(names, i.Linux)
		}
	}
	return strings.Join(names, ",")
}

// hexBytes parses "6e:65:74", "6e,65,74" or "6e6574".
func hexBytes(s string) ([]byte, error) {
	s = strings.NewReplacer(":", "", ",", "", " ", "", "-", "").Replace(s)
	return hex.DecodeString(s)
}

// commaHex is lldpd's byte list form: "6e,65,74".
func commaHex(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return strings.Join(parts, ",")
}

// unboundConfig renders unbound's configuration of a DNS service on the
// device's addresses: authoritative local data for the zones, everything
// else refused (refuse_non_local), in the foreground, with no control
// socket and no privilege change.
func unboundConfig(d *planDevice, dir string) (string, error) {
	svc := d.Dev.DNS
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("server:")
	w("  do-daemonize: no")
	w("  username: \"\"")
	w("  chroot: \"\"")
	w("  directory: %q", dir)
	w("  pidfile: \"\"")
	w("  use-syslog: no")
	w("  logfile: \"\"")
	w("  module-config: \"iterator\"")
	w("  do-ip6: yes")
	w("  access-control: 0.0.0.0/0 refuse_non_local")
	w("  access-control: ::/0 refuse_non_local")
	n := 0
	for _, i := range d.Ifaces {
		if i.Kind == ifLoopback {
			continue
		}
		for _, a := range i.Addrs {
			w("  interface: %s", a.Addr())
			n++
		}
	}
	if n == 0 {
		return "", fmt.Errorf("dns-service: the device has no address to listen on")
	}
	for _, z := range svc.Zones {
		zone := strings.TrimSuffix(z.Name, ".") + "."
		w("  local-zone: %q static", zone)
		w("  local-data: \"%s 300 IN SOA ns.%s hostmaster.%s 1 3600 600 86400 300\"", zone, zone, zone)
		for _, r := range z.Records {
			line, err := dnsRecord(zone, r)
			if err != nil {
				return "", fmt.Errorf("zone %s: %w", z.Name, err)
			}
			w("  local-data: %q", line)
		}
	}
	w("remote-control:")
	w("  control-enable: no")
	return b.String(), nil
}

// dnsRecord renders one record as unbound local-data.
func dnsRecord(zone string, r topology.DNSRecord) (string, error) {
	name := r.Name
	switch {
	case name == "@" || name == "":
		name = zone
	case !strings.HasSuffix(name, "."):
		name += "." + zone
	}
	ttl := r.TTL
	if ttl <= 0 {
		ttl = 300
	}
	val := r.Value
	switch strings.ToUpper(r.Type) {
	case "A", "AAAA":
		a, err := netip.ParseAddr(val)
		if err != nil || a.Is4() != (strings.ToUpper(r.Type) == "A") {
			return "", fmt.Errorf("record %s %s: %q is not an address of that type", r.Name, r.Type, val)
		}
	case "CNAME", "NS", "PTR", "MX":
		if f := strings.Fields(val); len(f) > 0 {
			last := f[len(f)-1]
			if !strings.HasSuffix(last, ".") {
				f[len(f)-1] = last + "." + zone
			}
			val = strings.Join(f, " ")
		}
	case "TXT":
		val = fmt.Sprintf("%q", val)
	default:
		return "", fmt.Errorf("record %s: type %q not supported", r.Name, r.Type)
	}
	return fmt.Sprintf("%s %d IN %s %s", name, ttl, strings.ToUpper(r.Type), val), nil
}
