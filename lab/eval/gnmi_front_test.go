package eval

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
)

// TestGNMIFrontNeedsClientCertificate: a router fronted over gNMI answers
// the gnmi:// driver with the front's client certificate, and no client
// without it.
func TestGNMIFrontNeedsClientCertificate(t *testing.T) {
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	drv, err := lab.Device("r1")
	if err != nil {
		t.Fatal(err)
	}
	g, err := newGNMIFront()
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	gd, u, err := g.front("r1", drv)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := gd.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces"); err != nil {
		t.Fatalf("with the client certificate: %v", err)
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := pu.Query()
	q.Del("cert-file")
	q.Del("key-file")
	pu.RawQuery = q.Encode()
	if anon, err := device.Open(ctx, pu.String(), device.Options{}); err == nil {
		_, err = anon.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces")
		anon.Close()
		if err == nil {
			t.Error("r1 answers gNMI without the client certificate")
		}
	}
}
