package netsim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

func itoa(i int) string { return strconv.Itoa(i) }

// usec is a duration in whole microseconds, as iputils counts.
func usec(d time.Duration) int64 { return int64(d / time.Microsecond) }

// pingTime formats a round-trip time as iputils does: three significant
// decimals below 1 ms, two below 10 ms, one below 100 ms, none above.
func pingTime(d time.Duration) string {
	t := usec(d)
	switch {
	case t >= 100000-50:
		return fmt.Sprintf("%d", (t+500)/1000)
	case t >= 10000-5:
		return fmt.Sprintf("%d.%01d", (t+50)/1000, ((t+50)%1000)/100)
	case t >= 1000:
		return fmt.Sprintf("%d.%02d", (t+5)/1000, ((t+5)%1000)/10)
	default:
		return fmt.Sprintf("%d.%03d", t/1000, t%1000)
	}
}

// ExitCode is ping's exit status: 0 when some reply came, 1 when none
// did, 2 on an error that sent nothing.
func (o PingOutcome) ExitCode() int {
	switch {
	case o.Error != "":
		return 2
	case o.Received() > 0:
		return 0
	}
	return 1
}

// Received counts echo replies.
func (o PingOutcome) Received() int {
	n := 0
	for _, r := range o.Replies {
		if r.Kind == ResultReply {
			n++
		}
	}
	return n
}

// Errors counts ICMP errors (and local errors) received.
func (o PingOutcome) Errors() int {
	n := 0
	for _, r := range o.Replies {
		if r.Kind != ResultReply && r.Kind != ResultLost {
			n++
		}
	}
	return n
}

// errorText is ping's description of an error answer.
func (o PingOutcome) errorText(r PingReply) string {
	v6 := o.Destination.Is6()
	switch r.Kind {
	case ResultHostUnreachable:
		if v6 {
			return "Destination unreachable: Address unreachable"
		}
		return "Destination Host Unreachable"
	case ResultNetUnreachable:
		if v6 {
			return "Destination unreachable: No route"
		}
		return "Destination Net Unreachable"
	case ResultFragNeeded:
		if v6 {
			return fmt.Sprintf("Packet too big: mtu=%d", r.MTU)
		}
		return fmt.Sprintf("Frag needed and DF set (mtu = %d)", r.MTU)
	case ResultTimeExceeded:
		if v6 {
			return "Time exceeded: Hop limit"
		}
		return "Time to live exceeded"
	}
	return r.Kind
}

// Render returns the text iputils ping prints (ping6 layout for IPv6).
func (o PingOutcome) Render() string {
	var b strings.Builder
	if o.Error != "" {
		b.WriteString("ping: connect: " + o.Error + "\n")
		return b.String()
	}
	dst := o.Destination.String()
	from := ""
	if o.SourceGiven {
		from = fmt.Sprintf("from %s %s: ", o.Source, o.SourceIface)
	}
	if o.Destination.Is6() {
		fmt.Fprintf(&b, "PING %s(%s) %s%d data bytes\n", dst, dst, from, o.Size)
	} else {
		fmt.Fprintf(&b, "PING %s (%s) %s%d(%d) bytes of data.\n", dst, dst, from, o.Size, o.Size+28)
	}
	var tmin, tmax, tsum, tsum2 int64
	tmin = math.MaxInt64
	for _, r := range o.Replies {
		switch r.Kind {
		case ResultReply:
			fmt.Fprintf(&b, "%d bytes from %s: icmp_seq=%d ttl=%d time=%s ms\n", r.Bytes, r.From, r.Seq, r.TTL, pingTime(r.RTT))
			t := usec(r.RTT)
			tmin, tmax = min(tmin, t), max(tmax, t)
			tsum += t
			tsum2 += t * t
		case ResultLost:
		case ResultFragNeeded:
			if r.From == o.Source {
				fmt.Fprintf(&b, "ping: local error: message too long, mtu=%d\n", r.MTU)
				continue
			}
			fmt.Fprintf(&b, "From %s icmp_seq=%d %s\n", r.From, r.Seq, o.errorText(r))
		default:
			fmt.Fprintf(&b, "From %s icmp_seq=%d %s\n", r.From, r.Seq, o.errorText(r))
		}
	}
	tx, rx, errs := len(o.Replies), o.Received(), o.Errors()
	fmt.Fprintf(&b, "\n--- %s ping statistics ---\n", dst)
	fmt.Fprintf(&b, "%d packets transmitted, %d received", tx, rx)
	if errs > 0 {
		fmt.Fprintf(&b, ", +%d errors", errs)
	}
	if tx > 0 {
		loss := float64(tx-rx) * 100 / float64(tx)
		fmt.Fprintf(&b, ", %s%% packet loss, time %dms", strconv.FormatFloat(loss, 'g', 6, 64), o.Elapsed.Milliseconds())
	}
	b.WriteString("\n")
	sep := ""
	if rx > 0 {
		n := int64(rx)
		avg := tsum / n
		// The order of iputils' computation, to round as it does.
		mdev := int64(math.Sqrt(float64((tsum2 - tsum*tsum/n) / n)))
		fmt.Fprintf(&b, "rtt min/avg/max/mdev = %d.%03d/%d.%03d/%d.%03d/%d.%03d ms",
			tmin/1000, tmin%1000, avg/1000, avg%1000, tmax/1000, tmax%1000, mdev/1000, mdev%1000)
		sep = ", "
	}
	if o.Pipe > 1 {
		fmt.Fprintf(&b, "%spipe %d", sep, o.Pipe)
		sep = ", "
	}
	if sep != "" {
		b.WriteString("\n")
	}
	return b.String()
}

// Annotation is the traceroute mark for the probe: "!H", "!N", "!F-1400" or "".
func (p TraceProbe) Annotation() string {
	switch p.Kind {
	case ResultHostUnreachable:
		return "!H"
	case ResultNetUnreachable:
		return "!N"
	case ResultFragNeeded:
		return "!F-" + itoa(p.MTU)
	}
	return ""
}

// Render returns the text traceroute 2.1 prints (without -n: each
// address appears as "addr (addr)" since hosts have no DNS names).
func (o TraceOutcome) Render() string {
	var b strings.Builder
	dst := o.Destination.String()
	fmt.Fprintf(&b, "traceroute to %s (%s), %d hops max, %d byte packets\n", dst, dst, o.MaxHops, o.PacketSize)
	if o.Error != "" {
		call := "connect"
		if o.Protocol == protoICMP {
			call = "send"
		}
		fmt.Fprintf(&b, "%s: %s\n", call, o.Error)
		return b.String()
	}
	for _, h := range o.Hops {
		fmt.Fprintf(&b, "%2d ", h.TTL)
		for i, p := range h.Probes {
			if p.Kind == ResultLost {
				b.WriteString(" *")
				continue
			}
			show := true
			for j := i - 1; j >= 0; j-- {
				if h.Probes[j].Kind != ResultLost {
					show = h.Probes[j].From != p.From
					break
				}
			}
			if show {
				fmt.Fprintf(&b, " %s (%s)", p.From, p.From)
			}
			fmt.Fprintf(&b, "  %.3f ms", float64(usec(p.RTT))/1000)
			if a := p.Annotation(); a != "" {
				b.WriteString(" " + a)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// returnHops is how tracepath guesses the hops back from a reply's TTL.
func returnHops(ttl int) int {
	switch {
	case ttl <= 64:
		return 65 - ttl
	case ttl <= 128:
		return 129 - ttl
	}
	return 256 - ttl
}

// RenderTracepath returns the text tracepath prints for the path-MTU
// probing recorded in Tracepath (Traceroute fills it).
func (o TraceOutcome) RenderTracepath() string {
	var b strings.Builder
	pmtu := o.LocalMTU
	if pmtu == 0 {
		pmtu = defaultMTU
	}
	if o.Error != "" {
		fmt.Fprintf(&b, "%2d:  send failed\n     Resume: pmtu %d\n", 1, pmtu)
		return b.String()
	}
	fmt.Fprintf(&b, "%2d?: %-51s pmtu %d\n", 1, "[LOCALHOST]", pmtu)
	hopsTo, back := -1, -1
	done := false
	for _, s := range o.Tracepath {
		p := s.Probe
		if p.Kind == ResultLost {
			fmt.Fprintf(&b, "%2d:  no reply\n", s.TTL)
			continue
		}
		host := p.From.String()
		pad := 52 - len(host)
		if pad < 1 {
			pad = 1
		}
		t := usec(p.RTT)
		fmt.Fprintf(&b, "%2d:  %s%s%3d.%03dms ", s.TTL, host, strings.Repeat(" ", pad), t/1000, t%1000)
		switch p.Kind {
		case ResultTimeExceeded:
			if p.TTL > 0 {
				if r := returnHops(p.TTL); r != s.TTL {
					fmt.Fprintf(&b, "asymm %2d ", r)
				}
			}
			b.WriteString("\n")
		case ResultFragNeeded:
			fmt.Fprintf(&b, "pmtu %d\n", p.MTU)
			pmtu = p.MTU
		case ResultReply:
			b.WriteString("reached\n")
			hopsTo, back, done = s.TTL, returnHops(p.TTL), true
		default:
			b.WriteString(p.Annotation() + "\n")
			done = true
		}
	}
	if o.PMTU > 0 {
		pmtu = o.PMTU
	}
	if !done {
		fmt.Fprintf(&b, "     Too many hops: pmtu %d\n", pmtu)
	}
	fmt.Fprintf(&b, "     Resume: pmtu %d", pmtu)
	if hopsTo >= 0 {
		fmt.Fprintf(&b, " hops %d", hopsTo)
	}
	if back >= 0 {
		fmt.Fprintf(&b, " back %d", back)
	}
	b.WriteString("\n")
	return b.String()
}
