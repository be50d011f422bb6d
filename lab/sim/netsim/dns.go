package netsim

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// Outcomes of one DNS query (DNSOutcome.Kind).
const (
	// DNSAnswered: a response came back (any rcode).
	DNSAnswered = "answered"
	// DNSRefused: ICMP port unreachable came back: nothing listens on
	// port 53 there (no service, or a stopped one: "connection refused").
	DNSRefused = "connection-refused"
	// DNSTimedOut: nothing came back (loss, an ACL, no return path).
	DNSTimedOut = "timed-out"
	// DNSHostUnreachable: the sender or a router could not resolve the
	// next hop (ICMP host unreachable, or a failed ARP on the sender).
	DNSHostUnreachable = "host-unreachable"
	// DNSNetUnreachable: no route on the sender (the query was never sent)
	// or ICMP net unreachable from a router.
	DNSNetUnreachable = "network-unreachable"
)

// dnsPort is the DNS service's UDP and TCP port.
const dnsPort = 53

// DNSQuery asks a device to send one DNS query to a server.
type DNSQuery struct {
	// From is the querying device; VRF its routing instance ("" global).
	From string
	VRF  string
	// Source is a source address or interface of From (optional).
	Source string
	// Server is the resolver address; a loopback address (127.0.0.1, ::1)
	// is the querying device itself.
	Server netip.Addr
	// Name and Type are the question (Type default A).
	Name string
	Type string
	// Try numbers the retries of one lookup (it varies the source port).
	Try int
}

// DNSOutcome is what became of a DNS query.
type DNSOutcome struct {
	// Kind is one of the DNS* outcome constants.
	Kind   string
	Server netip.Addr
	Source netip.Addr
	// ServerDevice is the device that answered (Kind DNSAnswered).
	ServerDevice string
	// Message is the response (Kind DNSAnswered).
	Message DNSMessage
	// RTT is the round trip of an answer or an ICMP error.
	RTT time.Duration
	// Size is the response's size on the wire in bytes (with EDNS).
	Size int
}

// DNSQuery sends a query as a UDP packet from q.From's address to
// q.Server port 53 through the model (routing, ACLs, links, faults); the
// device that receives it answers from its DNS service (see AnswerDNS)
// with a UDP packet back to the query's source port, or, with no running
// service, ICMP port unreachable.
func (n *Network) DNSQuery(q DNSQuery) (DNSOutcome, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !q.Server.IsValid() {
		return DNSOutcome{}, fmt.Errorf("netsim: DNS query from %q: no server address", q.From)
	}
	if strings.TrimSpace(q.Name) == "" {
		return DNSOutcome{}, fmt.Errorf("netsim: DNS query from %q: no name", q.From)
	}
	if q.Type == "" {
		q.Type = "A"
	}
	server := q.Server.Unmap()
	out := DNSOutcome{Server: server}
	qsize := dnsQuerySize(q.Name)
	if server.IsLoopback() {
		d, ok := n.state.devs[q.From]
		if !ok {
			return DNSOutcome{}, fmt.Errorf("netsim: no device %q", q.From)
		}
		out.Source = server
		out.Kind = DNSRefused
		if d.down {
			out.Kind = DNSTimedOut
		} else if svc := d.cfg.DNS; svc != nil && !svc.Disabled {
			if err := n.dnsAnswer(&out, d, q); err != nil {
				return DNSOutcome{}, err
			}
		}
		out.RTT = ms(localRTTMS)
		return out, nil
	}
	pr, routed, err := n.prepare(ProbeRequest{From: q.From, VRF: q.VRF, Source: q.Source, Destination: server})
	if err != nil {
		return DNSOutcome{}, err
	}
	out.Source = pr.src
	if !routed {
		out.Kind = DNSNetUnreachable
		return out, nil
	}
	if pr.home.down {
		out.Kind = DNSTimedOut
		return out, nil
	}
	sport := 32768 + int(hash01(pr.m.seed, fmt.Sprintf("dns/%s/%s/%d", q.From, q.Name, q.Try), n.probes)*28000)
	p := packet{src: pr.src, dst: server, ttl: defaultPingTTL, size: 28 + qsize, proto: protoUDP, sport: sport, dport: dnsPort}
	var res fwResult
	if pr.local {
		res = fwResult{kind: fwDelivered, at: pr.home}
	} else {
		res = pr.m.forward(pr.home, nil, pr.vrf, p)
	}
	switch res.kind {
	case fwDelivered:
	case fwNoRoute:
		out.Kind = DNSNetUnreachable
		return out, nil
	case fwHostUnreach, fwNetUnreach:
		out.Kind = DNSHostUnreachable
		if res.kind == fwNetUnreach {
			out.Kind = DNSNetUnreachable
		}
		if res.in == nil && res.at == pr.home {
			return out, nil // the sender's own failure
		}
		a := pr.m.reply(pr.home, res, errorSource(res.at, res.in, pr.fam), pr.src, 56)
		if !a.ok {
			out.Kind = DNSTimedOut
			return out, nil
		}
		out.RTT = ms(res.delayMS + a.delayMS + pr.jitter("dns"))
		return out, nil
	default:
		out.Kind = DNSTimedOut
		return out, nil
	}
	var svc *topology.DNSService
	if res.neighbor == nil {
		svc = res.at.cfg.DNS
	}
	if svc == nil || svc.Disabled {
		// Nothing listens on port 53: ICMP port unreachable.
		if pr.local {
			out.Kind, out.RTT = DNSRefused, ms(localRTTMS)
			return out, nil
		}
		a := pr.m.reply(pr.home, res, server, pr.src, 56)
		if !a.ok {
			out.Kind = DNSTimedOut
			return out, nil
		}
		out.Kind, out.RTT = DNSRefused, ms(res.delayMS+a.delayMS+pr.jitter("dns"))
		return out, nil
	}
	if err := n.dnsAnswer(&out, res.at, q); err != nil {
		return DNSOutcome{}, err
	}
	if pr.local {
		out.RTT = ms(localRTTMS + pr.jitter("dns")/4)
		return out, nil
	}
	back := packet{src: server, dst: pr.src, ttl: res.at.initialTTL(), size: 28 + out.Size, proto: protoUDP, sport: dnsPort, dport: sport}
	vrf := ""
	if res.in != nil {
		vrf = res.in.vrf
	}
	b := pr.m.forward(res.at, nil, vrf, back)
	if b.kind != fwDelivered || b.at != pr.home || b.neighbor != nil {
		return DNSOutcome{Kind: DNSTimedOut, Server: server, Source: pr.src}, nil
	}
	out.RTT = ms(res.delayMS + b.delayMS + answerCostMS + pr.jitter("dns"))
	return out, nil
}

// dnsAnswer fills out with the answer of device d's service to q.
func (n *Network) dnsAnswer(out *DNSOutcome, d *device, q DNSQuery) error {
	msg, err := AnswerDNS(d.cfg.DNS, q.Name, q.Type)
	if err != nil {
		return fmt.Errorf("netsim: DNS service of %q: %v", d.name, err)
	}
	out.Kind, out.ServerDevice, out.Message = DNSAnswered, d.name, msg
	out.Size = dnsResponseSize(q.Name, q.Type, msg)
	return nil
}
