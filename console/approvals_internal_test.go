package console

import (
	"context"
	"errors"
	"sync"
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

// memPending is a PendingStore in memory, shared by the queues of a test
// as the cluster's bucket is by the replicas' consoles.
type memPending struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (p *memPending) Put(id string, v []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.m[id]; ok {
		return errors.New("queued already")
	}
	p.m[id] = v
	return nil
}

func (p *memPending) List() ([][]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out [][]byte
	for _, v := range p.m {
		out = append(out, v)
	}
	return out, nil
}

func (p *memPending) Take(id string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.m[id]
	if !ok {
		return nil, errors.New("not queued")
	}
	delete(p.m, id)
	return v, nil
}

// TestSharedPendingDecidedOnce: two consoles sharing their queue (the
// replicas of a cluster): a fix queued through one is listed through the
// other with its changes, a second request for the same report through
// the other is refused, the other approves it, and the first can no
// longer decide it.
func TestSharedPendingDecidedOnce(t *testing.T) {
	store := &memPending{m: map[string][]byte{}}
	qa, qb := newApprovals(store, nil), newApprovals(store, nil)
	rep := &Report{ID: "rep", CorrelationID: "c-fix", Diagnosis: "ACL drops ICMP",
		ProposedChanges: []Change{{Device: "r3", Summary: "remove entry 10"}}}
	a, err := qa.request(rep, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qb.request(rep, "carol"); err == nil {
		t.Fatal("a second request for the same report through the other console was queued")
	}
	pending, _, err := qb.list()
	if err != nil || len(pending) != 1 || pending[0].ID != a.ID || pending[0].Why != rep.Diagnosis || len(pending[0].What) != 1 {
		t.Fatalf("listed through the other console: %+v, %v", pending, err)
	}
	if p, ok := qb.pendingFor("rep"); !ok || p.Requester != "bob" || qb.count() != 1 {
		t.Fatalf("pendingFor through the other console: %+v, %v", p, ok)
	}
	d, err := qb.decide(a.ID, "approved", "alice")
	if err != nil || d.Decider != "alice" || d.Report != "rep" || d.Devices()[0] != "r3" {
		t.Fatalf("decided through the other console: %+v, %v", d, err)
	}
	if _, err := qa.decide(a.ID, "approved", "bob"); err == nil {
		t.Fatal("a fix approved through one console was approved again through the other")
	}
	if qa.count() != 0 {
		t.Fatalf("%d fixes still waiting", qa.count())
	}
	qb.undo(d) // its apply could not start: waiting again, for both
	if p, ok := qa.pendingFor("rep"); !ok || p.Decision != "" {
		t.Fatalf("after undo: %+v, %v", p, ok)
	}
}
