package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
)

// TestSection8 runs the MCP-NET draft's section 8 walk-through against r1
// of the default lab, verbatim where the draft gives commands.
func TestSection8(t *testing.T) {
	lab, _ := newTestLab(t)
	r1 := mustDevice(t, lab, "r1")
	ctx := context.Background()

	// 8.1: the capability object.
	info := r1.Info()
	if info.CLIDialect != "huawei-vrp" || info.MaxBulkEdit != 1000 || !info.SupportsRollback || info.RollbackTimeout != 300 {
		t.Errorf("Info = %+v", info)
	}
	for _, m := range []string{"ietf-interfaces", "openconfig-interfaces"} {
		if !slices.Contains(info.YangModules, m) {
			t.Errorf("yangModules %v lack %s", info.YangModules, m)
		}
	}
	if !slices.Equal(info.Datastores, []device.Datastore{"running", "candidate", "operational"}) ||
		!slices.Equal(info.NotificationStreams, []string{"syslog", "netconf-stream"}) {
		t.Errorf("datastores %v streams %v", info.Datastores, info.NotificationStreams)
	}

	// 8.2: TenGigE0/0/0/0 is admin up, oper down.
	st, err := r1.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces/interface[name='TenGigE0/0/0/0']/state")
	if err != nil {
		t.Fatal(err)
	}
	if m := st.(map[string]any); m["admin-status"] != "UP" || m["oper-status"] != "DOWN" {
		t.Errorf("TenGigE0/0/0/0 state = %v", m)
	}

	// 8.3: the ARP check prints exactly the draft's line; Vlan100 is up; the ping works.
	out, err := r1.Exec(ctx, "show ip arp vrf mgmt 10.0.0.5")
	if err != nil || out != "10.0.0.5  00:50:56:ab:cd:ef  Vlan100" {
		t.Errorf("show ip arp vrf mgmt 10.0.0.5 = %q, %v", out, err)
	}
	v, err := r1.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces/interface[name='Vlan100']")
	if err != nil || at(v, "state", "oper-status") != "UP" {
		t.Errorf("Vlan100 = %v, %v", v, err)
	}
	out, err = r1.Exec(ctx, "ping vrf mgmt 10.0.0.5 source 192.168.1.1 repeat 5")
	if err != nil || !strings.Contains(out, "5 packet(s) received") {
		t.Errorf("ping vrf mgmt = %q, %v", out, err)
	}

	// 8.4: the draft's edit (ipv4 inside the subinterface config), a
	// confirmed commit with a 120 s window, then confirm.
	var events []device.Event
	got := make(chan device.Event, 100)
	unsub := r1.Subscribe(func(e device.Event) { got <- e })
	defer unsub()
	edit := device.Edit{Path: "/openconfig-interfaces:interfaces/interface[name='Loopback100']", Value: map[string]any{
		"config": map[string]any{"name": "Loopback100", "type": "iana-if-type:softwareLoopback"},
		"subinterfaces": map[string]any{"subinterface": []any{map[string]any{"index": 0.0, "config": map[string]any{"index": 0.0,
			"ipv4": map[string]any{"addresses": map[string]any{"address": []any{map[string]any{"ip": "100.100.100.100",
				"config": map[string]any{"ip": "100.100.100.100", "prefix-length": 32.0}}}}}}}}},
	}}
	if err := r1.Edit(ctx, alice, []device.Edit{edit}); err != nil {
		t.Fatalf("Edit: %v", err)
	}
	res, err := r1.Commit(ctx, alice, device.CommitOptions{Confirmed: 120})
	if err != nil || res.Status != device.StatusCommitted || res.RollbackTimeout != 120 {
		t.Fatalf("Commit = %+v, %v", res, err)
	}
	if res, err := r1.Confirm(ctx, alice); err != nil || res.Status != device.StatusConfirmed {
		t.Fatalf("Confirm = %+v, %v", res, err)
	}
	// The new loopback is reachable across the network.
	if out, code := ping(t, mustDevice(t, lab, "r2"), "100.100.100.100", "", 2); code != 0 {
		t.Errorf("r2 cannot reach Loopback100:\n%s", out)
	}

	// 8.5: the syslog stream reports the loopback's line protocol going up.
	deadline := time.After(3 * time.Second)
	ifEvent := func() bool {
		return slices.ContainsFunc(events, func(e device.Event) bool { return e.Kind == device.EventInterface && e.Name == "Loopback100" })
	}
	cfgEvent := func() bool {
		return slices.ContainsFunc(events, func(e device.Event) bool { return e.Kind == device.EventConfig })
	}
	for !hasLog(events, "Loopback100", "UP state") || !ifEvent() || !cfgEvent() {
		select {
		case e := <-got:
			events = append(events, e)
		case <-deadline:
			t.Fatalf("missing syslog, interface or config event for Loopback100; got %d events", len(events))
		}
	}
}

func hasLog(events []device.Event, parts ...string) bool {
	for _, e := range events {
		if e.Kind != device.EventSyslog || e.Log == nil {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(e.Log.Text, p)
		}
		if ok {
			return true
		}
	}
	return false
}
