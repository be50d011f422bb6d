package sim

import (
	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// Counters as openconfig shows them.

// lastClear is openconfig's counters/last-clear: the time of the last
// clear in nanoseconds since the epoch, or 0 when never cleared.
func lastClear(c netsim.Counters) string {
	if c.LastClear.IsZero() {
		return "0"
	}
	return u64(uint64(c.LastClear.UnixNano()))
}
