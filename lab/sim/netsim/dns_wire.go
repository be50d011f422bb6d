package netsim

import (
	"strconv"
	"strings"
)

// Sizes of DNS messages on the wire (RFC 1035 section 4, with name
// compression as servers do it, and the EDNS OPT record of RFC 6891), so
// that dig's "MSG SIZE rcvd" is what the model's response would weigh.

const (
	dnsHeaderLen = 12
	dnsOPTLen    = 11 // root name, type, class, TTL, RDLENGTH 0
	dnsRRFixed   = 10 // type, class, TTL, RDLENGTH
)

// nameWriter counts the bytes of names written with compression: a name
// whose suffix was written before ends in a 2-byte pointer.
type nameWriter struct {
	seen map[string]bool
}

// size returns the encoded length of name (absolute, with trailing dot)
// and records its suffixes.
func (w *nameWriter) size(name string) int {
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	name = canonicalName(name)
	if name == "." {
		return 1
	}
	labels := strings.Split(strings.TrimSuffix(name, "."), ".")
	n := 0
	for i := range labels {
		suffix := strings.Join(labels[i:], ".") + "."
		if w.seen[suffix] {
			return n + 2
		}
		w.seen[suffix] = true
		n += 1 + len(labels[i])
	}
	return n + 1
}

// dnsQuerySize is the size of dig's query: header, question, OPT.
func dnsQuerySize(qname string) int {
	var w nameWriter
	return dnsHeaderLen + w.size(qname) + 4 + dnsOPTLen
}

// dnsResponseSize is the size of a response to qname with msg's records.
func dnsResponseSize(qname, qtype string, msg DNSMessage) int {
	var w nameWriter
	n := dnsHeaderLen + w.size(qname) + 4
	for _, sec := range [][]DNSRecord{msg.Answer, msg.Authority} {
		for _, rr := range sec {
			n += w.size(rr.Name) + dnsRRFixed + rdataSize(&w, rr)
		}
	}
	return n + dnsOPTLen
}

// rdataSize is the encoded length of a record's data.
func rdataSize(w *nameWriter, rr DNSRecord) int {
	switch rr.Type {
	case "A":
		return 4
	case "AAAA":
		return 16
	case "CNAME", "NS", "PTR":
		return w.size(rr.Data)
	case "MX":
		f := strings.Fields(rr.Data)
		if len(f) == 2 {
			return 2 + w.size(f[1])
		}
	case "SOA":
		f := strings.Fields(rr.Data)
		if len(f) == 7 {
			return w.size(f[0]) + w.size(f[1]) + 20
		}
	case "TXT":
		s, err := strconv.Unquote(rr.Data)
		if err != nil {
			s = strings.Trim(rr.Data, `"`)
		}
		n := 0
		for len(s) > 255 {
			n += 256
			s = s[255:]
		}
		return n + 1 + len(s)
	}
	return len(rr.Data)
}
