package sim

import (
	"fmt"
	"strconv"

	"github.com/netmcp/netmcp/lab/fault"
	"github.com/netmcp/netmcp/lab/sim/netsim"
	"github.com/netmcp/netmcp/lab/topology"
)

// The link faults in the simulator: the state and impairments of links
// and interfaces live in the model's fault list (netsim gives them their
// effect: faults_runtime.go); an interface's MTU is configuration.

// registerLinkFaults binds the link faults.
func registerLinkFaults(b *fault.Backend[*faultOp]) {
	for _, name := range []string{"link_down", "link_flap", "link_detach", "link_bandwidth_throttling",
		"link_high_packet_corruption", "link_high_latency", "link_fragmentation_disabled"} {
		b.Register(name, runtimeFault)
	}
	b.Register("mtu_mismatch", configFault(mtuMismatch))
}

// mtuMismatch sets the target interface's configured MTU to the fault's.
func mtuMismatch(_ *netsim.Network, d topology.Device, f topology.Fault, where string) (topology.Device, string, error) {
	_, ifn := faultTarget(f)
	it, err := ifaceOf(&d, ifn, where)
	if err != nil {
		return d, "", err
	}
	mtu, _ := strconv.Atoi(f.Param("mtu"))
	if cmpMTU(it.MTU) == mtu {
		return d, "", fmt.Errorf("%s: %s already has MTU %d", where, f.Target, mtu)
	}
	it.MTU = mtu
	return d, fmt.Sprintf("MTU of %s set to %d", ifn, mtu), nil
}

// cmpMTU is an interface's MTU, 1500 when unset.
func cmpMTU(m int) int {
	if m == 0 {
		return 1500
	}
	return m
}
