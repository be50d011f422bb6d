package netconf

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/testwait"
)

func ctx60(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(60*time.Second))
	t.Cleanup(cancel)
	return ctx
}

// TestLabRead: the hello fills Info; get-config of a list entry comes back
// typed by the device's YANG (numbers, booleans, qualified identities and
// augmenting modules); get of / is module-qualified and carries the
// openconfig-interfaces view.
func TestLabRead(t *testing.T) {
	l := startLab(t)
	d := l.open(t)
	info := d.Info()
	for _, m := range []string{"ietf-interfaces", "ietf-ip", "openconfig-interfaces"} {
		if !slices.Contains(info.YangModules, m) {
			t.Errorf("yangModules %v lack %s", info.YangModules, m)
		}
	}
	if !slices.Equal(info.Datastores, []device.Datastore{device.Running, device.Candidate, device.Operational}) || info.RollbackTimeout == 0 {
		t.Errorf("info %+v", info)
	}
	v, err := d.Get(ctx60(t), device.Running, "/ietf-interfaces:interfaces/interface[name='eth0']")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(v)
	want := `{"description":"uplink","enabled":true,"ietf-ip:ipv4":{"address":[{"ip":"192.0.2.1","prefix-length":24}],"mtu":1500},"name":"eth0","type":"iana-if-type:ethernetCsmacd"}`
	if string(got) != want {
		t.Errorf("eth0:\n got %s\nwant %s", got, want)
	}
	root, err := d.Get(ctx60(t), device.Operational, "/")
	if err != nil {
		t.Fatal(err)
	}
	m := root.(map[string]any)
	for _, k := range []string{"ietf-interfaces:interfaces", "ietf-netconf-monitoring:netconf-state", "openconfig-interfaces:interfaces"} {
		if _, ok := m[k]; !ok {
			t.Errorf("Get / lacks %s", k)
		}
	}
	oc, err := d.Get(ctx60(t), device.Operational, "/openconfig-interfaces:interfaces/interface[name='eth0']/config")
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(oc)
	if want := `{"description":"uplink","enabled":true,"mtu":1500,"name":"eth0","type":"iana-if-type:ethernetCsmacd"}`; string(got) != want {
		t.Errorf("openconfig view of eth0: %s, want %s", got, want)
	}
	if len(d.schema.problems) > 0 {
		t.Errorf("modules converted without schema: %v", d.schema.problems)
	}
}
