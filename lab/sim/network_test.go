package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/lab/topology"
)

// TestReachabilityUnderFaults pings h3 from r1 with each fault injected.
func TestReachabilityUnderFaults(t *testing.T) {
	tests := []struct {
		name   string
		fault  topology.Fault
		size   int
		df     bool
		wantOK bool
		want   string // in the output
	}{
		{"none", topology.Fault{}, 0, false, true, " 0% packet loss"},
		{"link down", topology.Fault{Kind: topology.FaultLinkDown, Link: "r2:GigabitEthernet0/0/0/1"}, 0, false, false, ""},
		{"total loss", topology.Fault{Kind: topology.FaultLoss, Link: "r1:GigabitEthernet0/0/0", Percent: 100}, 0, false, false, "100% packet loss"},
		{"mtu with DF", topology.Fault{Kind: topology.FaultMTU, Interface: "r2:GigabitEthernet0/0/0/1", MTU: 1400}, 1472, true, false, ""},
		{"mtu without DF", topology.Fault{Kind: topology.FaultMTU, Interface: "r2:GigabitEthernet0/0/0/1", MTU: 1400}, 1472, false, true, ""},
		{"acl drop", topology.Fault{Kind: topology.FaultACLDrop, Interface: "r2:GigabitEthernet0/0/0/0", Destination: "10.3.0.0/24"}, 0, false, false, ""},
		{"delay", topology.Fault{Kind: topology.FaultDelay, Link: "r2:GigabitEthernet0/0/0/1", DelayMS: 50}, 0, false, true, "time=10"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lab, _ := newTestLab(t)
			r1 := mustDevice(t, lab, "r1")
			if tc.fault.Kind != "" {
				if err := lab.InjectFault(tc.fault); err != nil {
					t.Fatal(err)
				}
			}
			r, err := r1.Diagnose(context.Background(), diag.Request{Tool: "ping", Destination: "10.3.0.10", Count: 3,
				PacketSize: tc.size, DontFragment: tc.df, IntervalMs: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (r.ExitCode == 0) != tc.wantOK || !strings.Contains(r.Output, tc.want) {
				t.Errorf("exit %d, want ok=%v and %q in:\n%s", r.ExitCode, tc.wantOK, tc.want, r.Output)
			}
			lab.ClearFaults()
			if out, code := ping(t, r1, "10.3.0.10", "", 2); code != 0 {
				t.Errorf("still failing after ClearFaults:\n%s", out)
			}
		})
	}
}

// TestLinkDownFaultIsLogged checks a link fault's effect on state, log and events.
func TestLinkDownFaultIsLogged(t *testing.T) {
	lab, _ := newTestLab(t)
	r2 := mustDevice(t, lab, "r2")
	events := make(chan device.Event, 100)
	defer r2.Subscribe(func(e device.Event) { events <- e })()
	if err := lab.InjectFault(topology.Fault{Kind: topology.FaultLinkDown, Link: "r3:GigabitEthernet0/0/0"}); err != nil {
		t.Fatal(err)
	}
	v, err := r2.Get(context.Background(), device.Operational, "/ietf-interfaces:interfaces/interface[name='GigabitEthernet0/0/0/1']/oper-status")
	if err != nil || v != "down" {
		t.Errorf("oper-status = %v, %v", v, err)
	}
	for {
		e := <-events
		if e.Kind == device.EventInterface && e.Name == "GigabitEthernet0/0/0/1" {
			break
		}
	}
	logs, _ := r2.Syslog(context.Background(), 5)
	var text []string
	for _, l := range logs {
		text = append(text, l.Text)
	}
	joined := strings.Join(text, "\n")
	if !strings.Contains(joined, "%LINEPROTO-5-UPDOWN: Line protocol on Interface GigabitEthernet0/0/0/1, changed state to down") {
		t.Errorf("log lacks the line-protocol change:\n%s", joined)
	}
}

// TestConfigChangesPing shows edits reaching the model: shutting r3's LAN
// port, then applying the ACL on r1, then rolling back.
func TestConfigChangesPing(t *testing.T) {
	lab, _ := newTestLab(t)
	r1, r3 := mustDevice(t, lab, "r1"), mustDevice(t, lab, "r3")
	ctx := context.Background()
	if _, code := ping(t, r1, "10.3.0.10", "", 2); code != 0 {
		t.Fatal("baseline ping fails")
	}
	commitLines(t, r3, "interface GigabitEthernet0/0/1", "shutdown")
	if out, code := ping(t, r1, "10.3.0.10", "", 2); code == 0 {
		t.Errorf("ping still works with r3's LAN port shut:\n%s", out)
	}
	if _, err := r3.Rollback(ctx, alice, ""); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if out, code := ping(t, r1, "10.3.0.10", "", 2); code != 0 {
		t.Errorf("ping fails after rollback:\n%s", out)
	}
	// An ACL built and applied by CLI on r3 denies ICMP to its LAN only.
	commitLines(t, r3, "acl name BLOCK-ICMP advance", "rule 10 deny icmp destination 10.3.0.0 0.0.0.255", "rule 20 permit ip",
		"interface GigabitEthernet0/0/0", "traffic-filter inbound acl name BLOCK-ICMP")
	if _, code := ping(t, r1, "10.3.0.10", "", 2); code == 0 {
		t.Errorf("ICMP to h3 passes the applied ACL")
	}
	if out, code := ping(t, r1, "10.255.0.3", "", 2); code != 0 {
		t.Errorf("ICMP to r3's loopback is blocked too:\n%s", out)
	}
	// An address and a static route added by CLI make a new prefix reachable.
	commitLines(t, r3, "interface LoopBack9", "ip address 10.99.0.1 32")
	commitLines(t, mustDevice(t, lab, "r2"), "router static", "address-family ipv4 unicast", "10.99.0.1/32 10.0.23.2")
	if out, code := ping(t, mustDevice(t, lab, "r2"), "10.99.0.1", "", 2); code != 0 {
		t.Errorf("r2 cannot reach the new loopback via its static route:\n%s", out)
	}
}
