package sim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/sim/dialect"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// labDomain is the lab's domain: the routers' CLI takes <name>.lab.example
// for a device's name, like a hosts file (resolveHost). dig does not use
// it: it asks the DNS service of the model.
const labDomain = "lab.example"

// digVersion is the dig whose output format is reproduced.
const digVersion = "9.18.49"

// deviceAddress is the address a device's name stands for on the routers'
// CLI (and a host's own name on the host): its router ID or first
// loopback address, else its first address of the family.
func deviceAddress(d topology.Device, v6 bool) (netip.Addr, bool) {
	if !v6 && d.RouterID != "" {
		if a, err := netip.ParseAddr(d.RouterID); err == nil {
			return a, true
		}
	}
	var first netip.Addr
	for _, it := range d.Interfaces {
		for _, s := range it.Addresses {
			p, err := netip.ParsePrefix(s)
			if err != nil || p.Addr().Is6() != v6 {
				continue
			}
			if dialect.GuessType(it.Name) == "softwareLoopback" || it.Type == "softwareLoopback" {
				return p.Addr(), true
			}
			if !first.IsValid() {
				first = p.Addr()
			}
		}
	}
	return first, first.IsValid()
}

// dig runs dig on the router: the query goes to @server, else to the
// device's resolvers (its dns-servers), through the network model.
func (d *Driver) dig(req diag.Request) (string, int) {
	return runDig(d.lab.net, d.name, req, d.config().dev.DNSServers, d.lab.opts.Now())
}

// digTries is dig's +tries: attempts per server over UDP.
const digTries = 3

// runDig is dig 9.18 run on device from: each server (@server, else the
// resolv.conf servers, else 127.0.0.1 as dig falls back to) is tried
// digTries times until one answers; the model decides every outcome.
func runDig(n *netsim.Network, from string, req diag.Request, resolvConf []string, now time.Time) (string, int) {
	qtype := strings.ToUpper(cmp.Or(req.QueryType, "A"))
	qname := strings.TrimSuffix(req.Destination, ".") + "."
	var servers []netip.Addr
	if req.Server != "" {
		a, err := netip.ParseAddr(req.Server)
		if err != nil {
			return fmt.Sprintf("dig: couldn't get address for '%s': not found\n", req.Server), 10
		}
		servers = []netip.Addr{a}
	} else {
		for _, s := range resolvConf {
			if a, err := netip.ParseAddr(s); err == nil {
				servers = append(servers, a)
			}
		}
		if len(servers) == 0 {
			servers = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
		}
	}
	var errs []string
	timedOut := true
	for _, srv := range servers {
		for try := 0; try < digTries; try++ {
			o, err := n.DNSQuery(netsim.DNSQuery{From: from, VRF: req.VRF, Source: req.Source, Server: srv, Name: qname, Type: qtype, Try: try})
			if err != nil {
				return fmt.Sprintf("dig: %v\n", err), 10
			}
			switch o.Kind {
			case netsim.DNSAnswered:
				return renderDigAnswer(req, qname, qtype, o, errs, now), 0
			case netsim.DNSRefused:
				errs = append(errs, fmt.Sprintf(";; communications error to %s#53: connection refused", digAddr(srv)))
			case netsim.DNSHostUnreachable:
				errs = append(errs, fmt.Sprintf(";; communications error to %s#53: host unreachable", digAddr(srv)))
			case netsim.DNSNetUnreachable:
				errs = append(errs, fmt.Sprintf(";; UDP setup with %s#53(%s) for %s failed: network unreachable.", digAddr(srv), digAddr(srv), req.Destination))
			default:
				continue
			}
			timedOut = false
		}
	}
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e + "\n")
	}
	b.WriteString(digBanner(req))
	if timedOut {
		b.WriteString(";; connection timed out; no servers could be reached\n")
	} else {
		b.WriteString(";; no servers could be reached\n")
	}
	return b.String(), 9
}

// digAddr writes a server address as dig does.
func digAddr(a netip.Addr) string { return a.Unmap().String() }

// digBanner is dig's first lines: the command echo, the server count when
// @server is given, the global options.
func digBanner(req diag.Request) string {
	cmd := "; <<>> DiG " + digVersion + " <<>> "
	if req.Server != "" {
		cmd += "@" + req.Server + " "
	}
	cmd += req.Destination
	if req.QueryType != "" {
		cmd += " " + req.QueryType
	}
	s := "\n" + cmd + "\n"
	if req.Server != "" {
		s += "; (1 server found)\n"
	}
	return s + ";; global options: +cmd\n"
}

// renderDigAnswer prints a response as dig 9.18 does.
func renderDigAnswer(req diag.Request, qname, qtype string, o netsim.DNSOutcome, errs []string, now time.Time) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e + "\n")
	}
	b.WriteString(digBanner(req))
	m := o.Message
	h := fnv.New32a()
	h.Write([]byte(qname + qtype + now.String()))
	flags := "qr rd"
	if m.Authoritative {
		flags = "qr aa rd"
	}
	b.WriteString(";; Got answer:\n")
	fmt.Fprintf(&b, ";; ->>HEADER<<- opcode: QUERY, status: %s, id: %d\n", m.Rcode, h.Sum32()%65536)
	fmt.Fprintf(&b, ";; flags: %s; QUERY: 1, ANSWER: %d, AUTHORITY: %d, ADDITIONAL: 1\n", flags, len(m.Answer), len(m.Authority))
	b.WriteString(";; WARNING: recursion requested but not available\n\n")
	b.WriteString(";; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 1232\n;; QUESTION SECTION:\n")
	// dig's columns: the question's class at 32 (the ';' not counted),
	// a record's TTL at 24, class at 32, type at 40, data at 48.
	b.WriteString(";" + qname + digPad(len(qname), 32) + "IN" + digPad(34, 40) + qtype + "\n\n")
	for _, sec := range []struct {
		name string
		rrs  []netsim.DNSRecord
	}{{"ANSWER", m.Answer}, {"AUTHORITY", m.Authority}} {
		if len(sec.rrs) == 0 {
			continue
		}
		b.WriteString(";; " + sec.name + " SECTION:\n")
		for _, rr := range sec.rrs {
			b.WriteString(digRecord(rr) + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, ";; Query time: %d msec\n", dialect.MsInt(o.RTT))
	fmt.Fprintf(&b, ";; SERVER: %s#53(%s) (UDP)\n", digAddr(o.Server), digAddr(o.Server))
	fmt.Fprintf(&b, ";; WHEN: %s\n", now.UTC().Format("Mon Jan 02 15:04:05 UTC 2006"))
	fmt.Fprintf(&b, ";; MSG SIZE  rcvd: %d\n\n", o.Size)
	return b.String()
}

// digRecord writes one resource record in dig's columns.
func digRecord(rr netsim.DNSRecord) string {
	var b strings.Builder
	col := 0
	for _, f := range []struct {
		s  string
		to int
	}{{rr.Name, 24}, {strconv.Itoa(rr.TTL), 32}, {"IN", 40}, {rr.Type, 48}} {
		b.WriteString(f.s)
		col += len(f.s)
		pad := digPad(col, f.to)
		b.WriteString(pad)
		col = max(f.to, col+1)
	}
	b.WriteString(rr.Data)
	return b.String()
}

// digPad is BIND's indent: tabs (width 8) up to column to, or one blank
// when the text already reaches it.
func digPad(cur, to int) string {
	if n := to/8 - cur/8; n > 0 {
		return strings.Repeat("\t", n)
	}
	if to > cur {
		return strings.Repeat(" ", to-cur)
	}
	return " "
}
