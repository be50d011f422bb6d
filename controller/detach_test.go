package controller_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestLinkDetachToldFromLinkDown checks that the two ways r3's end of
// r2—r3 can lose the link read differently on the devices and are swept
// as different causes: link_down shuts r3's end (admin DOWN) and r2's end
// loses its carrier; link_detach leaves r3's end admin UP without
// carrier while r2's end stays up. Neither end hears the other by LLDP.
func TestLinkDetachToldFromLinkDown(t *testing.T) {
	ends := map[string]string{"r2": "GigabitEthernet0/0/0/1", "r3": "GigabitEthernet0/0/0"}
	for _, tc := range []struct {
		fault string
		state map[string]string // device: admin/oper of its end
		sweep string
	}{
		{"link_down r3:GigabitEthernet0/0/0", map[string]string{"r2": "UP/DOWN", "r3": "DOWN/DOWN"}, "link_down @ r2,r3"},
		{"link_detach r3:GigabitEthernet0/0/0", map[string]string{"r2": "UP/UP", "r3": "UP/DOWN"}, "link_detach @ r3"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			l := newTestLab(t, tc.fault)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			get := func(dev, p string) string {
				res, err := l.fleet.Device(dev).CallTool(ctx, "network.yang.get", map[string]any{"path": p})
				if err != nil {
					t.Fatalf("%s %s: %v", dev, p, err)
				}
				b, _ := json.Marshal(res.StructuredContent)
				return string(b)
			}
			for dev, ifn := range ends {
				st := "/openconfig-interfaces:interfaces/interface[name=" + ifn + "]/state/"
				admin, oper := get(dev, st+"admin-status"), get(dev, st+"oper-status")
				want := strings.Split(tc.state[dev], "/")
				if !strings.Contains(admin, `"`+want[0]+`"`) || !strings.Contains(oper, `"`+want[1]+`"`) {
					t.Errorf("%s:%s admin %s oper %s, want %s", dev, ifn, admin, oper, tc.state[dev])
				}
				if lldp := get(dev, "/openconfig-lldp:lldp/interfaces/interface[name="+ifn+"]"); strings.Contains(lldp, "system-name") {
					t.Errorf("%s:%s still has an LLDP neighbour: %s", dev, ifn, lldp)
				}
			}
			rep := l.ask(t, "what is wrong with the network?")
			if got := strings.Join(rep.RootCauseName, ",") + " @ " + strings.Join(rep.FaultyDevices, ","); got != tc.sweep {
				t.Errorf("swept as %s, want %s", got, tc.sweep)
			}
		})
	}
}
