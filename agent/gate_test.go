package agent

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// TestControllerGate: with the controller reachable and local
// collaboration not enabled, r2 refuses D2D sessions and r1 refuses to
// start an intent; enabling local collaboration, or losing the
// controller, allows them.
func TestControllerGate(t *testing.T) {
	ctrl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ctrl.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := ctrl.Addr().String()
	g2 := &ControllerGate{Controller: addr, Every: time.Nanosecond}
	g1 := &ControllerGate{Controller: addr, Every: time.Nanosecond}
	d := newDomain(t, domainOpts{gate: map[string]*ControllerGate{"r1": g1, "r2": g2}})
	ctx := context.Background()
	a := d.agents["r1"]
	a.Discover(ctx)
	if _, err := a.Ask(ctx, pathIntent); !errors.Is(err, ErrCollaborationDisabled) {
		t.Fatalf("intent started with the controller reachable: %v", err)
	}
	g1.LocalCollaboration = true // r1's operator enabled it; r2's did not
	if _, err := a.Call(ctx, "r2", netproto.ToolYangGet, map[string]any{"path": countersPath}); err == nil || !strings.Contains(err.Error(), "single audit path") {
		t.Fatalf("r2 accepted a D2D session: %v", err)
	}
	ctrl.Close() // the controller is gone: r2 collaborates
	d2 := newDomain(t, domainOpts{gate: map[string]*ControllerGate{"r2": {Controller: addr, Every: time.Nanosecond}}})
	d2.agents["r1"].Discover(ctx)
	if _, err := d2.agents["r1"].Call(ctx, "r2", netproto.ToolYangGet, map[string]any{"path": countersPath}); err != nil {
		t.Fatalf("controller unreachable, still refused: %v", err)
	}
}

// TestRevokeMidRun: r1 revokes r3 while the probes run. The run completes
// at once without r3's data, r3 is untrusted for that reason, r3's pings in
// flight were cancelled on r3 (notifications/cancelled: its audit shows
// them ending well before the 2 s that 10 probes take; the diagnostic
// stops and returns what it had), and the report verifies.
func TestRevokeMidRun(t *testing.T) {
	d := newDomain(t, domainOpts{audit: true, realtime: true})
	a := d.agents["r1"]
	done := make(chan struct{})
	var once sync.Once
	a.onCall = func(peer, tool string) {
		if peer == "r3" && tool == netproto.ToolPing {
			once.Do(func() {
				go func() {
					defer close(done)
					time.Sleep(300 * time.Millisecond) // the ping is running on r3
					a.Revoke("r3", "operator withdrew consent")
				}()
			})
		}
	}
	rep := askVerified0(t, d, "r1")
	<-done
	if why := rep.Untrusted["r3"]; !strings.Contains(why, "authorization revoked") {
		t.Fatalf("untrusted %v", rep.Untrusted)
	}
	var cancelled bool
	deadline := time.Now().Add(10 * time.Second)
	for !cancelled && time.Now().Before(deadline) {
		for _, r := range auditRecords(t, d.auditPath["r3"]) {
			if r.Identity == "r1" && r.Tool == netproto.ToolPing && r.DurationMS < 1500 {
				cancelled = true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !cancelled {
		for _, r := range auditRecords(t, d.auditPath["r3"]) {
			t.Logf("r3 audit: %s %s %s %.0fms", r.Identity, r.Tool, r.Outcome, r.DurationMS)
		}
		t.Fatal("r3's ping was not cancelled")
	}
}
