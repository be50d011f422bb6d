package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultLeaseTTL is the lease TTL when Config.LeaseTTL is zero.
const DefaultLeaseTTL = 10 * time.Second

// DefaultPrefix names the buckets and subjects when Config.Prefix is empty.
const DefaultPrefix = "netmcp"

// Sessions is what a replica drives for the devices it owns. Open and Close
// are called from the replica's lease loop and must return promptly (start
// or stop a supervised session, do not wait for it to connect).
type Sessions interface {
	// Open starts the device's session: this replica now owns it.
	Open(device string)
	// Close stops the device's session: this replica no longer owns it.
	// It is called before the lease can expire or be taken by another
	// replica.
	Close(device string)
	// Call runs one tool on a device this replica owns.
	Call(ctx context.Context, device, tool string, args json.RawMessage) (json.RawMessage, error)
	// Request runs another MCP request (resources/read, prompts/list,
	// prompts/get, or MethodDescribe) on a device this replica owns and
	// returns its result as JSON.
	Request(ctx context.Context, device, method string, params json.RawMessage) (json.RawMessage, error)
}

// Config configures one replica.
type Config struct {
	// Name identifies the replica to operators ([A-Za-z0-9_-]+). Each Join
	// adds a random suffix, so a restarted replica is a new instance.
	Name string
	// Conn is the replica's NATS connection; the replica does not close it.
	Conn *nats.Conn
	// Prefix names the buckets and subjects (DefaultPrefix when empty).
	Prefix string
	// LeaseTTL is the lifetime of a device lease without renewal, in whole
	// seconds, at least 1 s (DefaultLeaseTTL when zero).
	LeaseTTL time.Duration
	// StreamReplicas is the JetStream replication of the buckets (1 when
	// zero; 3 on a three-server cluster).
	StreamReplicas int
	// PolicyDigest is this replica's policy digest; every replica of a
	// cluster must have the same.
	PolicyDigest string
	// InventoryDigest names the replica's inventory in its presence, for
	// the cluster's status to show replicas whose inventories differ
	// (NamesDigest of the devices Join is given when empty).
	InventoryDigest string
	// Sessions opens, closes and calls the devices this replica owns.
	Sessions Sessions
	// Logger receives lease changes at debug level (slog.Default when nil).
	Logger *slog.Logger
	// Elicit answers an approval question (elicitation/create params) a
	// device held by another replica asked during a call this replica
	// forwarded there: this replica relays it to the host whose request
	// made the call (see Replica.RelayElicit). Nil declines them.
	Elicit func(ctx context.Context, device string, params json.RawMessage) (json.RawMessage, error)
}

// Errors returned by Join and Call.
var (
	// ErrPolicyMismatch refuses a replica whose policy digest differs from
	// the cluster's.
	ErrPolicyMismatch = errors.New("cluster: policy digest differs from the cluster's")
	// ErrConfigMismatch refuses a replica whose lease TTL differs from the
	// cluster's.
	ErrConfigMismatch = errors.New("cluster: lease TTL differs from the cluster's")
	// ErrUnknownDevice is returned for a device outside the inventory.
	ErrUnknownDevice = errors.New("cluster: device not in the inventory")
	// ErrNoOwner is returned when no replica served the device before the
	// call's context ended.
	ErrNoOwner = errors.New("cluster: no replica serves the device")
	// ErrStopped is returned by a replica that has left or halted.
	ErrStopped = errors.New("cluster: replica stopped")
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// lease is a device lease this replica holds.
type lease struct {
	rev uint64
	// renewed is when the last successful write of the lease was sent; the
	// server expires it no earlier than LeaseTTL after that.
	renewed time.Time
	// due is when the lease is next renewed; renewing says a renewal is
	// in flight.
	due      time.Time
	renewing bool
	// from is when the session may open: a device taken after its lease
	// expired waits half a TTL, so that a previous owner which missed the
	// expiry finds out at its next renewal and closes its session first.
	from time.Time
	// opened says Sessions.Open was called (and Close not since).
	opened bool
	// stale says the lease went half a TTL without a renewal: it is not
	// served until one succeeds.
	stale bool
}

// owner is what the lease bucket says about one device key.
type owner struct {
	instance string // empty: deleted or expired
	rev      uint64
	// handedBack says the key was deleted by its owner rather than expired.
	handedBack bool
}

// Replica is one controller replica in a cluster.
type Replica struct {
	cfg      Config
	self     string
	ttl      time.Duration
	serveFor time.Duration
	log      *slog.Logger

	js jetstream.JetStream
	// leaseJS writes the leases asynchronously: an acknowledgement not
	// come within half a TTL is given up on, so that lost ones do not
	// pile up against the client's bound on pending publishes.
	leaseJS jetstream.JetStream
	leases  jetstream.KeyValue
	members jetstream.KeyValue
	state   jetstream.KeyValue
	sub     *nats.Subscription

	fwd forwards // elicit.go: the forwarded calls in progress here, by correlation id

	reportsMu sync.Mutex
	reportsKV jetstream.KeyValue // reports.go: opened on first use

	cancel context.CancelFunc
	wg     sync.WaitGroup
	kick   chan struct{}
	// leasesSeen and membersSeen are closed once the watchers delivered
	// the buckets' contents at Join.
	leasesSeen, membersSeen   chan struct{}
	leasesReady, membersReady sync.Once

	// lapses counts the leases this replica dropped while holding them:
	// not renewed within half a TTL, or found taken at renewal.
	lapses atomic.Int64

	mu        sync.Mutex
	stopped   bool
	inventory map[string]bool      // device -> in inventory
	view      map[string]owner     // device -> lease bucket's latest
	absent    map[string]time.Time // device -> since when seen unowned
	live      map[string]bool      // live replica instances
	mine      map[string]*lease    // devices this replica owns
	// presence is what the replica announces in the members bucket;
	// presenceDirty says it changed since it was last written.
	presence      presence
	presenceDirty bool
}

// clusterConfig is the shared configuration every replica must agree on.
type clusterConfig struct {
	PolicyDigest string `json:"policy_digest"`
	LeaseTTL     string `json:"lease_ttl"`
}

// Join connects a replica to the cluster: it creates the buckets if they
// are missing, checks the policy digest and lease TTL against the
// cluster's, announces the replica and starts claiming its share of
// devices. Inventory gives the devices; SetInventory changes them later.
func Join(ctx context.Context, cfg Config, inventory []string) (*Replica, error) {
	if cfg.Conn == nil || cfg.Sessions == nil {
		return nil, errors.New("cluster: Config.Conn and Config.Sessions are required")
	}
	if !nameRE.MatchString(cfg.Name) {
		return nil, fmt.Errorf("cluster: replica name %q: want [A-Za-z0-9_-]+", cfg.Name)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if !nameRE.MatchString(cfg.Prefix) {
		return nil, fmt.Errorf("cluster: prefix %q: want [A-Za-z0-9_-]+", cfg.Prefix)
	}
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.LeaseTTL < time.Second || cfg.LeaseTTL%time.Second != 0 {
		return nil, fmt.Errorf("cluster: lease TTL %v: want whole seconds, at least 1s", cfg.LeaseTTL)
	}
	if cfg.StreamReplicas == 0 {
		cfg.StreamReplicas = 1
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	r := &Replica{
		cfg:         cfg,
		self:        cfg.Name + "-" + hex.EncodeToString(suffix[:]),
		ttl:         cfg.LeaseTTL,
		serveFor:    cfg.LeaseTTL / 2,
		log:         cfg.Logger,
		kick:        make(chan struct{}, 1),
		leasesSeen:  make(chan struct{}),
		membersSeen: make(chan struct{}),
		inventory:   map[string]bool{},
		view:        map[string]owner{},
		absent:      map[string]time.Time{},
		live:        map[string]bool{},
		mine:        map[string]*lease{},
	}
	for _, d := range inventory {
		r.inventory[d] = true
	}
	if cfg.InventoryDigest == "" {
		cfg.InventoryDigest = NamesDigest(inventory)
	}
	r.presence = presence{Inventory: cfg.InventoryDigest, Devices: len(r.inventory)}
	js, err := jetstream.New(cfg.Conn)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	r.js = js
	if r.leaseJS, err = jetstream.New(cfg.Conn, jetstream.WithPublishAsyncTimeout(r.serveFor),
		jetstream.WithPublishAsyncMaxPending(asyncPending)); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if r.leases, err = r.bucket(ctx, "leases", jetstream.MemoryStorage, r.ttl); err != nil {
		return nil, err
	}
	if r.members, err = r.bucket(ctx, "members", jetstream.MemoryStorage, r.ttl); err != nil {
		return nil, err
	}
	if r.state, err = r.bucket(ctx, "state", jetstream.FileStorage, time.Second); err != nil {
		return nil, err
	}
	if err := r.checkConfig(ctx); err != nil {
		return nil, err
	}
	if err := r.announce(ctx); err != nil {
		return nil, fmt.Errorf("cluster: announce %s: %w", r.self, err)
	}
	r.sub, err = cfg.Conn.Subscribe(r.callSubject(r.self), r.serveRequest)
	if err != nil {
		return nil, fmt.Errorf("cluster: subscribe: %w", err)
	}

	loopCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	leaseW, err := r.leases.WatchAll(loopCtx)
	if err != nil {
		cancel()
		_ = r.sub.Unsubscribe()
		return nil, fmt.Errorf("cluster: watch leases: %w", err)
	}
	memberW, err := r.members.WatchAll(loopCtx)
	if err != nil {
		cancel()
		_ = r.sub.Unsubscribe()
		return nil, fmt.Errorf("cluster: watch members: %w", err)
	}
	r.wg.Add(5)
	go r.watchLeases(loopCtx, leaseW)
	go r.watchMembers(loopCtx, memberW)
	go r.loop(loopCtx)
	go r.renewer(loopCtx)
	go r.watchdog(loopCtx)
	return r, nil
}

// bucket opens or creates one of the cluster's key-value buckets with
// per-key TTLs allowed.
func (r *Replica) bucket(ctx context.Context, kind string, storage jetstream.StorageType, markerTTL time.Duration) (jetstream.KeyValue, error) {
	name := r.cfg.Prefix + "-" + kind
	kv, err := r.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:         name,
		History:        1,
		Storage:        storage,
		Replicas:       r.cfg.StreamReplicas,
		LimitMarkerTTL: markerTTL,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = r.js.KeyValue(ctx, name)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s: %w", name, err)
	}
	return kv, nil
}

// checkConfig records the cluster's shared configuration if it is the
// first replica, or compares it with the recorded one.
func (r *Replica) checkConfig(ctx context.Context) error {
	want := clusterConfig{PolicyDigest: r.cfg.PolicyDigest, LeaseTTL: r.ttl.String()}
	b, _ := json.Marshal(want)
	if _, err := r.state.Create(ctx, "config", b); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("cluster: record config: %w", err)
	}
	e, err := r.state.Get(ctx, "config")
	if err != nil {
		return fmt.Errorf("cluster: read config: %w", err)
	}
	var got clusterConfig
	if err := json.Unmarshal(e.Value(), &got); err != nil {
		return fmt.Errorf("cluster: read config: %w", err)
	}
	if got.PolicyDigest != want.PolicyDigest {
		return fmt.Errorf("%w (cluster %q, replica %q)", ErrPolicyMismatch, got.PolicyDigest, want.PolicyDigest)
	}
	if got.LeaseTTL != want.LeaseTTL {
		return fmt.Errorf("%w (cluster %s, replica %s)", ErrConfigMismatch, got.LeaseTTL, want.LeaseTTL)
	}
	return nil
}

// Instance is this replica's identity in the cluster: its name and a
// random suffix chosen at Join.
func (r *Replica) Instance() string { return r.self }

// Owned lists the devices this replica serves now, sorted.
func (r *Replica) Owned() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.mine))
	for d, l := range r.mine {
		if l.opened && time.Since(l.renewed) < r.serveFor {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// Owner is the instance the lease bucket names as the device's owner, as
// this replica last saw it.
func (r *Replica) Owner(device string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.view[device]
	return o.instance, o.instance != ""
}

// Members lists the live replica instances this replica sees, sorted.
func (r *Replica) Members() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.membersLocked()
}

func (r *Replica) membersLocked() []string {
	out := make([]string, 0, len(r.live)+1)
	seenSelf := false
	for m := range r.live {
		out = append(out, m)
		seenSelf = seenSelf || m == r.self
	}
	if !seenSelf && !r.stopped {
		out = append(out, r.self)
	}
	sort.Strings(out)
	return out
}

// serving reports whether this replica holds device's lease and may act on
// it: the last successful renewal was sent less than half a TTL ago.
func (r *Replica) serving(device string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.mine[device]
	return !r.stopped && l != nil && l.opened && time.Since(l.renewed) < r.serveFor
}

// Leave hands every device back (closing its session and deleting its
// lease), withdraws the replica and stops it. The others claim the devices
// at once rather than after the TTL.
func (r *Replica) Leave(ctx context.Context) error {
	mine := r.stop()
	var errs []error
	for d, l := range mine {
		if l.opened {
			r.cfg.Sessions.Close(d)
		}
		if err := r.leases.Delete(ctx, deviceKey(d), jetstream.LastRevision(l.rev)); err != nil {
			errs = append(errs, fmt.Errorf("hand back %s: %w", d, err))
		}
	}
	if err := r.members.Delete(ctx, r.self); err != nil {
		errs = append(errs, fmt.Errorf("withdraw %s: %w", r.self, err))
	}
	return errors.Join(errs...)
}

// Halt stops the replica as a crash would: no lease is handed back and no
// session is closed; the leases expire after the TTL. Tests use it to
// simulate a replica that dies.
func (r *Replica) Halt() { r.stop() }

// stop ends the loops and the request subscription and returns the leases
// held.
func (r *Replica) stop() map[string]*lease {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return nil
	}
	r.stopped = true
	mine := r.mine
	r.mine = map[string]*lease{}
	r.mu.Unlock()
	_ = r.sub.Unsubscribe()
	r.cancel()
	r.wg.Wait()
	return mine
}

func (r *Replica) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// put writes key = data with the lease TTL; with expect non-nil, only if
// the key's latest revision is *expect (0: the key has no message).
func (r *Replica) put(ctx context.Context, kv jetstream.KeyValue, key string, data []byte, expect *uint64) (uint64, error) {
	opts := []jetstream.PublishOpt{jetstream.WithMsgTTL(r.ttl)}
	if expect != nil {
		opts = append(opts, jetstream.WithExpectLastSequencePerSubject(*expect))
	}
	ack, err := r.js.PublishMsg(ctx, &nats.Msg{Subject: kvSubject(kv, key), Data: data}, opts...)
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

// kvSubject is the subject a key of kv is stored under.
func kvSubject(kv jetstream.KeyValue, key string) string {
	return "$KV." + kv.Bucket() + "." + key
}

func (r *Replica) callSubject(instance string) string {
	return r.cfg.Prefix + ".call." + instance
}

// Serves reports whether this replica holds device's session now: it owns
// the lease and renewed it less than half a TTL ago.
func (r *Replica) Serves(device string) bool { return r.serving(device) }
