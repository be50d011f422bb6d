package sim

import (
	"context"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim/netsim"
)

// TestAdjacencyLog feeds constructed adjacency snapshots to the lab's
// diff and checks the syslog lines each dialect writes, with the reason.
func TestAdjacencyLog(t *testing.T) {
	lab, clk := newTestLab(t)
	bgp := func(dev, peer, state, reason string) netsim.AdjacencyStatus {
		return netsim.AdjacencyStatus{Device: dev, Protocol: netsim.ProtoBGP, Peer: peer, State: state, Reason: reason}
	}
	ospf := func(dev, peer, ifn, state, reason string) netsim.AdjacencyStatus {
		return netsim.AdjacencyStatus{Device: dev, Protocol: netsim.ProtoOSPF, Peer: peer, Interface: ifn, State: state, Reason: reason}
	}
	steps := [][]netsim.AdjacencyStatus{
		{ // all up
			bgp("r1", "10.0.12.2", netsim.BGPEstablished, ""), bgp("r2", "10.0.12.1", netsim.BGPEstablished, ""),
			ospf("r2", "10.255.0.1", "GigabitEthernet0/0/0/0", netsim.OSPFFull, ""),
			ospf("r1", "10.255.0.2", "GigabitEthernet0/0/0", netsim.OSPFFull, ""),
		},
		{ // wrong AS on r1; an MTU mismatch on r2's side
			bgp("r1", "10.0.12.2", netsim.BGPIdle, "OPEN Message Error/Bad Peer AS"),
			bgp("r2", "10.0.12.1", netsim.BGPIdle, "OPEN Message Error/Bad Peer AS"),
			ospf("r2", "10.255.0.1", "GigabitEthernet0/0/0/0", netsim.OSPFExStart, "MTU mismatch (local 1500, neighbour 1400)"),
			ospf("r1", "10.255.0.2", "GigabitEthernet0/0/0", netsim.OSPFFull, ""),
		},
		{ // r1's adjacency goes away
			bgp("r1", "10.0.12.2", netsim.BGPIdle, "OPEN Message Error/Bad Peer AS"),
			bgp("r2", "10.0.12.1", netsim.BGPActive, "Waiting for NHT"),
			ospf("r2", "10.255.0.1", "GigabitEthernet0/0/0/0", netsim.OSPFExStart, "MTU mismatch (local 1500, neighbour 1400)"),
		},
	}
	for _, s := range steps {
		clk.Advance(1e9)
		lab.mu.Lock()
		lab.applyAdjacencies(clk.Now(), s, false)
		lab.mu.Unlock()
	}
	want := map[string][]string{
		"r1": {
			"BGP/3/STATE_CHG_UPDATE(l)[", "(PeerAddress=10.0.12.2, VpnInstance=_public_, PrevState=Idle, CurrState=Established, Reason=Established)",
			"(PeerAddress=10.0.12.2, VpnInstance=_public_, PrevState=Established, CurrState=Idle, Reason=OPEN Message Error/Bad Peer AS)",
			"OSPF/6/NBR_CHANGE_E(l)[", "(ProcessId=1, NeighborAddress=10.255.0.2, NeighborEvent=Loading Done, NeighborPreviousState=Down, NeighborCurrentState=Full)",
			"NeighborEvent=neighbor removed, NeighborPreviousState=Full, NeighborCurrentState=Down)",
		},
		"r2": {
			"%ROUTING-BGP-5-ADJCHANGE: neighbor 10.0.12.1 Up (VRF: default) (AS: 65001)",
			"%ROUTING-BGP-5-ADJCHANGE: neighbor 10.0.12.1 Down - OPEN Message Error/Bad Peer AS (VRF: default) (AS: 65001)",
			"%ROUTING-BGP-5-ADJCHANGE_DETAIL: neighbor 10.0.12.1 Active - Waiting for NHT (VRF: default) (AS: 65001)",
			"%ROUTING-OSPF-5-ADJCHG: Process 1, Nbr 10.255.0.1 on GigabitEthernet0/0/0/0 in area 0 from DOWN to FULL, Loading Done, vrf default vrfid 0x60000000",
			"%ROUTING-OSPF-5-ADJCHG: Process 1, Nbr 10.255.0.1 on GigabitEthernet0/0/0/0 in area 0 from FULL to EXSTART, MTU mismatch (local 1500, neighbour 1400)",
		},
	}
	for dev, lines := range want {
		logs, err := mustDevice(t, lab, dev).Syslog(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, e := range logs {
			all.WriteString(e.Text + "\n")
		}
		for _, l := range lines {
			if !strings.Contains(all.String(), l) {
				t.Errorf("%s syslog lacks %q:\n%s", dev, l, all.String())
			}
		}
	}
	// Nothing changes: nothing more is logged.
	d := mustDevice(t, lab, "r2")
	n, _ := d.log.stats()
	lab.mu.Lock()
	lab.applyAdjacencies(clk.Now(), steps[2], false)
	lab.mu.Unlock()
	if m, _ := d.log.stats(); m != n {
		t.Errorf("an unchanged snapshot logged %d lines", m-n)
	}
}

// TestAdjacencyLogOnCommit shuts r1's BGP peer by a commit: the session
// goes down in the model and r1 logs it.
func TestAdjacencyLogOnCommit(t *testing.T) {
	lab, _ := newTestLab(t)
	r1 := mustDevice(t, lab, "r1")
	commitLines(t, r1, "bgp 65001", "peer 10.0.12.2 ignore")
	logs, err := r1.Syslog(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, e := range logs {
		all.WriteString(e.Text + "\n")
	}
	got := strings.Contains(all.String(), "BGP/3/STATE_CHG_UPDATE") && strings.Contains(all.String(), "PeerAddress=10.0.12.2")
	if !got {
		t.Errorf("shutting the peer logged no session change:\n%s", all.String())
	}
}

// TestRoutingConfigCommandsAreNotShowCommands: OSPF and BGP configuration
// lines given to Exec point at network.cli.configure.
func TestRoutingConfigCommandsAreNotShowCommands(t *testing.T) {
	lab, _ := newTestLab(t)
	for dev, cmd := range map[string]string{"r1": "bgp 65001", "r2": "router ospf 1"} {
		_, err := mustDevice(t, lab, dev).Exec(context.Background(), cmd)
		if err == nil || !strings.Contains(err.Error(), "network.cli.configure") {
			t.Errorf("%s %q: %v, want a pointer to network.cli.configure", dev, cmd, err)
		}
	}
}

// TestBootAdjacencyLog: the adjacencies a device has when the lab starts
// are logged after its boot messages.
func TestBootAdjacencyLog(t *testing.T) {
	lab, _ := newTestLab(t)
	r2 := mustDevice(t, lab, "r2")
	lab.mu.Lock()
	lab.adj = map[string]netsim.AdjacencyStatus{}
	for _, a := range []netsim.AdjacencyStatus{
		{Device: "r2", Protocol: netsim.ProtoBGP, Peer: "10.0.12.1", State: netsim.BGPEstablished},
		{Device: "r2", Protocol: netsim.ProtoBGP, Peer: "10.255.0.3", State: netsim.BGPIdle},
		{Device: "r2", Protocol: netsim.ProtoOSPF, Peer: "10.255.0.1", Interface: "GigabitEthernet0/0/0/0", State: netsim.OSPFFull},
		{Device: "r1", Protocol: netsim.ProtoBGP, Peer: "10.0.12.2", State: netsim.BGPEstablished},
	} {
		lab.adj[adjKey(a)] = a
	}
	lab.mu.Unlock()
	n, _ := r2.log.stats()
	r2.bootAdjacencyLog()
	logs, _ := r2.Syslog(context.Background(), 0)
	var got []string
	for _, e := range logs[n:] {
		got = append(got, e.Mnemonic+" "+e.Message)
	}
	want := []string{
		"ROUTING-BGP-5-ADJCHANGE neighbor 10.0.12.1 Up (VRF: default) (AS: 65001)",
		"ROUTING-OSPF-5-ADJCHG Process 1, Nbr 10.255.0.1 on GigabitEthernet0/0/0/0 in area 0 from DOWN to FULL, Loading Done, vrf default vrfid 0x60000000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("boot adjacency log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
