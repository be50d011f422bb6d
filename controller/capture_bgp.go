package controller

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// The capture on port 179 of the BGP-down intent (draft 4.4.2: the
// evidence includes "a capture on port 179").
const (
	// bgpCaptureWindow is how far the capture reaches: BGP's
	// connect-retry interval (RFC 4271's suggested 120 s, FRR's default)
	// and a margin, so that it holds a connection attempt of each side
	// whatever the phase of its timer. A simulated device answers at once
	// with the packets of the window that ends now; a real one captures
	// that long, or until capturePackets packets.
	bgpCaptureWindow = 130 * time.Second
	// capturePackets bounds a capture the controller makes: a few
	// connection attempts tell whether they are answered, and a real
	// device stops capturing once it has them.
	capturePackets = 20
)

// captureBGP captures TCP port 179 where it shows the most: on the
// interface an ACL cause names (the SYNs of the peer arrive there and are
// never answered), else on the device's interface toward its peer. What an
// ACL's capture shows is added to that cause as evidence; a capture that
// shows nothing to the point (no SYN in the window) is a call of the
// report only.
func (r *run) captureBGP(causes []Cause, dev string, hops []hop) {
	for i := range causes {
		c := &causes[i]
		if c.Name != "bgp_acl_block" {
			continue
		}
		adev, rest, ok := strings.Cut(c.Where, ":")
		iface, _, _ := strings.Cut(rest, " ")
		if !ok || iface == "" {
			continue
		}
		pk, call := r.capture(adev, iface, 179, bgpCaptureWindow)
		if call == 0 {
			return
		}
		if showed, ok := unansweredSYNs(pk); ok {
			c.Evidence = append(c.Evidence, r.ev(call, adev, netproto.ToolCapture, "capture on %s %s port 179 (%d s): %s", adev, iface, int(bgpCaptureWindow/time.Second), showed))
			r.summarize(call, "%s", showed)
		}
		return
	}
	if len(hops) > 0 && hops[0].Out != nil {
		r.capture(dev, hops[0].Out.Name, 179, bgpCaptureWindow)
	}
}

// unansweredSYNs reads a capture on port 179 for connection attempts to
// the captured device that it never answers: SYNs to port 179 received,
// and no SYN-ACK from port 179 sent. It says so in words, naming the
// senders, and whether the capture shows it.
func unansweredSYNs(pk []any) (string, bool) {
	syns, synacks := 0, 0
	var from []string
	for _, p := range pk {
		m := yang.Object(p)
		flags, dir := yang.Text(m["flags"]), yang.Text(m["direction"])
		srcPort, _ := yang.Int(m["srcPort"])
		dstPort, _ := yang.Int(m["dstPort"])
		switch {
		case flags == "S" && dir == "in" && dstPort == 179:
			syns++
			if src := yang.Text(m["src"]); src != "" && !slices.Contains(from, src) {
				from = append(from, src)
			}
		case flags == "S." && dir == "out" && srcPort == 179:
			synacks++
		}
	}
	if syns == 0 || synacks > 0 {
		return "", false
	}
	return fmt.Sprintf("%d SYNs from %s to port 179 arrived and none was answered with a SYN-ACK", syns, strings.Join(from, ", ")), true
}
