package netsim

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
)

// DNS response codes the service answers with.
const (
	RcodeNoError  = "NOERROR"
	RcodeNXDomain = "NXDOMAIN"
	RcodeRefused  = "REFUSED"
)

// defaultDNSTTL is a record's TTL when the topology sets none.
const defaultDNSTTL = 300

// maxCNAMEChain bounds the CNAME chase (as servers do, against loops).
const maxCNAMEChain = 8

// DNSRecord is one resource record of an answer, its names absolute
// (lower case, with the trailing dot) and Data in presentation format.
type DNSRecord struct {
	Name string
	TTL  int
	Type string
	Data string
}

// DNSMessage is a DNS service's answer to one question.
type DNSMessage struct {
	Rcode string
	// Authoritative is the AA flag: set for answers from a served zone.
	Authoritative bool
	Answer        []DNSRecord
	Authority     []DNSRecord
}

// canonicalName lower-cases a name and makes it absolute.
func canonicalName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// ownerName makes a record's owner absolute in its zone: "@" is the apex,
// a name with a trailing dot is already absolute.
func ownerName(name, origin string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	switch {
	case name == "@" || name == "":
		return origin
	case strings.HasSuffix(name, "."):
		return name
	}
	return name + "." + origin
}

// inZone tells whether name is origin or below it.
func inZone(name, origin string) bool {
	return name == origin || strings.HasSuffix(name, "."+origin) || origin == "."
}

// zoneRR is one record of a compiled zone.
type zoneRR struct {
	owner string
	rr    DNSRecord
	// target is the absolute name a CNAME points to ("" for other types).
	target string
}

// compileZone turns a topology zone into records with absolute names and
// data in dig's presentation format.
func compileZone(z topology.DNSZone) (origin string, rrs []zoneRR, err error) {
	origin = canonicalName(z.Name)
	for i, r := range z.Records {
		owner := ownerName(r.Name, origin)
		if !inZone(owner, origin) {
			return "", nil, fmt.Errorf("zone %s: record %d: %s is outside the zone", origin, i+1, owner)
		}
		typ := strings.ToUpper(r.Type)
		ttl := r.TTL
		if ttl <= 0 {
			ttl = defaultDNSTTL
		}
		data, target, err := rdata(typ, r.Value, origin)
		if err != nil {
			return "", nil, fmt.Errorf("zone %s: record %d (%s %s): %v", origin, i+1, r.Name, typ, err)
		}
		rrs = append(rrs, zoneRR{owner: owner, target: target, rr: DNSRecord{Name: owner, TTL: ttl, Type: typ, Data: data}})
	}
	return origin, rrs, nil
}

// rdata checks a record's value and writes it as dig prints it; names in
// it are made absolute in the zone, as in a zone file.
func rdata(typ, v, origin string) (data, target string, err error) {
	v = strings.TrimSpace(v)
	switch typ {
	case "A", "AAAA":
		a, err := netip.ParseAddr(v)
		if err != nil || a.Is4() != (typ == "A") {
			return "", "", fmt.Errorf("value %q is not an IPv%s address", v, map[bool]string{true: "4", false: "6"}[typ == "A"])
		}
		return a.String(), "", nil
	case "CNAME", "NS", "PTR":
		if v == "" {
			return "", "", fmt.Errorf("empty name")
		}
		n := ownerName(v, origin)
		if typ == "CNAME" {
			target = n
		}
		return n, target, nil
	case "MX":
		f := strings.Fields(v)
		if len(f) != 2 {
			return "", "", fmt.Errorf("value %q: want \"PREFERENCE NAME\"", v)
		}
		var pref int
		if _, err := fmt.Sscanf(f[0], "%d", &pref); err != nil || pref < 0 || pref > 65535 {
			return "", "", fmt.Errorf("value %q: bad preference", v)
		}
		return fmt.Sprintf("%d %s", pref, ownerName(f[1], origin)), "", nil
	case "TXT":
		if strings.HasPrefix(v, "\"") && strings.HasSuffix(v, "\"") && len(v) >= 2 {
			return v, "", nil
		}
		return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`, "", nil
	}
	return "", "", fmt.Errorf("unsupported type (want A, AAAA, CNAME, MX, TXT, PTR or NS)")
}

// soaRecord is the SOA a zone answers negative responses with: the
// topology has no SOA records, so the service makes the one a zone file
// would need (primary ns.<zone>, the negative TTL being the default TTL).
func soaRecord(origin string) DNSRecord {
	return DNSRecord{Name: origin, TTL: defaultDNSTTL, Type: "SOA",
		Data: fmt.Sprintf("ns.%s hostmaster.%s 1 3600 900 604800 %d", origin, origin, defaultDNSTTL)}
}

// AnswerDNS answers a question as the DNS service svc does: authoritative
// answers for its zones (CNAME chased within the zone, NXDOMAIN for a
// name the zone lacks, an empty NOERROR with the SOA for a name without
// records of the type), REFUSED for names outside every zone (the service
// does not recurse).
func AnswerDNS(svc *topology.DNSService, qname, qtype string) (DNSMessage, error) {
	qname, qtype = canonicalName(qname), strings.ToUpper(qtype)
	best, bestLen := -1, -1
	for i, z := range svc.Zones {
		o := canonicalName(z.Name)
		if inZone(qname, o) && len(o) > bestLen {
			best, bestLen = i, len(o)
		}
	}
	if best < 0 {
		return DNSMessage{Rcode: RcodeRefused}, nil
	}
	origin, rrs, err := compileZone(svc.Zones[best])
	if err != nil {
		return DNSMessage{}, err
	}
	msg := DNSMessage{Rcode: RcodeNoError, Authoritative: true}
	name := qname
	for hop := 0; ; hop++ {
		exists := name == origin
		var cname *zoneRR
		matched := false
		for i := range rrs {
			r := &rrs[i]
			if r.owner != name {
				if strings.HasSuffix(r.owner, "."+name) {
					exists = true // an empty non-terminal
				}
				continue
			}
			exists = true
			if r.rr.Type == qtype || qtype == "ANY" {
				msg.Answer = append(msg.Answer, r.rr)
				matched = true
			} else if r.rr.Type == "CNAME" {
				cname = r
			}
		}
		if name == origin && (qtype == "SOA" || qtype == "ANY") {
			msg.Answer = append(msg.Answer, soaRecord(origin))
			matched = true
		}
		switch {
		case matched:
			return msg, nil
		case cname != nil && hop < maxCNAMEChain:
			msg.Answer = append(msg.Answer, cname.rr)
			if !inZone(cname.target, origin) {
				return msg, nil // out of zone: the resolver chases it
			}
			name = cname.target
			continue
		case !exists:
			msg.Rcode = RcodeNXDomain
		}
		msg.Authority = append(msg.Authority, soaRecord(origin))
		return msg, nil
	}
}
