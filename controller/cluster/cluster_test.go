package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/netmcp/netmcp/internal/testwait"
)

// testTTL is the lease TTL of the tests: short, so a lost replica's devices
// move within seconds. A replica rewrites every lease it holds three to four
// times a TTL, so the write rate a TTL asks for is fixed while what the
// machine can do is not: on a loaded two-core machine under -race, three
// replicas renewing 3,000 leases every 1.25 s in bursts let them lapse and
// never converged.
// The TTL is therefore 5 s stretched by the machine's load (whole seconds,
// at most 30 s), as an operator sizes the TTL to the fleet and the hardware.
var testTTL = scaledTTL(baseTTL, testwait.Scale())

// baseTTL is the test TTL on a quiet machine.
const baseTTL = 5 * time.Second

// stretch scales a wait written for baseTTL to testTTL: ownership moves in
// steps of the TTL (a claimed lease is served from half a TTL on).
func stretch(within time.Duration) time.Duration {
	return within * (testTTL / time.Second) / (baseTTL / time.Second)
}

// scaledTTL is base times scale, rounded up to whole seconds, at most 30 s.
func scaledTTL(base time.Duration, scale float64) time.Duration {
	d := time.Duration(float64(base) * scale)
	return min(((d+time.Second-1)/time.Second)*time.Second, 30*time.Second)
}

func TestDeviceKey(t *testing.T) {
	for _, tc := range []struct{ device, key string }{
		{"r1", "r1"},
		{"core-sw_2", "core-sw_2"},
		{"r1.lab", "=72312e6c6162"},
		{"a=b", "=613d62"},
		{"sw 1/0", "=737720312f30"},
	} {
		if got := deviceKey(tc.device); got != tc.key {
			t.Errorf("deviceKey(%q) = %q, want %q", tc.device, got, tc.key)
		}
		if back, ok := keyDevice(tc.key); !ok || back != tc.device {
			t.Errorf("keyDevice(%q) = %q, %v", tc.key, back, ok)
		}
	}
}

func TestPreferredBalancesAndMovesLittle(t *testing.T) {
	inv := devices(3000)
	three := []string{"a-1", "b-2", "c-3"}
	share := map[string]int{}
	for _, d := range inv {
		share[preferred(three, d)]++
	}
	for _, m := range three {
		if share[m] < 900 || share[m] > 1100 {
			t.Errorf("%s preferred for %d of 3000 devices, want about 1000", m, share[m])
		}
	}
	moved := 0
	four := append(three[:3:3], "d-4")
	for _, d := range inv {
		if p := preferred(four, d); p != preferred(three, d) && p != "d-4" {
			moved++
		}
	}
	if moved != 0 {
		t.Errorf("%d devices moved between old replicas when one joined", moved)
	}
}

// audit subscribes to the lease bucket's republished writes, which carry
// every stored message in stream order, and checks that no device changes
// owner without its lease being deleted or expired first.
//
// It also checks that it saw the whole history: each republished message
// names the sequence of the key's previous message (Nats-Last-Sequence,
// 0 when the key had none left), which must be the last one the audit saw
// for that key. Only the stream's leader republishes, so on a replicated
// bucket a leader change can skip a message without anything being
// wrong: there a gap is logged, not an error (strict is false).
type audit struct {
	mu         sync.Mutex
	owner      map[string]string
	last       map[string]uint64 // key -> stream sequence of its last message seen
	violations []string
	gaps       []string
	writes     int
	strict     bool
}

func startAudit(t *testing.T, url string, streamReplicas int) *audit {
	t.Helper()
	nc := connect(t, url)
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The same bucket Join creates, plus republishing for the audit.
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: DefaultPrefix + "-leases", History: 1, Storage: jetstream.MemoryStorage,
		Replicas: streamReplicas, LimitMarkerTTL: testTTL,
		RePublish: &jetstream.RePublish{Source: "$KV." + DefaultPrefix + "-leases.>", Destination: "audit.>"},
	}); err != nil {
		t.Fatal(err)
	}
	a := &audit{owner: map[string]string{}, last: map[string]uint64{}, strict: streamReplicas == 1}
	sub, err := nc.Subscribe("audit.>", func(m *nats.Msg) {
		key := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
		seq, _ := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
		prev, _ := strconv.ParseUint(m.Header.Get(jetstream.LastSequenceHeader), 10, 64)
		a.mu.Lock()
		defer a.mu.Unlock()
		if seen := a.last[key]; seq <= seen {
			return // republished twice
		} else if prev != 0 && prev != seen {
			a.gaps = append(a.gaps, fmt.Sprintf("%s: message %d follows %d, the audit saw %d last", key, seq, prev, seen))
		}
		a.last[key] = seq
		a.writes++
		if m.Header.Get("KV-Operation") != "" || m.Header.Get(jetstream.MarkerReasonHeader) != "" {
			delete(a.owner, key)
			return
		}
		v := string(m.Data)
		if cur := a.owner[key]; cur != "" && cur != v {
			a.violations = append(a.violations, fmt.Sprintf("%s: %s wrote over %s's live lease", key, v, cur))
		}
		a.owner[key] = v
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = sub.SetPendingLimits(-1, -1)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return a
}

func (a *audit) check(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.writes == 0 {
		t.Fatal("audit saw no lease writes")
	}
	for _, v := range a.violations {
		t.Error("two owners:", v)
	}
	for _, g := range a.gaps {
		if a.strict {
			t.Error("lease history incomplete:", g)
		} else {
			t.Log("lease history skipped a message (leader change?):", g)
		}
	}
	t.Logf("lease history: %d writes over %d keys, complete: %v", a.writes, len(a.last), len(a.gaps) == 0)
}

// TestClusterOwnershipRoutingFailover runs three replicas on a three-server
// NATS cluster over 3,000 devices: every device is owned exactly once,
// calls reach other replicas' devices, a halted replica's devices are owned
// again within the TTL and a bound, and the lease history never shows two
// owners.
func TestClusterOwnershipRoutingFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster")
	}
	urls := startNATS(t, 3)
	inv := devices(3000)
	rec := &recorder{}
	aud := startAudit(t, urls[0], 3)
	var nodes []*node
	for i := range 3 {
		nodes = append(nodes, join(t, urls[i], fmt.Sprintf("ctl%d", i), testTTL, 3, inv, rec))
	}
	took := waitOwnedBalanced(t, nodes, inv, 60*time.Second)
	t.Logf("3 replicas own 3000 devices, balanced, after %v", took)
	for _, n := range nodes {
		if c := len(n.Owned()); c < 800 || c > 1200 {
			t.Errorf("%s owns %d devices, want about 1000", n.Instance(), c)
		}
	}

	// A call reaching any replica is answered by the device's owner.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, via := range nodes {
		for _, owner := range nodes {
			d := owner.Owned()[0]
			res, err := via.Call(ctx, d, "show_version", json.RawMessage(`{"x":1}`))
			if err != nil {
				t.Fatalf("call %s via %s: %v", d, via.stub.name, err)
			}
			var got struct{ Device, Tool, Replica string }
			if err := json.Unmarshal(res, &got); err != nil {
				t.Fatal(err)
			}
			if got.Device != d || got.Tool != "show_version" || got.Replica != owner.stub.name {
				t.Errorf("call %s via %s answered %+v, want the owner %s", d, via.stub.name, got, owner.stub.name)
			}
		}
	}
	// A tool error comes back as the owner's error.
	remote := nodes[1].Owned()[0]
	_, err := nodes[0].Call(ctx, remote, "fail", nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Replica != nodes[1].Instance() {
		t.Errorf("failing tool via another replica: %v, want a RemoteError from %s", err, nodes[1].Instance())
	}
	if _, err := nodes[0].Call(ctx, "no-such-device", "x", nil); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("unknown device: %v", err)
	}

	// Halt one replica (a crash: nothing handed back).
	dead := nodes[2]
	lost := dead.Owned()
	dead.Halt()
	took = waitOwned(t, nodes[:2], inv, 4*baseTTL+5*time.Second)
	t.Logf("%d devices of a halted replica owned again after %v (TTL %v)", len(lost), took, testTTL)
	if took < testTTL/2 {
		t.Errorf("devices moved after %v, before the lease could expire", took)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), testwait.Timeout(10*time.Second))
	defer rcancel()
	res, err := nodes[0].Call(rctx, lost[0], "show_version", nil)
	if err != nil {
		t.Fatalf("call to a reclaimed device: %v", err)
	}
	if !strings.Contains(string(res), lost[0]) {
		t.Errorf("reclaimed device answered %s", res)
	}

	aud.check(t)
	// The halted replica never closed its sessions, so only the live ones
	// are checked by wall clock.
	for i, b := range rec.overlaps() {
		if !strings.Contains(b, "ctl2") {
			t.Error(b)
			if i == 0 {
				dev := strings.Fields(b)[0]
				for _, e := range rec.events {
					if e.device == dev {
						t.Logf("%s open=%v %v", e.replica, e.open, e.at.Format("15:04:05.000"))
					}
				}
			}
		}
	}
}

// TestJoinAndLeaveRebalance: a replica joining takes its share from the
// others, and one leaving hands its devices back at once.
func TestJoinAndLeaveRebalance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	urls := startNATS(t, 1)
	inv := devices(600)
	rec := &recorder{}
	aud := startAudit(t, urls[0], 1)
	a := join(t, urls[0], "a", testTTL, 1, inv, rec)
	waitOwned(t, []*node{a}, inv, 10*time.Second)
	b := join(t, urls[0], "b", testTTL, 1, inv, rec)
	took := waitOwnedBalanced(t, []*node{a, b}, inv, 10*time.Second)
	t.Logf("a joining replica took its share after %v", took)

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	took = waitOwned(t, []*node{a}, inv, 10*time.Second)
	t.Logf("a leaving replica's devices owned again after %v", took)
	if took > testTTL {
		t.Errorf("hand-back took %v, longer than the TTL: the leases were not handed back", time.Since(start))
	}
	aud.check(t)
	for _, b := range rec.overlaps() {
		t.Error(b)
	}
}

// waitOwnedBalanced waits until every device is owned once and no node
// holds more than 60% of them.
func waitOwnedBalanced(t testing.TB, nodes []*node, inv []string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		dup, missing := ownership(nodes, inv)
		balanced := true
		for _, n := range nodes {
			if len(n.Owned())*10 > len(inv)*6*2/len(nodes) {
				balanced = false
			}
		}
		if dup == 0 && missing == 0 && balanced {
			return time.Since(start)
		}
		if time.Since(start) > stretch(within) {
			t.Fatalf("after %v: %d owned twice, %d not owned, balanced %v", stretch(within), dup, missing, balanced)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPartitionedReplicaStopsServing cuts one replica from NATS (its link
// drops every byte, as a partition does): it closes its sessions and
// refuses its devices before its leases can expire, and the others take
// them only after, so no device has two owners, by the lease history and
// by wall clock.
func TestPartitionedReplicaStopsServing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	urls := startNATS(t, 1)
	inv := devices(300)
	rec := &recorder{}
	aud := startAudit(t, urls[0], 1)
	p := newProxy(t, urls[0])
	a := join(t, urls[0], "a", testTTL, 1, inv, rec)
	b := join(t, urls[0], "b", testTTL, 1, inv, rec)
	cut := join(t, p.url(), "cut", testTTL, 1, inv, rec)
	nodes := []*node{a, b, cut}
	waitOwnedBalanced(t, nodes, inv, 15*time.Second)
	mine := cut.Owned()
	if len(mine) == 0 {
		t.Fatal("the replica to cut owns nothing")
	}

	p.cut.Store(true)
	cutAt := time.Now()
	// It stops answering for its devices before any of its leases can
	// expire: each lease was renewed at most 0.3 TTL before the cut, so
	// 0.7 TTL after the cut is the latest safe moment (the watchdog aims
	// at half a TTL after the last renewal).
	for len(cut.Owned()) > 0 {
		if time.Since(cutAt) > 7*testTTL/10 {
			t.Fatalf("cut replica still serves %d devices %v after the cut", len(cut.Owned()), time.Since(cutAt))
		}
		time.Sleep(10 * time.Millisecond)
	}
	stopped := time.Since(cutAt)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := cut.Call(ctx, mine[0], "show_version", nil)
	cancel()
	if err == nil {
		t.Error("a replica cut from NATS still answered a call for its device")
	}
	took := waitOwned(t, []*node{a, b}, inv, 4*baseTTL+5*time.Second)
	t.Logf("cut replica stopped serving after %v; its devices owned again after %v", stopped, took)

	// Heal: the cut replica comes back and rejoins the balance.
	p.cut.Store(false)
	aud.check(t)
	for _, b := range rec.overlaps() {
		t.Error(b)
	}
	// The cut replica closed each of its sessions before another opened
	// it. Only its devices count: a device handed between the two others
	// while the balance settles is no business of the cut one.
	closed := map[string]time.Time{}
	wasCut := map[string]bool{}
	for _, d := range mine {
		wasCut[d] = true
	}
	rec.mu.Lock()
	for _, e := range rec.events {
		if e.replica == "cut" && !e.open && e.at.After(cutAt) {
			closed[e.device] = e.at
		}
	}
	for _, e := range rec.events {
		if wasCut[e.device] && e.replica != "cut" && e.open && e.at.After(cutAt) {
			if c, ok := closed[e.device]; !ok || !c.Before(e.at) {
				t.Errorf("%s opened on %s at %v, cut replica closed it at %v", e.device, e.replica, e.at.Sub(cutAt), c.Sub(cutAt))
			}
		}
	}
	rec.mu.Unlock()
}

// TestNonceUsedOnceAcrossReplicas: a consent nonce used on one replica is
// refused on another.
func TestNonceUsedOnceAcrossReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	urls := startNATS(t, 1)
	a := join(t, urls[0], "a", testTTL, 1, nil, nil)
	b := join(t, urls[0], "b", testTTL, 1, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	forget := time.Now().Add(time.Hour)
	if err := a.UseNonce(ctx, "key1/n-1", forget); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		r     *node
		nonce string
		want  error
	}{
		{"same nonce, other replica", b, "key1/n-1", ErrNonceUsed},
		{"same nonce, same replica", a, "key1/n-1", ErrNonceUsed},
		{"other nonce", b, "key1/n-2", nil},
		{"other nonce again", a, "key1/n-2", ErrNonceUsed},
	} {
		if err := tc.r.UseNonce(ctx, tc.nonce, forget); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := a.UseNonce(ctx, "key1/old", time.Now().Add(-time.Second)); !errors.Is(err, ErrNonceUsed) {
		t.Errorf("expired consent: %v, want refused", err)
	}
}

// TestJoinRefusesDifferentPolicy: a replica with another policy digest, or
// another lease TTL, does not join.
func TestJoinRefusesDifferentPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	urls := startNATS(t, 1)
	join(t, urls[0], "a", testTTL, 1, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name   string
		digest string
		ttl    time.Duration
		want   error
	}{
		{"other policy", "sha256:other", testTTL, ErrPolicyMismatch},
		{"other TTL", "sha256:test", 3 * time.Second, ErrConfigMismatch},
		{"same", "sha256:test", testTTL, nil},
	} {
		r, err := Join(ctx, Config{
			Name: "b", Conn: connect(t, urls[0]), LeaseTTL: tc.ttl,
			PolicyDigest: tc.digest, Sessions: newStub("b", nil),
		}, nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if r != nil {
			r.Halt()
		}
	}
}

func TestJoinValidatesConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no conn", Config{Name: "a", Sessions: newStub("a", nil)}},
		{"bad name", Config{Name: "a.b", Conn: &nats.Conn{}, Sessions: newStub("a", nil)}},
		{"sub-second TTL", Config{Name: "a", Conn: &nats.Conn{}, Sessions: newStub("a", nil), LeaseTTL: 1500 * time.Millisecond}},
	} {
		if _, err := Join(context.Background(), tc.cfg, nil); err == nil {
			t.Errorf("%s: joined", tc.name)
		}
	}
}

func TestScaledTTL(t *testing.T) {
	for _, tc := range []struct {
		scale float64
		want  time.Duration
	}{
		{1, 5 * time.Second},
		{1.1, 6 * time.Second},
		{2, 10 * time.Second},
		{9, 30 * time.Second},
	} {
		if got := scaledTTL(5*time.Second, tc.scale); got != tc.want {
			t.Errorf("scaledTTL(5s, %v) = %v, want %v", tc.scale, got, tc.want)
		}
	}
}

// TestInventoryChange: the replicas take a new inventory while running:
// the devices that left it are handed back (sessions closed, leases
// deleted), the new ones are claimed and opened, every device is owned
// once; while the replicas' inventories differ the status shows two
// digests, and one once they agree.
func TestInventoryChange(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server")
	}
	urls := startNATS(t, 1)
	all := devices(250)
	before, after := all[:200], all[50:]
	rec := &recorder{}
	aud := startAudit(t, urls[0], 1)
	a := join(t, urls[0], "a", testTTL, 1, before, rec)
	b := join(t, urls[0], "b", testTTL, 1, before, rec)
	nodes := []*node{a, b}
	waitOwnedBalanced(t, nodes, before, 15*time.Second)

	status := func() *Status {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		st, err := ReadStatus(ctx, connect(t, urls[0]), "")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := status(); len(st.Inventories) != 1 || st.Inventories[0] != NamesDigest(before) {
		t.Fatalf("inventories %v, want the one of the first inventory", st.Inventories)
	}

	a.SetInventory(after, "")
	testwait.Until(t, 10*time.Second, "status shows the two inventories", func() (bool, string) {
		st := status()
		return len(st.Inventories) == 2, fmt.Sprint(st.Inventories)
	})
	for _, r := range status().Replicas {
		want := map[string]int{a.Instance(): len(after), b.Instance(): len(before)}[r.Instance]
		if r.InventoryDevices != want {
			t.Errorf("%s announces %d devices, want %d", r.Instance, r.InventoryDevices, want)
		}
	}
	b.SetInventory(after, "")
	took := waitOwned(t, nodes, after, 4*baseTTL+5*time.Second)
	t.Logf("new inventory owned once after %v", took)
	removed := all[:50]
	testwait.Until(t, stretch(15*time.Second), "removed devices handed back", func() (bool, string) {
		st := status()
		var leased []string
		gone := map[string]bool{}
		for _, d := range removed {
			gone[d] = true
		}
		for _, r := range st.Replicas {
			for _, l := range r.Leases {
				if gone[l.Device] {
					leased = append(leased, l.Device)
				}
			}
		}
		return len(leased) == 0 && len(st.Inventories) == 1, fmt.Sprintf("still leased: %v; inventories %v", leased, st.Inventories)
	})
	for _, n := range nodes {
		n.stub.mu.Lock()
		for _, d := range removed {
			if n.stub.open[d] {
				t.Errorf("%s still has a session to removed %s", n.stub.name, d)
			}
		}
		n.stub.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := a.Call(ctx, removed[0], "show_version", nil); !errors.Is(err, ErrUnknownDevice) {
		t.Errorf("call on a removed device: %v, want ErrUnknownDevice", err)
	}
	aud.check(t)
	for _, o := range rec.overlaps() {
		t.Error(o)
	}
}
