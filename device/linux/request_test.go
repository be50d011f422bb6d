//go:build linux

package linux_test

import (
	"slices"
	"testing"

	"github.com/netmcp/netmcp/device/linux"
	"github.com/netmcp/netmcp/diag"
)

// TestRequestRoundTrip: a validated diagnostic request that travels to the
// Linux driver as a device.DiagRequest runs the very command it asked for;
// no option (address family, name resolution, sizes...) is dropped.
func TestRequestRoundTrip(t *testing.T) {
	reqs := []diag.Request{
		{Tool: "ping", Destination: "192.0.2.1", Count: 3, IPv4: true, PacketSize: 1400, DontFragment: true},
		{Tool: "ping", Destination: "2001:db8::1", Count: 2, IPv6: true, Source: "2001:db8::2"},
		{Tool: "traceroute", Destination: "example.net", IPv4: true, Resolve: true, MaxHops: 12},
		{Tool: "tracepath", Destination: "192.0.2.9", Resolve: true},
		{Tool: "dig", Destination: "example.net", QueryType: "MX", Server: "192.0.2.53"},
	}
	for _, r := range reqs {
		if err := r.Validate(); err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		back := linux.Request(r.ToDevice())
		if err := back.Validate(); err != nil {
			t.Fatalf("%s after the round trip: %v", r.Tool, err)
		}
		if want, got := r.Argv(), back.Argv(); !slices.Equal(want, got) {
			t.Errorf("%s: argv %q after the round trip, want %q", r.Tool, got, want)
		}
	}
}
