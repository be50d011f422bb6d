package gnmi_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi"
	"github.com/netmcp/netmcp/device/gnmi/gnmiserver"
	"github.com/netmcp/netmcp/device/gnmi/gnmitest"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
)

// router is the simulated router the tests serve over gNMI, and
// ifName one of its interfaces with a link to another router.
const (
	router = "r1"
	ifName = "GigabitEthernet0/0/0"
)

// labTarget is a simulated lab whose router r1 is served over gNMI.
type labTarget struct {
	lab *sim.Lab
	r1  *sim.Driver
	*gnmitest.Target
}

// startLab starts the default simulated lab and serves r1 over gNMI with
// mutual TLS.
func startLab(t testing.TB, opts gnmiserver.Options) *labTarget {
	t.Helper()
	topo, err := sim.LoadTopology("")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := sim.NewLab(topo, sim.LabOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	r1, err := lab.Device(router)
	if err != nil {
		t.Fatal(err)
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 200 * time.Millisecond
	}
	return &labTarget{lab: lab, r1: r1, Target: gnmitest.Start(t, r1, opts)}
}

// openURL opens a gnmi:// driver, closed with the test.
func openURL(t testing.TB, url string) *gnmi.Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := device.Open(ctx, url, device.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*gnmi.Driver)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// wantCode asserts err is a *netproto.Error with code.
func wantCode(t *testing.T, what string, err error, code int) *netproto.Error {
	t.Helper()
	var ne *netproto.Error
	if !errors.As(err, &ne) {
		t.Fatalf("%s: error %v (%T), want a *netproto.Error %d", what, err, err, code)
	}
	if ne.Code != code {
		t.Fatalf("%s: code %d (%s), want %d (%s): %v", what, ne.Code, netproto.CodeName(ne.Code), code, netproto.CodeName(code), err)
	}
	return ne
}

// descPath is the openconfig description of ifName.
const descPath = "/openconfig-interfaces:interfaces/interface[name='" + ifName + "']/config/description"

// running reads a leaf of r1's running configuration straight from the
// simulator (nil when absent).
func (l *labTarget) running(t *testing.T, path string) any {
	t.Helper()
	v, err := l.r1.Get(context.Background(), device.Running, path)
	if errors.Is(err, device.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("simulator Get %s: %v", path, err)
	}
	return v
}

// eventually reports whether cond holds within d, scaled to the machine's
// load (testwait).
func eventually(d time.Duration, cond func() bool) bool { return testwait.For(d, cond) }

var owner = device.Owner{Session: "gnmi-test", User: "tester"}
