package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/lab/labtest"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
)

// fleetNode is a replica driving a real client.Fleet.
type fleetNode struct {
	*Replica
	fleet    *client.Fleet
	sessions *FleetSessions
}

// joinFleet starts a replica whose sessions are a fleet over l.
func joinFleet(t testing.TB, url, name string, l *labtest.Lab) *fleetNode {
	t.Helper()
	return joinFleetWith(t, url, name, l, nil)
}

// joinFleetWith is joinFleet with host answering the approval questions
// of the calls made through this replica: those of the devices it holds
// and those the other replicas relay (nil: none).
func joinFleetWith(t testing.TB, url, name string, l *labtest.Lab, host client.ElicitFunc) *fleetNode {
	t.Helper()
	s := &FleetSessions{}
	opts := client.Options{Remote: s.Remote, RemoteRequest: s.RemoteRequest}
	var relay func(context.Context, string, json.RawMessage) (json.RawMessage, error)
	if host != nil {
		opts.Elicit = func(ctx context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if res, ok, err := s.RelayElicit(ctx, d, p); ok {
				return res, err
			}
			return host(ctx, d, p)
		}
	}
	f, err := client.New(l.Inventory(), opts)
	if host != nil {
		relay = ElicitVia(f, host)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s.Fleet = f
	var inv []string
	for _, d := range f.Devices() {
		_ = f.Release(d.Name())
		inv = append(inv, d.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Join(ctx, Config{Name: name, Conn: connect(t, url), LeaseTTL: testTTL, PolicyDigest: "sha256:test", Sessions: s, Elicit: relay}, inv)
	if err != nil {
		t.Fatal(err)
	}
	s.Bind(r)
	t.Cleanup(r.Halt)
	return &fleetNode{Replica: r, fleet: f, sessions: s}
}

// TestFleetSessions: two replicas over a simulated lab hold MCP sessions
// only to the devices they own; a device owned by the other answers
// through the replica's fleet as if it were local (its tool errors,
// resources, prompts, capabilities and tools too), and ReadStatus lists
// both replicas with every lease once.
func TestFleetSessions(t *testing.T) {
	url := startNATS(t, 1)[0]
	l := labtest.New(t, labtest.Options{})
	a, b := joinFleet(t, url, "a", l), joinFleet(t, url, "b", l)
	var inv []string
	for _, d := range a.fleet.Devices() {
		inv = append(inv, d.Name())
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		dup, missing := 0, 0
		for _, d := range inv {
			n := 0
			for _, r := range []*fleetNode{a, b} {
				if st, _ := r.fleet.Device(d).State(); st == client.StateConnected {
					n++
				}
			}
			switch {
			case n == 0:
				missing++
			case n > 1:
				dup++
			}
		}
		if dup == 0 && missing == 0 && len(a.Owned())+len(b.Owned()) == len(inv) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions: %d devices held twice, %d by none (a owns %v, b owns %v)", dup, missing, a.Owned(), b.Owned())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every device through the replica that does not own it (hashing
	// may give one replica every device of a small lab).
	for _, name := range inv {
		via := a
		if a.Serves(name) {
			via = b
		}
		d := via.fleet.Device(name)
		if st, _ := d.State(); st != client.StateReleased {
			t.Fatalf("%s, owned by the other replica, is %s on %s", name, st, via.Instance())
		}
		res, err := d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": "/openconfig-system:system/config/hostname"})
		if err != nil {
			t.Fatalf("%s through %s: %v", name, via.Instance(), err)
		}
		out, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(out), name) {
			t.Fatalf("%s through %s answered %s", name, via.Instance(), out)
		}
		_, err = d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": "/no-such-module:x"})
		if err == nil {
			t.Fatalf("%s through %s: a bad path succeeded", name, via.Instance())
		}
		checkForwardedReads(t, ctx, via, ownerOf(a, b, name), name)
	}
	st, err := ReadStatus(ctx, connect(t, url), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Replicas) != 2 || st.Devices != len(inv) || st.PolicyDigest != "sha256:test" {
		t.Fatalf("status: %d replicas, %d devices, digest %q; want 2, %d, sha256:test", len(st.Replicas), st.Devices, st.PolicyDigest, len(inv))
	}
	for _, r := range st.Replicas {
		var want *fleetNode
		for _, n := range []*fleetNode{a, b} {
			if n.Instance() == r.Instance {
				want = n
			}
		}
		if want == nil || !r.Present || len(r.Leases) != len(want.Owned()) {
			t.Fatalf("status of %s: %+v", r.Instance, r)
		}
		for _, l := range r.Leases {
			if !want.Serves(l.Device) || l.Age > testTTL {
				t.Fatalf("status of %s: lease %+v", r.Instance, l)
			}
		}
	}
}

// ownerOf is the node of a and b that serves device.
func ownerOf(a, b *fleetNode, device string) *fleetNode {
	if a.Serves(device) {
		return a
	}
	return b
}

// checkForwardedReads checks that what via's fleet reads of a device the
// owner holds is what the owner reads on its own session: a resource, the
// prompts, a device's JSON-RPC error (same text, still a JSON-RPC error),
// and, once described, its capabilities and tools.
func checkForwardedReads(t *testing.T, ctx context.Context, via, own *fleetNode, name string) {
	t.Helper()
	remote, local := via.fleet.Device(name), own.fleet.Device(name)
	lctx := client.LocalOnly(ctx)

	want, werr := local.ReadResource(lctx, netproto.URISyslogPrefix+"200")
	got, err := remote.ReadResource(ctx, netproto.URISyslogPrefix+"200")
	if (err != nil) != (werr != nil) || (err == nil && (len(got.Contents) != len(want.Contents) || got.Contents[0].URI != want.Contents[0].URI)) {
		t.Errorf("%s: resources/read through %s: %+v, %v; on the owner %+v, %v", name, via.Instance(), got, err, want, werr)
	}
	_, werr = local.ReadResource(lctx, "mcp://no-such-resource")
	_, err = remote.ReadResource(ctx, "mcp://no-such-resource")
	var wje, je *jsonrpc.Error
	if werr == nil || err == nil || err.Error() != werr.Error() || errors.As(werr, &wje) != errors.As(err, &je) {
		t.Errorf("%s: a bad resource through %s: %v; on the owner: %v", name, via.Instance(), err, werr)
	}
	if wje != nil && (je == nil || je.Code != wje.Code) {
		t.Errorf("%s: a bad resource through %s: JSON-RPC error %+v, on the owner %+v", name, via.Instance(), je, wje)
	}

	wp, werr := local.ListPrompts(lctx)
	gp, err := remote.ListPrompts(ctx)
	if err != nil || werr != nil || len(gp) != len(wp) {
		t.Errorf("%s: prompts/list through %s: %d prompts, %v; on the owner %d, %v", name, via.Instance(), len(gp), err, len(wp), werr)
	}
	if len(wp) > 0 {
		var args map[string]string
		if _, err := remote.GetPrompt(ctx, wp[0].Name, args); err != nil {
			if _, werr := local.GetPrompt(lctx, wp[0].Name, args); werr == nil || werr.Error() != err.Error() {
				t.Errorf("%s: prompts/get %s through %s: %v; on the owner %v", name, wp[0].Name, via.Instance(), err, werr)
			}
		}
	}

	if n, err := via.sessions.Describe(ctx, []string{name}); err != nil || n != 1 || remote.Described().IsZero() {
		t.Fatalf("%s: described through %s: %d, %v", name, via.Instance(), n, err)
	}
	toolNames := func(d *client.Device) (out []string) {
		for _, tl := range d.Tools() {
			out = append(out, tl.Name)
		}
		return out
	}
	if g, w := toolNames(remote), toolNames(local); len(w) == 0 || !slices.Equal(g, w) {
		t.Errorf("%s: tools through %s %v, on the owner %v", name, via.Instance(), g, w)
	}
	gn, gok := remote.Network()
	wn, wok := local.Network()
	if gok != wok || gn.CLIDialect != wn.CLIDialect || !slices.Equal(gn.YangModules, wn.YangModules) {
		t.Errorf("%s: capabilities.network through %s %+v, on the owner %+v", name, via.Instance(), gn, wn)
	}
}

// TestForwardedApprovalQuestion: a write through one replica on a device
// the other holds makes the device ask for approval; the holder relays
// the question to the asking replica, whose host answers it: declined,
// the write is refused; accepted, it is applied. The holder's own host
// is never asked.
func TestForwardedApprovalQuestion(t *testing.T) {
	url := startNATS(t, 1)[0]
	l := labtest.New(t, labtest.Options{Role: policy.RoleAdmin})
	var mu sync.Mutex
	asked := map[string][]string{}
	answer := map[string]string{"a": "decline", "b": "decline"}
	host := func(name string) client.ElicitFunc {
		return func(_ context.Context, d *client.Device, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked[name] = append(asked[name], d.Name()+": "+p.Message)
			if answer[name] == "accept" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true, "confirm": true}}, nil
			}
			return &mcp.ElicitResult{Action: answer[name]}, nil
		}
	}
	a := joinFleetWith(t, url, "a", l, host("a"))
	b := joinFleetWith(t, url, "b", l, host("b"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	total := len(a.fleet.Devices())
	testwait.Until(t, 30*time.Second, "every device owned", func() (bool, string) {
		return len(a.Owned())+len(b.Owned()) == total, fmt.Sprintf("a %v, b %v", a.Owned(), b.Owned())
	})
	// The asking replica forwards to the one holding a router.
	asker, holder, an, hn, dev := a, b, "a", "b", ""
	for _, name := range []string{"r1", "r2", "r3"} {
		if dev == "" && b.Serves(name) {
			dev = name
		}
	}
	if dev == "" {
		asker, holder, an, hn, dev = b, a, "b", "a", "r1"
	}
	if !holder.Serves(dev) {
		t.Fatalf("%s is not held by %s", dev, holder.Instance())
	}
	// A loopback every router can create: the lab's routers do not all
	// have the same physical interfaces.
	edit := func(desc string) error {
		_, err := asker.fleet.Device(dev).CallTool(client.WithCorrelationID(ctx, "relay-test-"+desc), netproto.ToolYangEdit, map[string]any{"target": "candidate", "edit": []any{
			map[string]any{"operation": "merge", "path": "/openconfig-interfaces:interfaces/interface[name='LoopBack100']/config",
				"value": map[string]any{"name": "LoopBack100", "type": "iana-if-type:softwareLoopback", "description": desc}}}})
		return err
	}
	if err := edit("declined"); err == nil {
		t.Fatalf("%s: a write whose approval the asking replica's host declined was applied", dev)
	}
	mu.Lock()
	if len(asked[an]) == 0 || len(asked[hn]) != 0 {
		t.Fatalf("approval questions: the asking replica's host %q, the holder's %q; want the asker's only", asked[an], asked[hn])
	}
	answer[an] = "accept"
	mu.Unlock()
	if err := edit("accepted"); err != nil {
		t.Fatalf("%s: a write the asking replica's host approved: %v", dev, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked[hn]) != 0 || !strings.HasPrefix(asked[an][len(asked[an])-1], dev+": ") {
		t.Fatalf("approval questions: the asking replica's host %q, the holder's %q", asked[an], asked[hn])
	}
}

// TestCallWaitsWhileSessionChangesHands: a call that finds the owner's
// session closed while the lease changes hands (client.ErrReleased), on
// the owner or on the replica itself, is tried again rather than failed.
func TestCallWaitsWhileSessionChangesHands(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(8)
	a, b := join(t, url, "a", testTTL, 1, inv, nil), join(t, url, "b", testTTL, 1, inv, nil)
	nodes := []*node{a, b}
	waitOwned(t, nodes, inv, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, d := range inv {
		own, via := a, b
		if b.Serves(d) {
			own, via = b, a
		}
		for _, caller := range []*node{via, own} { // forwarded, then local
			own.stub.released.Store(2)
			res, err := caller.Call(ctx, d, "show_version", nil)
			if err != nil || !strings.Contains(string(res), own.stub.name) || own.stub.released.Load() != 0 {
				t.Fatalf("%s through %s while its session changes hands: %s, %v", d, caller.Instance(), res, err)
			}
		}
	}
}

// TestDescribeOneRequestPerOwner: describing every device the other
// replica holds takes one request to that replica, not one per device;
// each device's tools are then those its holder's session listed.
func TestDescribeOneRequestPerOwner(t *testing.T) {
	url := startNATS(t, 1)[0]
	l := labtest.New(t, labtest.Options{})
	a, b := joinFleet(t, url, "a", l), joinFleet(t, url, "b", l)
	var inv []string
	for _, d := range a.fleet.Devices() {
		inv = append(inv, d.Name())
	}
	testwait.Until(t, 60*time.Second, "every device held and connected once", func() (bool, string) {
		n := 0
		for _, d := range inv {
			sa, _ := a.fleet.Device(d).State()
			sb, _ := b.fleet.Device(d).State()
			if (sa == client.StateConnected) != (sb == client.StateConnected) {
				n++
			}
		}
		return n == len(inv), fmt.Sprintf("a owns %v, b owns %v", a.Owned(), b.Owned())
	})
	via, holder := a, b
	if len(b.Owned()) < len(a.Owned()) {
		via, holder = b, a
	}
	held := holder.Owned()
	if len(held) < 2 {
		t.Fatalf("%s holds %v: want at least two devices to describe", holder.Instance(), held)
	}
	// A copy of every request to the holder.
	var mu sync.Mutex
	methods := map[string]int{}
	spy := connect(t, url)
	sub, err := spy.Subscribe(holder.callSubject(holder.Instance()), func(m *nats.Msg) {
		var req request
		if json.Unmarshal(m.Data, &req) == nil {
			mu.Lock()
			methods[req.Method]++
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := via.sessions.Describe(ctx, inv)
	if err != nil || n != len(held) {
		t.Fatalf("Describe through %s: %d described, %v; want the %d %s holds", via.Instance(), n, err, len(held), holder.Instance())
	}
	var got map[string]int
	testwait.Until(t, 10*time.Second, "the spy sees the request", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		got = maps.Clone(methods)
		return got[methodDescribeMany] > 0, fmt.Sprint(got)
	})
	if got[methodDescribeMany] != 1 || got[MethodDescribe] != 0 {
		t.Errorf("requests to the holder: %v, want one %s", got, methodDescribeMany)
	}
	for _, name := range held {
		var g, w []string
		for _, tl := range via.fleet.Device(name).Tools() {
			g = append(g, tl.Name)
		}
		for _, tl := range holder.fleet.Device(name).Tools() {
			w = append(w, tl.Name)
		}
		if len(w) == 0 || !slices.Equal(g, w) || via.fleet.Device(name).Described().IsZero() {
			t.Errorf("%s described through %s: tools %v, on the holder %v", name, via.Instance(), g, w)
		}
	}
}
