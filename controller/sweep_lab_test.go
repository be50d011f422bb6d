package controller_test

import (
	"bytes"
	"testing"
)

func TestSweepProbe(t *testing.T) {
	for _, fault := range []string{"", "link_down r1:GigabitEthernet0/0/0", "link_high_packet_corruption r2:GigabitEthernet0/0/0/1", "mtu_mismatch r2:GigabitEthernet0/0/0/1", "icmp_acl_block r3:GigabitEthernet0/0/0", "bgp_acl_block r2:GigabitEthernet0/0/0/0"} {
		var faults []string
		if fault != "" {
			faults = append(faults, fault)
		}
		l := newTestLab(t, faults...)
		rep := l.ask(t, "what is wrong with the network?")
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Logf("FAULT %q\n%s", fault, b.String())
	}
}
