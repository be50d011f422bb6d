package snmp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/netmcp/netmcp/netproto"
)

// MaxWalk bounds the objects one "walk" command returns.
const MaxWalk = 10000

var numericOIDRe = regexp.MustCompile(`^\.?[0-2](\.[0-9]{1,10})+$`)

// numericOID reports whether s is a numeric OID such as 1.3.6.1.2.1.1.
func numericOID(s string) bool { return len(s) <= 1024 && numericOIDRe.MatchString(s) }

// ExecCommands lists the commands Exec accepts. Every one is a read
// (GET or GETBULK): nothing Exec does can change the device.
func ExecCommands() []string {
	return []string{"show version", "show interfaces", "show ip route", "get OID...", "walk OID"}
}

// Exec runs one of ExecCommands: the tables as text, or a GET or walk of
// numeric OIDs (Debian and many hosts ship no MIB text, so names are not
// resolved). Anything else is refused with -32084.
func (d *Driver) Exec(ctx context.Context, command string) (string, error) {
	f := strings.Fields(command)
	unsupported := func() error {
		return netproto.Errorf(netproto.CodeConfigIncompatible,
			"command %q is not supported by the snmp driver (read-only commands: %s; OIDs are numeric, e.g. walk 1.3.6.1.2.1.2.2.1.2)",
			truncate(command, 80), strings.Join(ExecCommands(), ", "))
	}
	switch {
	case len(f) == 2 && f[0] == "show" && f[1] == "version":
		s, err := fetchSystem(ctx, d.c)
		if err != nil {
			return "", err
		}
		up := time.Duration(s.UpTime) * 10 * time.Millisecond
		return fmt.Sprintf("sysName: %s\nsysDescr: %s\nsysObjectID: %s\nsysUpTime: %s (%d)\n",
			s.Name, s.Descr, s.ObjectID, up.Round(time.Second), s.UpTime), nil
	case len(f) == 2 && f[0] == "show" && f[1] == "interfaces":
		s, err := collect(ctx, d.c, partSystem|partInterfaces|partAddresses)
		if err != nil {
			return "", err
		}
		return showInterfaces(s), nil
	case len(f) == 3 && f[0] == "show" && f[1] == "ip" && f[2] == "route":
		s, err := collect(ctx, d.c, partRoutes|partIfNames)
		if err != nil {
			return "", err
		}
		return showRoutes(s), nil
	case len(f) >= 2 && f[0] == "get":
		if len(f) > 1+gosnmp.MaxOids {
			return "", netproto.Errorf(netproto.CodeConfigIncompatible, "get takes at most %d OIDs", gosnmp.MaxOids)
		}
		oids := make([]string, 0, len(f)-1)
		for _, o := range f[1:] {
			if !numericOID(o) {
				return "", unsupported()
			}
			oids = append(oids, "."+strings.TrimPrefix(o, "."))
		}
		vs, err := d.c.get(ctx, oids...)
		if err != nil {
			return "", err
		}
		return formatPDUs(vs), nil
	case len(f) == 2 && f[0] == "walk":
		if !numericOID(f[1]) {
			return "", unsupported()
		}
		vs, err := d.c.walkLimit(ctx, "."+strings.TrimPrefix(f[1], "."), MaxWalk)
		if errors.Is(err, errTooMany) {
			return "", netproto.Errorf(netproto.CodeConfigIncompatible, "walk %s: more than %d objects; walk a smaller subtree", f[1], MaxWalk)
		}
		if err != nil {
			return "", err
		}
		return formatPDUs(vs), nil
	}
	return "", unsupported()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func showInterfaces(s *snapshot) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "Index\tName\tAdmin\tOper\tMTU\tSpeed\tIn octets\tIn pkts\tOut octets\tOut pkts\tAddresses")
	for _, it := range s.Ifs {
		var addrs []string
		for _, a := range append(append([]address(nil), it.V4...), it.V6...) {
			addrs = append(addrs, a.Prefix.String())
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", it.Index, it.name(),
			lookup(ietfAdm, it.Admin, "?"), lookup(ietfOper, it.Oper, "?"), it.MTU, it.Speed,
			it.C.InOctets, it.C.InUcast+it.C.InMcast+it.C.InBcast, it.C.OutOctets, it.C.OutUcast+it.C.OutMcast+it.C.OutBcast,
			strings.Join(addrs, " "))
	}
	w.Flush()
	return b.String()
}

func showRoutes(s *snapshot) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "Destination\tNext hop\tInterface\tProtocol\tMetric")
	for _, r := range s.Routes {
		nh := "-"
		if r.NextHop.IsValid() {
			nh = r.NextHop.String()
		}
		ifn := "-"
		if it := s.ifByIndex(r.IfIndex); it != nil {
			ifn = it.name()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\n", r.Dest, nh, ifn, lookup(sourceProtocol, r.Proto, fmt.Sprint(r.Proto)), r.Metric)
	}
	w.Flush()
	return b.String()
}

// formatPDUs prints objects as net-snmp's numeric output does:
// ".1.3.6.1.2.1.1.5.0 = STRING: r1".
func formatPDUs(vs []gosnmp.SnmpPDU) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%s = %s\n", v.Name, formatValue(v))
	}
	return b.String()
}

func formatValue(v gosnmp.SnmpPDU) string {
	switch v.Type {
	case gosnmp.OctetString:
		bs, _ := v.Value.([]byte)
		if printable(bs) {
			return fmt.Sprintf("STRING: %q", string(bs))
		}
		return "Hex-STRING: " + strings.ToUpper(strings.ReplaceAll(net.HardwareAddr(bs).String(), ":", " "))
	case gosnmp.ObjectIdentifier:
		return fmt.Sprintf("OID: %v", v.Value)
	case gosnmp.IPAddress:
		return fmt.Sprintf("IpAddress: %v", v.Value)
	case gosnmp.Integer:
		return fmt.Sprintf("INTEGER: %v", v.Value)
	case gosnmp.Counter32:
		return fmt.Sprintf("Counter32: %v", v.Value)
	case gosnmp.Counter64:
		return fmt.Sprintf("Counter64: %v", v.Value)
	case gosnmp.Gauge32:
		return fmt.Sprintf("Gauge32: %v", v.Value)
	case gosnmp.TimeTicks:
		return fmt.Sprintf("Timeticks: (%v)", v.Value)
	case gosnmp.NoSuchObject:
		return "No Such Object available on this agent at this OID"
	case gosnmp.NoSuchInstance:
		return "No Such Instance currently exists at this OID"
	case gosnmp.EndOfMibView:
		return "No more variables left in this MIB View"
	case gosnmp.Null:
		return "NULL"
	}
	return fmt.Sprintf("%v: %v", v.Type, v.Value)
}

func printable(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c > 0x7e {
			return false
		}
	}
	return true
}
