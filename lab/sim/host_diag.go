package sim

import (
	"context"
	"net/netip"
	"strings"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// Diagnose runs ping, traceroute, tracepath or dig on the host through
// the network model, with the output of the Linux tools. A name is
// resolved as the host's resolver library would: through the DNS
// servers of its resolv.conf, in the model (so host_incorrect_dns or a
// stopped DNS service break `ping NAME` as they do on a real host).
func (h *HostDriver) Diagnose(ctx context.Context, req diag.Request, onLine func(string)) (device.DiagResult, error) {
	dev, err := h.config()
	if err != nil {
		return device.DiagResult{}, err
	}
	interval := req.Interval()
	if interval <= 0 {
		interval = defaultProbeInterval
	}
	em := &emitter{ctx: ctx, onLine: onLine, interval: interval, paced: h.lab.opts.Realtime}
	if req.Tool == "dig" {
		text, code := runDig(h.lab.net, h.name, req, dev.DNSServers, h.lab.opts.Now())
		em.lines(strings.Split(strings.TrimSuffix(text, "\n"), "\n"), 0)
		return device.DiagResult{Output: em.out.String(), ExitCode: code}, em.err
	}
	if req.Tool != "ping" && req.Tool != "traceroute" && req.Tool != "tracepath" {
		return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "diagnostic tool %q is not supported by a simulated host (ping, traceroute, tracepath, dig)", req.Tool)
	}
	dst, why := h.resolveName(dev, req.Destination, req.IPv6)
	if !dst.IsValid() {
		msg := req.Tool + ": " + req.Destination + ": " + why
		if req.Tool == "traceroute" {
			msg = "Cannot handle \"host\" cmdline arg `" + req.Destination + "' on position 1 (argc 1)"
		}
		em.line(msg)
		return device.DiagResult{Output: em.out.String(), ExitCode: 2}, nil
	}
	pr := netsim.ProbeRequest{From: h.name, VRF: req.VRF, Source: req.Source, Destination: dst,
		Count: req.Count, Size: req.PacketSize, DontFragment: req.DontFragment}
	if req.Tool == "ping" {
		pr.TTL = req.TTL
		out, err := h.lab.net.Ping(pr)
		if err != nil {
			return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "ping from %s: %v", h.name, err)
		}
		em.ping(namedPing(out.Render(), req.Destination, dst), max(out.Count, len(out.Replies)))
		return device.DiagResult{Output: em.out.String(), ExitCode: out.ExitCode()}, em.err
	}
	pr.MaxHops = req.MaxHops
	if req.Tool == "traceroute" {
		pr.Protocol = "udp"
	}
	out, err := h.lab.net.Traceroute(pr)
	if err != nil {
		return device.DiagResult{}, netproto.Errorf(netproto.CodeConfigIncompatible, "%s from %s: %v", req.Tool, h.name, err)
	}
	text := out.Render()
	if req.Tool == "tracepath" {
		text = out.RenderTracepath()
	} else if req.Destination != dst.String() {
		text = strings.Replace(text, "traceroute to "+dst.String()+" (", "traceroute to "+req.Destination+" (", 1)
	}
	return em.trace(out, req, text)
}

// resolverAttempts is glibc's default "attempts" per server.
const resolverAttempts = 2

// resolveName resolves a destination as getaddrinfo would on the host:
// an address as is, the host's own name (/etc/hosts) to its first
// address, anything else through the DNS servers of resolv.conf. On
// failure it returns the invalid address and the resolver's message.
func (h *HostDriver) resolveName(dev topology.Device, name string, v6 bool) (netip.Addr, string) {
	if a, err := netip.ParseAddr(name); err == nil {
		return a, ""
	}
	if strings.EqualFold(strings.TrimSuffix(name, "."), dev.Name) {
		if a, ok := deviceAddress(dev, v6); ok {
			return a, ""
		}
	}
	return resolveViaDNS(h.lab.net, h.name, "", dev.DNSServers, name, v6)
}

// resolveViaDNS resolves a name as a stub resolver (getaddrinfo) on device
// from does: an A (AAAA with v6) query to each server in turn (127.0.0.1
// when there is none), resolverAttempts tries each, through the model. On
// failure it returns the invalid address and the resolver's message.
func resolveViaDNS(n *netsim.Network, from, vrf string, servers []string, name string, v6 bool) (netip.Addr, string) {
	qtype := "A"
	if v6 {
		qtype = "AAAA"
	}
	if len(servers) == 0 {
		servers = []string{"127.0.0.1"}
	}
	for _, s := range servers {
		srv, err := netip.ParseAddr(s)
		if err != nil {
			continue
		}
		for try := 0; try < resolverAttempts; try++ {
			o, err := n.DNSQuery(netsim.DNSQuery{From: from, VRF: vrf, Server: srv, Name: name, Type: qtype, Try: try})
			if err != nil || o.Kind != netsim.DNSAnswered {
				continue
			}
			switch o.Message.Rcode {
			case netsim.RcodeNXDomain:
				return netip.Addr{}, "Name or service not known"
			case netsim.RcodeNoError:
				for i := len(o.Message.Answer) - 1; i >= 0; i-- {
					if rr := o.Message.Answer[i]; rr.Type == qtype {
						if a, err := netip.ParseAddr(rr.Data); err == nil {
							return a, ""
						}
					}
				}
				return netip.Addr{}, "No address associated with hostname"
			}
			try = resolverAttempts // REFUSED, SERVFAIL: the next server
		}
	}
	return netip.Addr{}, "Temporary failure in name resolution"
}

// namedPing writes the name the user gave in ping's header and statistics
// lines, as iputils does ("PING r1.lab.example (10.255.0.1) ...").
func namedPing(text, name string, dst netip.Addr) string {
	if name == dst.String() {
		return text
	}
	a := dst.String()
	text = strings.Replace(text, "PING "+a+" (", "PING "+name+" (", 1)
	return strings.Replace(text, "--- "+a+" ping statistics ---", "--- "+name+" ping statistics ---", 1)
}
