package server

import (
	"context"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/yang"
)

// FuzzResourceURI checks that resource URI parsing never panics: the
// access-control classification (privacy level, YANG path) and the
// resources/read dispatch of the server, for any URI.
func FuzzResourceURI(f *testing.F) {
	for _, s := range []string{
		netproto.URIInterfaces, netproto.URIIPv4RouteTable, netproto.URICPU, netproto.URIRunningConfig,
		"network:///interface/GigabitEthernet0%2F0%2F0%2F0", "network:///interface/a'b\"c", "network:///interface/%zz",
		"network:///log/syslog/last10", "network:///log/syslog/last-1", "network:///file/0%2FRP0/crashinfo",
		"network:///file//crashinfo", "network:///interface/", "network:///", "file:///etc/passwd", "",
	} {
		f.Add(s)
	}
	lab, err := sim.NewLab(sim.DefaultTopology(), sim.LabOptions{Seed: 1})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { lab.Close() })
	r1, err := lab.Device("r1")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := New(r1, Options{Approver: AllowAll})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		c := ClassifyResource(uri)
		if c.PrivacyLevel < PrivacyOperational || c.PrivacyLevel > PrivacyCustomer {
			t.Fatalf("%q: privacy level %d", uri, c.PrivacyLevel)
		}
		if c.Path != "" && c.Path != wholeTree {
			if _, err := yang.ParsePath(c.Path); err != nil {
				t.Fatalf("%q: path %q does not parse: %v", uri, c.Path, err)
			}
		}
		if strings.HasPrefix(uri, netproto.URIFilePrefix) && strings.HasSuffix(uri, netproto.URICrashinfoSuffix) && c.PrivacyLevel != PrivacyCustomer {
			t.Fatalf("%q: crash records are level %d", uri, c.PrivacyLevel)
		}
		_, _ = srv.read(context.Background(), uri, "")
		_, _ = srv.read(context.Background(), uri, "cursor")
	})
}
