package sim

import (
	"strings"
	"time"

	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/netproto"
)

// Counters as the surfaces show them: openconfig's last-clear, the CLIs'
// "last cleared", and the clear commands of both dialects.

// lastClear is openconfig's counters/last-clear: the time of the last
// clear in nanoseconds since the epoch, or 0 when never cleared.
func lastClear(c netsim.Counters) string {
	if c.LastClear.IsZero() {
		return "0"
	}
	return u64(uint64(c.LastClear.UnixNano()))
}

// lastClearAgo is how long ago the counters were cleared, as IOS XR says
// it ("never" or 00:01:02).
func lastClearAgo(now time.Time, c netsim.Counters) string {
	if c.LastClear.IsZero() {
		return "never"
	}
	return fmtDuration(now.Sub(c.LastClear))
}

// clearCounters runs a clear command: args name one interface (in full,
// abbreviated or split as "GigabitEthernet 0/0/0/0"), or none or "all"
// for every interface. It returns the interface cleared ("" for all).
func (v *view) clearCounters(args []string) (string, error) {
	ifname := ""
	if len(args) > 0 && !(len(args) == 1 && strings.EqualFold(args[0], "all")) {
		n, ok := v.resolveIf(args)
		if !ok {
			return "", netproto.Errorf(netproto.CodeConfigIncompatible, "no interface %q on %s (%s)", strings.Join(args, " "), v.d.name, v.d.dialect)
		}
		ifname = n
	}
	return ifname, v.d.ClearCounters(v.ctx, ifname)
}
