package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/yang"
)

// TestOperationalReadsOnlyWhatIsAsked checks that a read of one member of
// the operational datastore, which builds that member only, gives what the
// whole tree shows there: every top-level member of every router, and a
// path under the interfaces.
func TestOperationalReadsOnlyWhatIsAsked(t *testing.T) {
	lab, _ := newTestLab(t)
	ctx := context.Background()
	for _, name := range []string{"r1", "r2", "r3"} {
		d := mustDevice(t, lab, name)
		full := d.operational()
		for _, top := range []string{memInterfaces, ietfInterfaces, memRouting, memNetInst, memLLDP} {
			if _, ok := full[top]; !ok {
				t.Fatalf("%s: no %s in the operational tree", name, top)
			}
		}
		for top, want := range full {
			got, err := d.Get(ctx, device.Operational, "/"+top)
			if err != nil {
				t.Fatalf("%s: get /%s: %v", name, top, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: /%s alone differs from the whole tree's", name, top)
			}
		}
		ifs := d.config().dev.Interfaces
		p := "/openconfig-interfaces:interfaces/interface[name='" + ifs[len(ifs)-1].Name + "']/state"
		path, err := device.ParsePath(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := yang.Get(full, path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Get(ctx, device.Operational, p)
		if err != nil {
			t.Fatalf("%s: get %s: %v", name, p, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s = %v, want %v", name, p, got, want)
		}
	}
}
