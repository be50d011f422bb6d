package console

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"embed"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/policy"
)

//go:embed templates/*.html static
var assets embed.FS

// Options configure a Console.
type Options struct {
	// Inventory is the fleet the console reads (nil: none, the map is the
	// topology's, without live state).
	Inventory *inventory.Inventory
	// Fleet is the fleet client to read through; nil makes one from
	// Inventory (closed by Close). A given fleet is started but not closed.
	Fleet *client.Fleet
	// Topology, for a lab, gives the devices that are not in the fleet
	// (hosts) and the links; nil takes the links from the devices' LLDP
	// neighbours.
	Topology *topology.Topology
	// Logger receives the console's log (default: discarded).
	Logger *slog.Logger
	// BaseURL is where the console is served ("http://127.0.0.1:8080"),
	// for LoginURL.
	BaseURL string
	// LoginToken is the one-time login token (default: a random one).
	LoginToken string
	// User is the identity of the session LoginURL opens, an operator
	// (default "console"): it is the name that asks, approvals and the
	// devices' records of them carry.
	User string
	// Engine runs intents and applies their fixes (nil: the console has
	// no ask box, no reports and no approvals).
	Engine Engine
	// Audit receives a record of every ask, apply request and approval
	// decision made in the console, with the session's identity (nil:
	// none).
	Audit *audit.Log
	// AuditFiles are the audit logs the audit page searches (default: the
	// file of Audit): the controller's, the console's, the devices'.
	AuditFiles []AuditFile
	// D2DReports is the directory of the device agents' signed reports
	// (ID.json), as `controller serve` keeps them: listed under the saved
	// reports, each with every signature checked against D2DCA, as
	// `netmcp report verify` does ("": none).
	D2DReports string
	// D2D, when set, is where the D2D reports are read instead of the
	// directory D2DReports: in a controller cluster, the reports every
	// replica accepted.
	D2D D2DSource
	// D2DCA is the PEM of the agents' CA (`controller serve --d2d-ca`);
	// without it every D2D report shows as not verified.
	D2DCA []byte
	// AllowRemote serves requests from other hosts than loopback.
	AllowRemote bool
	// Policy gives the identities that log in with a client certificate
	// (TLS) or a bearer token, their console roles and what each may
	// approve, and whether a second person must approve (approval.fourEyes);
	// nil: the one-time logins only.
	Policy *policy.Policy
	// Verifier checks bearer tokens (the policy's jwt section); nil
	// refuses them.
	Verifier *policy.Verifier
	// TLS, for Listen, serves HTTPS: a client certificate its ClientCAs
	// verify logs in as the policy's identity. Client certificates are
	// asked for, not required, so that bearer tokens and the loopback's
	// one-time logins still work.
	TLS *tls.Config
	// Interval is the period of the interface reads (default 500 ms); OSPF
	// and BGP are read every fourth round, LLDP every tenth.
	Interval time.Duration
	// SessionTTL is how long a login lasts (default 12 h).
	SessionTTL time.Duration
	// Pending, when set, keeps the fixes waiting for approval instead of
	// the console's memory: the consoles of a controller cluster's
	// replicas share it, so a fix queued through one is listed, approved
	// and applied through any, once.
	Pending PendingStore
	// Gates, when set, keeps the devices' own approval questions (Gate)
	// where several consoles see them: the consoles of a controller
	// cluster's replicas share it, so a question is listed through every
	// one and decided through any, once.
	Gates GateStore
}

// Console is the web console of a fleet.
type Console struct {
	opts     Options
	log      *slog.Logger
	fleet    *client.Fleet
	ownFleet bool
	auth     *auth
	tmpl     *template.Template
	static   http.Handler
	hub      *hub

	mu     sync.RWMutex
	graph  *graph
	states map[string]*devState
	view   view
	ver    uint64
	lldp   []linkSpec

	ctx     context.Context // ends with Close
	cancel  context.CancelFunc
	done    chan struct{}
	follows sync.WaitGroup // FollowChanges' streams

	// stale names the devices Refresh asked to read before the next
	// round; kick wakes the reading loop for them.
	staleMu sync.Mutex
	stale   map[string]bool
	kick    chan struct{}

	d2dRoots *x509.CertPool // the agents' CA (nil: none)

	runs      *runs        // asks and applies in progress or done
	approvals *approvals   // fixes waiting for an operator's decision
	commits   *commitWatch // confirmed commits waiting for a confirmation

	hs     *http.Server  // the server of Listen (nil: the caller serves Handler)
	served chan struct{} // closed when hs has stopped
}

// New returns the console of the fleet, already reading it.
func New(opts Options) (*Console, error) {
	if opts.Inventory == nil && opts.Topology == nil && opts.Fleet == nil {
		return nil, errors.New("console: no inventory, fleet or topology")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Interval <= 0 {
		opts.Interval = 500 * time.Millisecond
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 12 * time.Hour
	}
	if opts.User == "" {
		opts.User = "console"
	}
	tmpl, err := template.New("").Funcs(funcs).ParseFS(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	roots, err := d2dRoots(opts.D2DCA)
	if err != nil {
		return nil, err
	}
	static, _ := fs.Sub(assets, "static")
	c := &Console{opts: opts, log: opts.Logger, fleet: opts.Fleet, auth: newAuth(opts.LoginToken, opts.User, opts.SessionTTL),
		tmpl: tmpl, static: http.StripPrefix("/static/", http.FileServerFS(static)), hub: newHub(),
		states: map[string]*devState{}, done: make(chan struct{}), runs: newRuns(), approvals: newApprovals(opts.Pending, opts.Gates), commits: newCommitWatch(),
		stale: map[string]bool{}, kick: make(chan struct{}, 1)}
	c.d2dRoots = roots
	inv := opts.Inventory
	if c.fleet == nil && inv != nil {
		if c.fleet, err = client.New(inv, client.Options{}); err != nil {
			return nil, err
		}
		c.ownFleet = true
	}
	if inv == nil && c.fleet != nil {
		inv = &inventory.Inventory{}
		for _, d := range c.fleet.Devices() {
			inv.Devices = append(inv.Devices, d.Inventory())
		}
	}
	c.opts.Inventory = inv
	c.graph = buildGraph(opts.Topology, inv, nil)
	c.view = computeView(c.graph, c.states)
	ctx, cancel := context.WithCancel(context.Background())
	c.ctx, c.cancel = ctx, cancel
	if c.fleet != nil {
		c.fleet.Start()
		go c.poll(ctx)
		c.follows.Add(1)
		go func() {
			defer c.follows.Done()
			c.watchCommits(ctx)
		}()
	} else {
		close(c.done)
	}
	return c, nil
}

// LoginURL is the URL that logs a browser in, once: the one-time token
// exchanged for a session cookie. Whoever starts the console prints it.
func (c *Console) LoginURL() string {
	c.auth.mu.Lock()
	tok := c.auth.token
	c.auth.mu.Unlock()
	if tok == "" {
		return ""
	}
	return strings.TrimSuffix(c.opts.BaseURL, "/") + "/login?token=" + tok
}

// AddLogin returns a new one-time login URL that opens a session of
// user in role (RoleOperator or RoleViewer).
func (c *Console) AddLogin(user, role string) (string, error) {
	if role != RoleOperator && role != RoleViewer {
		return "", fmt.Errorf("console: role %q: want %s or %s", role, RoleOperator, RoleViewer)
	}
	if user == "" {
		return "", errors.New("console: a login needs a user name")
	}
	return strings.TrimSuffix(c.opts.BaseURL, "/") + "/login?token=" + c.auth.add(user, role), nil
}

// Close stops reading the fleet, ends the open event streams and the
// runs in progress, stops the server of Listen, and closes the fleet the
// console made.
func (c *Console) Close() error {
	c.cancel()
	<-c.done
	c.follows.Wait()
	c.runs.close()
	c.hub.close()
	if c.hs != nil {
		_ = c.hs.Close()
		<-c.served
	}
	if c.ownFleet {
		return c.fleet.Close()
	}
	return nil
}

// Refresh reads the named devices now, interfaces and routing protocols,
// rather than at the next round: what a device's change stream (gNMI
// ON_CHANGE) reports is on the map without waiting for the polling. It
// never blocks; names asked for again before the read are read once.
func (c *Console) Refresh(names ...string) {
	c.staleMu.Lock()
	for _, n := range names {
		c.stale[n] = true
	}
	c.staleMu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// takeStale returns the devices Refresh asked for, and forgets them.
func (c *Console) takeStale() []*client.Device {
	c.staleMu.Lock()
	defer c.staleMu.Unlock()
	var devs []*client.Device
	for _, n := range slices.Sorted(maps.Keys(c.stale)) {
		if d := c.fleet.Device(n); d != nil {
			devs = append(devs, d)
		}
	}
	clear(c.stale)
	return devs
}

// poll reads the fleet every Interval, and the devices Refresh names as
// soon as it names them, until ctx ends.
func (c *Console) poll(ctx context.Context) {
	defer close(c.done)
	t := time.NewTicker(c.opts.Interval)
	defer t.Stop()
	for round := 0; ; round++ {
		c.pollOnce(ctx, nil, round%4 == 0, c.opts.Topology == nil && round%10 == 0)
		if !c.untilRound(ctx, t.C) {
			return
		}
	}
}

// untilRound reads the devices Refresh names until the next round is due;
// false when ctx ended.
func (c *Console) untilRound(ctx context.Context, round <-chan time.Time) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-round:
			return true
		case <-c.kick:
			if devs := c.takeStale(); len(devs) > 0 {
				c.pollOnce(ctx, devs, true, false)
			}
		}
	}
}

// pollOnce reads devs (every device when nil) once and publishes what
// changed.
func (c *Console) pollOnce(ctx context.Context, devs []*client.Device, protocols, lldp bool) {
	var mu sync.Mutex
	got := map[string]*devState{}
	c.fleet.Each(ctx, devs, func(ctx context.Context, d *client.Device) error {
		st := read(ctx, d, protocols, lldp)
		mu.Lock()
		got[d.Name()] = st
		mu.Unlock()
		return nil
	})
	if ctx.Err() != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, st := range got {
		if old := c.states[name]; old != nil && !st.Protocols && st.Err == "" {
			st.OSPF, st.BGPDown, st.Protocols = old.OSPF, old.BGPDown, old.Protocols
		}
		if old := c.states[name]; old != nil && !lldp {
			st.LLDP = old.LLDP
		}
		c.states[name] = st
	}
	if lldp {
		var links []linkSpec
		for _, name := range slices.Sorted(maps.Keys(c.states)) {
			links = append(links, c.states[name].LLDP...)
		}
		if !slices.Equal(links, c.lldp) {
			c.lldp = links
			c.graph = buildGraph(c.opts.Topology, c.opts.Inventory, links)
			c.view = computeView(c.graph, c.states)
			c.ver++
			c.hub.publish(event{name: "layout", data: map[string]any{"v": c.ver}})
			return
		}
	}
	nv := computeView(c.graph, c.states)
	d := nv.diff(c.view)
	if d.empty() {
		return
	}
	c.view = nv
	c.ver++
	c.log.Debug("console: state changed", "version", c.ver, "nodes", len(d.Nodes), "links", len(d.Links))
	c.hub.publish(event{name: "state", data: stateMsg{V: c.ver, view: d}})
}

// stateMsg is the payload of a state event: the version and the entries
// that changed (all of them in the first event of a stream).
type stateMsg struct {
	V uint64 `json:"v"`
	view
}
