package console

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/netproto"
)

// TestElicitOnlyForTheApprovedFix: while an approved fix is applied, the
// console accepts the questions of the devices it changes that carry its
// correlation id, in the approver's name, declines those of other
// devices, and leaves every other question (and all after) to others.
func TestElicitOnlyForTheApprovedFix(t *testing.T) {
	inv := &inventory.Inventory{Devices: []inventory.Device{
		{Name: "r1", URL: "http://127.0.0.1:1/mcp"}, {Name: "r3", URL: "http://127.0.0.1:1/mcp"}}}
	c, err := New(Options{Inventory: inv})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rep := &Report{ID: "rep", CorrelationID: "c-fix", ProposedChanges: []Change{{Device: "r3", Summary: "remove entry 10"}}}
	a, err := c.approvals.request(rep, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.approvals.request(rep, "bob"); err == nil {
		t.Error("a second request of the same fix was queued")
	}
	if _, err := c.approvals.decide(a.ID, "approved", "alice"); err != nil {
		t.Fatal(err)
	}
	ask := func(dev, corr string) (*mcp.ElicitResult, bool) {
		p := &mcp.ElicitParams{Message: "Approve network.commit?", Meta: mcp.Meta{netproto.MetaCorrelationID: corr}}
		return c.Elicit(context.Background(), c.fleet.Device(dev), p)
	}
	if _, ok := ask("r3", "c-fix"); ok {
		t.Error("answered before the apply began")
	}
	end := c.approvals.begin(a)
	res, ok := ask("r3", "c-fix")
	if !ok || res.Action != "accept" || res.Meta[netproto.MetaAnsweredBy] != "alice" {
		t.Errorf("r3's question: %v %+v, want accepted by alice", ok, res)
	}
	if res, ok := ask("r1", "c-fix"); !ok || res.Action != "decline" {
		t.Errorf("r1's question (not in the fix): %v %+v, want declined", ok, res)
	}
	for _, corr := range []string{"c-other", ""} {
		if _, ok := ask("r3", corr); ok {
			t.Errorf("answered a question with correlation id %q", corr)
		}
	}
	end()
	if _, ok := ask("r3", "c-fix"); ok {
		t.Error("answered after the apply ended")
	}
}
