package netconf

import (
	"context"
	"log/slog"
	"maps"
	"net/url"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
)

// TestSchemaSourcesKept: the YANG sources fetched from a device are kept
// in the state directory, so a driver opened later (a restarted server)
// compiles the same schema without a single <get-schema>; another module
// set is fetched again. Before, every start fetched every module, and
// netconfd crashed on the third start in a row.
func TestSchemaSourcesKept(t *testing.T) {
	dev := startHostileDevice(t, 0, 0)
	dev.mu.Lock()
	dev.modules = map[string]string{
		"ietf-netconf-monitoring": `module ietf-netconf-monitoring { namespace "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"; prefix ncm; }`,
		"netmcp-test":             `module netmcp-test { namespace "urn:test:netmcp-test"; prefix nt; container box { leaf size { type uint32; } } }`,
	}
	dev.mu.Unlock()
	t.Setenv("NETCONF_CACHE_TEST_PW", "pw")
	state := t.TempDir()
	load := func(t *testing.T) *schema {
		t.Helper()
		schemaCache.Clear() // a new process: nothing compiled in memory
		u, _ := url.Parse("netconf://op@" + dev.addr + "?password-env=NETCONF_CACHE_TEST_PW&insecure-host-key=1")
		cfg, err := ParseURL(u)
		if err != nil {
			t.Fatal(err)
		}
		cfg.StateDir = state
		ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(30*time.Second))
		defer cancel()
		d, err := Open(ctx, cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		s, err := d.loadedSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	requests := func() map[string]int {
		dev.mu.Lock()
		defer dev.mu.Unlock()
		return maps.Clone(dev.getSchemas)
	}

	first := load(t)
	if first.topEntry("netmcp-test", "box") == nil {
		t.Fatalf("the schema has no netmcp-test:box; problems: %v", first.problems)
	}
	if got := requests(); got["netmcp-test"] != 1 || got["ietf-netconf-monitoring"] != 1 {
		t.Fatalf("first start: get-schema requests %v, want one per module", got)
	}
	for range 2 {
		again := load(t)
		if again.topEntry("netmcp-test", "box") == nil {
			t.Fatalf("the kept sources compile to no netmcp-test:box; problems: %v", again.problems)
		}
	}
	if got := requests(); got["netmcp-test"] != 1 || got["ietf-netconf-monitoring"] != 1 {
		t.Fatalf("after two restarts: get-schema requests %v, want none more", got)
	}

	dev.mu.Lock()
	dev.modules["netmcp-extra"] = `module netmcp-extra { namespace "urn:test:netmcp-extra"; prefix nx; leaf on { type boolean; } }`
	dev.mu.Unlock()
	load(t)
	if got := requests(); got["netmcp-extra"] != 1 || got["netmcp-test"] != 2 {
		t.Fatalf("a new module set: get-schema requests %v, want every module fetched again", got)
	}
}
