package sim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/sim/netsim"
	"github.com/netmcp/netmcp/device/sim/topology"
)

// labDomain is the DNS zone of the lab: every device is <name>.lab.example.
const labDomain = "lab.example"

// digVersion is the dig whose output format is reproduced.
const digVersion = "9.18.49"

// deviceAddress is the address a device's DNS name resolves to: its router
// ID or first loopback address, else its first address of the family.
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
			if guessType(it.Name) == "softwareLoopback" || it.Type == "softwareLoopback" {
				return p.Addr(), true
			}
			if !first.IsValid() {
				first = p.Addr()
			}
		}
	}
	return first, first.IsValid()
}

// reachable tells whether one ping from the device to addr is answered.
func (d *Driver) reachable(vrf string, addr netip.Addr) (bool, int) {
	out, err := d.lab.net.Ping(netsim.ProbeRequest{From: d.name, VRF: vrf, Destination: addr, Count: 1})
	if err != nil || len(out.Replies) == 0 || out.Replies[0].Kind != netsim.ResultReply {
		return false, 0
	}
	return true, max(1, msInt(out.Replies[0].RTT))
}

// dig answers a query as the lab's resolver would: every host of the
// topology runs one. Without @server the first host reachable in the
// request's VRF is used.
func (d *Driver) dig(req device.DiagRequest) (string, int) {
	qtype := strings.ToUpper(cmp.Or(req.QueryType, "A"))
	qname := strings.ToLower(strings.TrimSuffix(req.Destination, ".")) + "."
	var server netip.Addr
	rtt, ok := 0, false
	if req.Server != "" {
		if a, err := netip.ParseAddr(req.Server); err == nil {
			server = a
			ok, rtt = d.reachable(req.VRF, a)
		}
	} else {
		for _, h := range d.lab.net.DevicesOfKind(topology.KindHost) {
			a, has := deviceAddress(h, false)
			if !has {
				continue
			}
			if !server.IsValid() {
				server = a
			}
			if ok, rtt = d.reachable(req.VRF, a); ok {
				server = a
				break
			}
		}
	}
	var b strings.Builder
	cmd := "; <<>> DiG " + digVersion + " <<>> "
	if req.Server != "" {
		cmd += "@" + req.Server + " "
	}
	cmd += req.Destination
	if req.QueryType != "" {
		cmd += " " + req.QueryType
	}
	b.WriteString("\n" + cmd + "\n")
	if req.Server != "" {
		b.WriteString("; (1 server found)\n")
	}
	b.WriteString(";; global options: +cmd\n")
	if !ok {
		b.WriteString(";; connection timed out; no servers could be reached\n")
		return b.String(), 9
	}
	var answers []string
	status := "NXDOMAIN"
	if host, inZone := strings.CutSuffix(qname, "."+labDomain+"."); inZone {
		for _, dev := range d.lab.devicesNamed(host) {
			status = "NOERROR"
			for _, t := range []string{"A", "AAAA"} {
				if qtype != t && qtype != "ANY" {
					continue
				}
				if a, has := deviceAddress(dev, t == "AAAA"); has {
					answers = append(answers, fmt.Sprintf("%s\t\t300\tIN\t%s\t%s", qname, t, a))
				}
			}
		}
	}
	if qname == labDomain+"." {
		status = "NOERROR"
	}
	h := fnv.New32a()
	h.Write([]byte(qname + qtype + d.lab.opts.Now().String()))
	authority := 0
	if len(answers) == 0 {
		authority = 1
	}
	b.WriteString(";; Got answer:\n")
	fmt.Fprintf(&b, ";; ->>HEADER<<- opcode: QUERY, status: %s, id: %d\n", status, h.Sum32()%65536)
	fmt.Fprintf(&b, ";; flags: qr aa rd ra; QUERY: 1, ANSWER: %d, AUTHORITY: %d, ADDITIONAL: 1\n\n", len(answers), authority)
	b.WriteString(";; OPT PSEUDOSECTION:\n; EDNS: version: 0, flags:; udp: 1232\n;; QUESTION SECTION:\n")
	fmt.Fprintf(&b, ";%s\t\t\tIN\t%s\n\n", qname, qtype)
	size := 12 + len(qname) + 1 + 4 + 11
	if len(answers) > 0 {
		b.WriteString(";; ANSWER SECTION:\n")
		for _, a := range answers {
			b.WriteString(a + "\n")
			size += 12 + map[bool]int{true: 16, false: 4}[strings.Contains(a, "AAAA")]
		}
		b.WriteString("\n")
	} else {
		b.WriteString(";; AUTHORITY SECTION:\n")
		fmt.Fprintf(&b, "%s.\t\t300\tIN\tSOA\tns.%s. hostmaster.%s. 2025101901 3600 900 604800 300\n\n", labDomain, labDomain, labDomain)
		size += 2*len(labDomain) + 40
	}
	fmt.Fprintf(&b, ";; Query time: %d msec\n", rtt)
	fmt.Fprintf(&b, ";; SERVER: %s#53(%s) (UDP)\n", server, server)
	fmt.Fprintf(&b, ";; WHEN: %s\n", d.lab.opts.Now().UTC().Format("Mon Jan 02 15:04:05 UTC 2006"))
	fmt.Fprintf(&b, ";; MSG SIZE  rcvd: %d\n\n", size)
	return b.String(), 0
}
