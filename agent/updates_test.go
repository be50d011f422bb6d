package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// operatorWithUpdates opens an operator's mTLS session to the agent of
// name whose resource updates go to updated.
func (d *testDomain) operatorWithUpdates(name string, updated chan<- string) *mcp.ClientSession {
	return d.operatorWith(name, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		select {
		case updated <- req.Params.URI:
		default:
		}
	}})
}

// TestFollowInterfaceOverGNMI: r1's device is reached over gNMI; an
// operator following one of r1's interfaces through r1's agent is told of
// the link going down by the device's ON_CHANGE stream, relayed by the
// agent, with no polling anywhere on the way.
func TestFollowInterfaceOverGNMI(t *testing.T) {
	d := newDomain(t, domainOpts{gnmi: map[string]bool{"r1": true}})
	updated := make(chan string, 16)
	op := d.operatorWithUpdates("r1", updated)
	ctx := context.Background()
	uri := netproto.URIInterfacePrefix + "GigabitEthernet0/0/0"
	if err := op.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	f, err := topology.ParseFault("link_down r1:GigabitEthernet0/0/0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.lab.Inject(f); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	select {
	case got := <-updated:
		if got != uri {
			t.Fatalf("update of %q, want %q", got, uri)
		}
	case <-time.After(testwait.Timeout(10 * time.Second)):
		t.Fatal("no update relayed for the link going down")
	}
	t.Logf("fault to the operator's update through the agent: %v", time.Since(start))

}

// TestSubscribeAdmission: a neighbour of r2 may follow r2's interface only
// with a capability that lets it read interface state (r1 offers none),
// only an interface's resource can be followed, and an unsubscribe ends
// the relay.
func TestSubscribeAdmission(t *testing.T) {
	d := newDomain(t, domainOpts{offer: map[string][]string{
		"r1": {CapPing, CapNeighbors},
		"r3": {CapPing, CapCounters, CapNeighbors},
	}})
	ctx := context.Background()
	uri := netproto.URIInterfacePrefix + "GigabitEthernet0/0/0"
	for _, tc := range []struct {
		from, uri string
		want      string // "" accepted, else a word of the error
	}{
		{"r1", uri, "Network.AccessDenied"},
		{"r3", uri, ""},
		{"r3", "network:///interfaces", "cannot be followed"},
		{"r3", netproto.URICPU, "cannot be followed"},
	} {
		a := d.agents[tc.from]
		if _, err := a.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		p, err := a.Connect(ctx, "r2")
		if err != nil {
			t.Fatal(err)
		}
		err = p.Session().Subscribe(ctx, &mcp.SubscribeParams{URI: tc.uri})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s following %s: %v", tc.from, tc.uri, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s following %s: err %v, want %q", tc.from, tc.uri, err, tc.want)
		}
	}
	callee := d.agents["r2"]
	callee.subs.mu.Lock()
	n := len(callee.subs.servers[uri])
	callee.subs.mu.Unlock()
	if n != 1 {
		t.Fatalf("r2 relays %s to %d sessions, want 1 (r3's)", uri, n)
	}
	p, _ := d.agents["r3"].Connect(ctx, "r2")
	if err := p.Session().Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	callee.subs.mu.Lock()
	n = len(callee.subs.servers[uri])
	callee.subs.mu.Unlock()
	if n != 0 {
		t.Fatalf("after unsubscribe r2 still relays %s to %d sessions", uri, n)
	}
}
