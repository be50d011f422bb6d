package netconf

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/configstore"
	"github.com/netmcp/netmcp/device/ocview"
	"github.com/netmcp/netmcp/netproto"
	nyang "github.com/netmcp/netmcp/yang"
)

func init() { device.Register(Scheme, open) }

func open(ctx context.Context, u *url.URL, opts device.Options) (device.Driver, error) {
	cfg, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	cfg.StateDir = opts.StateDir
	return Open(ctx, cfg, nil)
}

// Driver is a device reached over NETCONF (see the package documentation).
type Driver struct {
	cfg  *Config
	log  *slog.Logger
	conn *conn

	schemaMu sync.Mutex
	schema   *schema

	// cfgMu serialises the configuration operations (Configurer).
	cfgMu   sync.Mutex
	holder  *device.Owner // holds the candidate (and the device's lock)
	lockGen uint64        // session generation the device lock was taken in
	pending *pendingCommit
	// validated: a <validate> ran since the last edit (see Commit).
	validated bool
	replay    string // the last edit-config, idempotent (see Commit)
	history   []historyEntry
	nextID    int

	closeOnce sync.Once
	closeErr  error
}

type pendingCommit struct {
	persistID string
	owner     device.Owner
	commitID  string
	deadline  time.Time
	gen       uint64 // without persist, only this session can confirm
}

type historyEntry struct {
	info   device.CommitInfo
	before []byte // running (XML content of <data>) before the commit
}

var (
	_ device.Driver     = (*Driver)(nil)
	_ device.Configurer = (*Driver)(nil)
)

// Open connects to the device described by cfg and reads its <hello>.
// log may be nil (slog.Default).
func Open(ctx context.Context, cfg *Config, log *slog.Logger) (*Driver, error) {
	if log == nil {
		log = slog.Default()
	}
	if cfg.insecureHostKey {
		log.Warn("netconf: the device's SSH host key is NOT checked (insecure-host-key=1): anyone on the path can impersonate it", "device", cfg.Address())
	}
	d := &Driver{cfg: cfg, log: log, conn: newConn(cfg, log)}
	d.conn.prefixes = func() map[string]string {
		d.schemaMu.Lock()
		defer d.schemaMu.Unlock()
		if d.schema == nil {
			return nil
		}
		return d.schema.prefixes
	}
	if err := d.conn.acquire(ctx); err != nil {
		return nil, err
	}
	err := d.conn.open(ctx)
	d.conn.release()
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Driver) hello() *helloInfo {
	d.conn.mu.Lock()
	defer d.conn.mu.Unlock()
	return d.conn.hello
}

// hasOCView reports whether openconfig-interfaces is served as a view of
// ietf-interfaces (the device has the latter, not the former).
func hasOCView(h *helloInfo) bool {
	_, oc := h.Modules[ocModule]
	_, ietf := h.Modules[ietfIfModule]
	return !oc && ietf
}

// Info describes the device from its <hello>.
func (d *Driver) Info() device.Info {
	h := d.hello()
	i := device.Info{Name: d.cfg.Name, CLIDialect: "netconf", YangModules: []string{}, Datastores: []device.Datastore{},
		NotificationStreams: []string{}, MaxBulkEdit: 1000}
	if h == nil {
		return i
	}
	for m := range h.Modules {
		i.YangModules = append(i.YangModules, m)
	}
	if hasOCView(h) {
		i.YangModules = append(i.YangModules, ocModule)
	}
	sort.Strings(i.YangModules)
	i.Datastores = append(i.Datastores, device.Running)
	if h.Candidate {
		i.Datastores = append(i.Datastores, device.Candidate)
	}
	if slices.Contains(h.Capabilities, "urn:ietf:params:netconf:capability:startup:1.0") {
		i.Datastores = append(i.Datastores, device.Startup)
	}
	i.Datastores = append(i.Datastores, device.Operational)
	if h.Notification {
		i.NotificationStreams = append(i.NotificationStreams, "NETCONF")
	}
	i.SupportsRollback = h.Candidate
	if h.Confirmed {
		i.RollbackTimeout = DefaultConfirmTimeout
	}
	if m, ok := h.Modules["yuma-system"]; ok && m.Name != "" {
		i.Vendor = "yuma123"
	}
	return i
}

// loadedSchema returns the device's compiled YANG, fetching it on first
// use. A device without get-schema gives an empty schema (conversion
// then falls back to the XML's shape, see convert.go).
func (d *Driver) loadedSchema(ctx context.Context) (*schema, error) {
	d.schemaMu.Lock()
	if s := d.schema; s != nil {
		d.schemaMu.Unlock()
		return s, nil
	}
	d.schemaMu.Unlock()
	h := d.hello()
	key := ""
	if h != nil {
		key = schemaKey(d.cfg.Address(), h)
		if c, ok := schemaCache.Load(key); ok {
			d.schemaMu.Lock()
			defer d.schemaMu.Unlock()
			d.schema = c.(*schema)
			return d.schema, nil
		}
	}
	var s *schema
	if h == nil || !h.Monitoring {
		s = &schema{problems: []string{"the device does not advertise ietf-netconf-monitoring (no get-schema)"}}
	} else {
		src, err := readSchemaSources(d.cfg.StateDir, key)
		if err != nil {
			d.log.Warn("netconf: cannot read the kept YANG sources; fetching them from the device", "device", d.cfg.Address(), "error", err)
		}
		fetched := 0
		s, err = loadSchema(ctx, h, func(ctx context.Context, name, rev string) (string, error) {
			if text, ok := src.Modules[name]; ok {
				return text, nil
			}
			body, _, err := d.conn.call(ctx, getSchemaOp(name, rev), true, 0)
			if err != nil {
				return "", err
			}
			text, err := schemaText(body)
			if err == nil {
				src.Modules[name] = text
				fetched++
			}
			return text, err
		})
		if err != nil {
			return nil, err
		}
		if fetched > 0 {
			if err := writeSchemaSources(d.cfg.StateDir, src); err != nil {
				d.log.Warn("netconf: cannot keep the YANG sources in the state directory", "device", d.cfg.Address(), "error", err)
			}
		}
	}
	if len(s.problems) > 0 {
		d.log.Debug("netconf: some YANG modules are converted without schema", "device", d.cfg.Address(), "problems", s.problems)
	}
	if key != "" && ctx.Err() == nil {
		schemaCache.Store(key, s)
	}
	d.schemaMu.Lock()
	defer d.schemaMu.Unlock()
	if d.schema == nil {
		d.schema = s
	}
	return d.schema, nil
}

// schemaCache holds compiled schemas across drivers of the same device
// (a new session of a device with the same modules and revisions reuses
// it): fetching and compiling some 25 modules costs seconds, and netconfd
// stops answering after a few rounds of them in quick succession. Across
// processes, the YANG sources kept in the state directory
// (schemacache.go) spare the device the fetches.
var schemaCache sync.Map

func schemaKey(addr string, h *helloInfo) string {
	mods := make([]string, 0, len(h.Modules))
	for n, m := range h.Modules {
		mods = append(mods, n+"@"+m.Revision+"?"+strings.Join(m.Features, ","))
	}
	sort.Strings(mods)
	return addr + "|" + strings.Join(mods, "|")
}

func (d *Driver) builder(s *schema) *xmlBuilder {
	h := d.hello()
	return &xmlBuilder{s: s, ns: func(mod string) (string, bool) {
		if h != nil {
			if m, ok := h.Modules[mod]; ok {
				return m.Namespace, true
			}
		}
		if s != nil {
			ns, ok := s.namespaces[mod]
			return ns, ok
		}
		return "", false
	}}
}

func (d *Driver) converter(s *schema) *converter {
	c := &converter{s: s, byNamespace: map[string]string{}}
	if h := d.hello(); h != nil {
		c.byNamespace = h.ByNamespace
	}
	return c
}

// datastoreXML is the NETCONF name of a datastore.
func (d *Driver) source(ds device.Datastore) (string, error) {
	h := d.hello()
	switch ds {
	case device.Running:
		return "running", nil
	case device.Candidate:
		if h != nil && h.Candidate {
			return "candidate", nil
		}
	case device.Startup:
		if slices.Contains(d.Info().Datastores, device.Startup) {
			return "startup", nil
		}
	case device.Operational:
		return "", nil
	}
	return "", netproto.Errorf(netproto.CodeConfigIncompatible, "datastore %q is not supported by this device (it has %v)", ds, d.Info().Datastores)
}

// fetch runs get (source "") or get-config of source with an optional
// filter and returns the raw content of <data>.
func (d *Driver) fetch(ctx context.Context, source, filter string) ([]byte, error) {
	var op string
	if source == "" {
		op = "<get>" + filter + "</get>"
	} else {
		op = "<get-config><source><" + source + "/></source>" + filter + "</get-config>"
	}
	body, _, err := d.conn.call(ctx, op, true, 0)
	return body, err
}

// tree converts a reply body (<data>...</data>) into RFC 7951 JSON.
func (d *Driver) tree(body []byte, s *schema) (map[string]any, error) {
	root, err := parseXML(body)
	if err != nil {
		return nil, err
	}
	for _, n := range root.children {
		if n.name.Local == "data" && (n.name.Space == nsBase || n.name.Space == "") {
			return d.converter(s).toJSON(n), nil
		}
	}
	return map[string]any{}, nil
}

// Get reads path from datastore ds with a subtree filter built from the
// path, and returns the RFC 7951 value there.
func (d *Driver) Get(ctx context.Context, ds device.Datastore, path string) (any, error) {
	p, err := nyang.ParsePath(path)
	if err != nil {
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "%v", err).WithPath(path)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	src, err := d.source(ds)
	if err != nil {
		return nil, err
	}
	h := d.hello()
	if h == nil {
		return nil, errClosed
	}
	s, err := d.loadedSchema(ctx)
	if err != nil {
		return nil, err
	}
	if len(p) > 0 {
		mod := p[0].Module
		if mod == ocModule && hasOCView(h) {
			return d.getOCView(ctx, src, p, s)
		}
		if _, ok := h.Modules[mod]; !ok {
			return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "module %s is not supported by this device (its <hello> advertises %d modules; see the capability's yangModules)", mod, len(h.Modules)).WithPath(path)
		}
	}
	filter := ""
	if len(p) > 0 {
		if filter, err = d.builder(s).filter(p); err != nil {
			return nil, err
		}
	}
	body, err := d.fetch(ctx, src, filter)
	if err != nil {
		return nil, err
	}
	tree, err := d.tree(body, s)
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		if hasOCView(h) {
			ocview.Add(tree)
		}
		return tree, nil
	}
	return getAt(tree, p, path)
}

func getAt(tree map[string]any, p nyang.Path, path string) (any, error) {
	v, err := nyang.Get(tree, p)
	if errors.Is(err, nyang.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", device.ErrNotFound, path)
	}
	if err != nil {
		return nil, netproto.Errorf(netproto.CodeYangSyntaxError, "%v", err).WithPath(path)
	}
	return v, nil
}

// Exec refuses every command: NETCONF has no CLI.
func (d *Driver) Exec(ctx context.Context, command string) (string, error) {
	return "", netproto.Errorf(netproto.CodeConfigIncompatible, "a NETCONF device has no CLI: read with network.yang.get (get/get-config) and change with YANG edits; command %q not run", command)
}

// Close ends the NETCONF session (close-session). A pending confirmed
// commit stays pending on the device (it was made with persist) and is
// rolled back there at its timeout unless confirmed from a new session
// with the same persist-id.
func (d *Driver) Close() error {
	d.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		d.closeErr = d.conn.close(ctx)
	})
	return d.closeErr
}

// ---- Configurer ----

func candidateOnly(ds string) string { return "<target><" + ds + "/></target>" }

// lockedBy reports whether another owner holds the candidate.
func (d *Driver) lockedBy(owner device.Owner) error {
	if d.holder != nil && d.holder.Session != owner.Session {
		return &configstore.LockedError{Holder: *d.holder}
	}
	return nil
}

// errLost is returned when the session that held the device lock ended.
func (d *Driver) errLost() error {
	d.holder = nil
	return netproto.Errorf(netproto.CodeUnreachable, "the NETCONF session holding the candidate lock ended: the device released the lock and discarded the uncommitted changes; make the edits again").Retryable()
}

// takeLock makes owner the holder, locking the device's candidate.
func (d *Driver) takeLock(ctx context.Context, owner device.Owner) error {
	if err := d.lockedBy(owner); err != nil {
		return err
	}
	if d.holder != nil {
		return nil
	}
	h := d.hello()
	if h == nil || !h.Candidate {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "the device has no candidate datastore (:candidate capability); netmcp edits only through the candidate")
	}
	_, gen, err := d.conn.call(ctx, "<lock>"+candidateOnly("candidate")+"</lock>", false, 0)
	if err != nil {
		var ne *netproto.Error
		if errors.As(err, &ne) && ne.Code == netproto.CodeAccessDenied {
			c := *ne
			c.Detail = "the device's candidate is locked by another NETCONF session: " + c.Detail
			return &c
		}
		return err
	}
	o := owner
	d.holder, d.lockGen = &o, gen
	return nil
}

// callLocked sends op in the session that holds the lock.
func (d *Driver) callLocked(ctx context.Context, op string) ([]byte, error) {
	body, _, err := d.conn.call(ctx, op, false, d.lockGen)
	if errors.Is(err, errSessionLost) {
		return nil, d.errLost()
	}
	return body, err
}

// unlock releases the device lock and the holder.
func (d *Driver) unlock(ctx context.Context) error {
	d.validated, d.replay = false, ""
	if d.holder == nil {
		return nil
	}
	_, err := d.callLocked(ctx, "<unlock>"+candidateOnly("candidate")+"</unlock>")
	d.holder = nil
	return err
}

// Edit applies edits to the candidate in one edit-config (with
// rollback-on-error where the device has it), under the candidate lock.
func (d *Driver) Edit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	if len(edits) == 0 {
		return netproto.Errorf(netproto.CodeYangSyntaxError, "no edits")
	}
	s, err := d.loadedSchema(ctx)
	if err != nil {
		return err
	}
	h := d.hello()
	b := d.builder(s)
	b.b.WriteString("<edit-config>" + candidateOnly("candidate") + "<default-operation>merge</default-operation>")
	if h != nil && h.RollbackOnErr {
		b.b.WriteString("<error-option>rollback-on-error</error-option>")
	}
	b.b.WriteString(`<config xmlns="` + nsBase + `">`)
	for _, e := range edits {
		p, err := nyang.ParsePath(e.Path)
		if err != nil {
			return netproto.Errorf(netproto.CodeYangSyntaxError, "%v", err).WithPath(e.Path)
		}
		if len(p) > 0 && p[0].Module == ocModule && h != nil && hasOCView(h) {
			return netproto.Errorf(netproto.CodeConfigIncompatible, "openconfig-interfaces is a read-only view of ietf-interfaces on this device: edit /ietf-interfaces:interfaces instead").WithPath(e.Path)
		}
		op := string(e.Operation)
		if op == "" {
			op = string(device.OpMerge)
		}
		switch device.EditOperation(op) {
		case device.OpMerge, device.OpReplace, device.OpCreate, device.OpDelete, device.OpRemove:
		default:
			return netproto.Errorf(netproto.CodeYangSyntaxError, "unknown edit operation %q (want merge, replace, create, delete or remove)", op).WithPath(e.Path)
		}
		if err := b.edit(p, op, e.Value); err != nil {
			var ne *netproto.Error
			if errors.As(err, &ne) && ne.Path == "" {
				ne.Path = e.Path
			}
			return err
		}
	}
	b.b.WriteString("</config></edit-config>")
	replay, err := d.idempotentEdit(s, edits)
	if err != nil {
		return err
	}
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.takeLock(ctx, owner); err != nil {
		return err
	}
	_, err = d.callLocked(ctx, b.b.String())
	if err == nil {
		d.validated = false
		d.replay = replay
	}
	return err
}

// idempotentEdit is the edit-config of edits with create sent as merge
// and delete as remove: sending it again changes nothing.
func (d *Driver) idempotentEdit(s *schema, edits []device.Edit) (string, error) {
	b := d.builder(s)
	b.b.WriteString("<edit-config>" + candidateOnly("candidate") + "<default-operation>merge</default-operation><config xmlns=\"" + nsBase + "\">")
	for _, e := range edits {
		p, err := nyang.ParsePath(e.Path)
		if err != nil {
			return "", err
		}
		op := e.Operation
		switch op {
		case "", device.OpCreate:
			op = device.OpMerge
		case device.OpDelete:
			op = device.OpRemove
		}
		if err := b.edit(p, string(op), e.Value); err != nil {
			return "", err
		}
	}
	b.b.WriteString("</config></edit-config>")
	return b.b.String(), nil
}

// Configure refuses CLI lines: NETCONF takes YANG edits.
func (d *Driver) Configure(ctx context.Context, owner device.Owner, lines []string) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, "a NETCONF device takes YANG edits (network.config.edit), not CLI configuration lines")
}

// configs returns running and candidate as RFC 7951 trees.
func (d *Driver) configs(ctx context.Context) (running, candidate map[string]any, runningXML []byte, err error) {
	s, err := d.loadedSchema(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	rb, err := d.fetch(ctx, "running", "")
	if err != nil {
		return nil, nil, nil, err
	}
	cb, err := d.fetch(ctx, "candidate", "")
	if err != nil {
		return nil, nil, nil, err
	}
	if running, err = d.tree(rb, s); err != nil {
		return nil, nil, nil, err
	}
	if candidate, err = d.tree(cb, s); err != nil {
		return nil, nil, nil, err
	}
	return running, candidate, rb, nil
}

func (d *Driver) diff(ctx context.Context) (device.Diff, []byte, error) {
	r, c, rx, err := d.configs(ctx)
	if err != nil {
		return device.Diff{}, nil, err
	}
	out := device.Diff{Changes: []device.Change{}}
	for _, ch := range nyang.Diff(r, c, nil) {
		out.Changes = append(out.Changes, device.Change{Op: ch.Op, Path: ch.Path, Old: ch.Old, New: ch.New})
	}
	if len(out.Changes) > 0 {
		out.Unified = nyang.UnifiedDiff(r, c, "running", "candidate")
	}
	return out, rx, nil
}

// Diff compares the candidate (get-config candidate) with running.
func (d *Driver) Diff(ctx context.Context, owner device.Owner) (device.Diff, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.lockedBy(owner); err != nil {
		return device.Diff{}, err
	}
	out, _, err := d.diff(ctx)
	return out, err
}

// Validate runs <validate> on the candidate.
func (d *Driver) Validate(ctx context.Context, owner device.Owner) error {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.lockedBy(owner); err != nil {
		return err
	}
	h := d.hello()
	if h == nil || !h.Validate {
		return netproto.Errorf(netproto.CodeConfigIncompatible, "the device has no :validate capability; the commit validates")
	}
	op := "<validate><source><candidate/></source></validate>"
	if isYuma(h) {
		// netconfd forgets that the candidate differs from running after
		// <validate> of the candidate, and the next <commit> silently does
		// nothing; validating a copy of the candidate given inline
		// (:validate:1.1) checks the same content and leaves the
		// candidate's state alone.
		body, err := d.fetch(ctx, "candidate", "")
		if err != nil {
			return err
		}
		op = "<validate><source><config>" + string(innerXML(body)) + "</config></source></validate>"
	}
	if d.holder != nil {
		_, err := d.callLocked(ctx, op)
		if err == nil {
			d.validated = true
		}
		return err
	}
	_, _, err := d.conn.call(ctx, op, true, 0)
	return err
}

func (d *Driver) newCommitID() string {
	d.nextID++
	return strconv.Itoa(d.nextID)
}

// Commit commits the candidate: plain, or confirmed (confirmed,
// confirm-timeout and, with :confirmed-commit:1.1, persist, so that the
// device rolls back at the timeout even if netmcp is gone).
func (d *Driver) Commit(ctx context.Context, owner device.Owner, opts device.CommitOptions) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.lockedBy(owner); err != nil {
		return device.CommitResult{}, err
	}
	if d.holder == nil {
		return device.CommitResult{Status: device.StatusNoChanges}, nil
	}
	diff, before, err := d.diff(ctx)
	if err != nil {
		return device.CommitResult{}, err
	}
	if opts.DryRun {
		if h := d.hello(); h != nil && h.Validate {
			if _, err := d.callLocked(ctx, "<validate><source><candidate/></source></validate>"); err != nil {
				return device.CommitResult{}, err
			}
		}
		return device.CommitResult{Status: device.StatusDryRun, Diff: &diff}, nil
	}
	if len(diff.Changes) == 0 && opts.Confirmed == 0 {
		err := d.unlock(ctx)
		return device.CommitResult{Status: device.StatusNoChanges}, err
	}
	h := d.hello()
	op := "<commit/>"
	var pend *pendingCommit
	if opts.Confirmed > 0 {
		if h == nil || !h.Confirmed {
			return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackNotSupported, "the device has no :confirmed-commit capability")
		}
		pend = &pendingCommit{owner: owner, deadline: time.Now().Add(time.Duration(opts.Confirmed) * time.Second), gen: d.lockGen}
		op = "<commit><confirmed/><confirm-timeout>" + strconv.Itoa(opts.Confirmed) + "</confirm-timeout>"
		if d.persist(h) {
			pend.persistID = newPersistID()
			op += "<persist>" + pend.persistID + "</persist>"
		}
		op += "</commit>"
	}
	if d.validated {
		// netconfd forgets that the candidate differs from running after a
		// <validate>, and the next <commit> silently does nothing. Sending
		// the last edit again, in its idempotent form (create as merge,
		// delete as remove), marks the candidate changed without changing
		// it. (Writing the whole candidate back with replace would do too,
		// but netconfd 2.13 crashes on a later session after replacing
		// ietf-ip containers that way.)
		if d.replay != "" {
			if _, err := d.callLocked(ctx, d.replay); err != nil {
				return device.CommitResult{}, err
			}
		}
	}
	if _, err := d.callLocked(ctx, op); err != nil {
		return device.CommitResult{}, err
	}
	d.validated = false
	// Check that running is now the candidate: a device that accepts a
	// commit and does not apply it must not be reported as committed.
	if len(diff.Changes) > 0 {
		if after, _, err := d.diff(ctx); err == nil && len(after.Changes) > 0 {
			return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed, "the device answered <ok/> to <commit> but running still differs from the candidate (%d changes)", len(after.Changes))
		}
	}
	id := d.newCommitID()
	info := device.CommitInfo{ID: id, Time: time.Now().UTC(), User: owner.User, Session: owner.Session, Comment: opts.Comment,
		Status: device.StatusCommitted, Confirmed: opts.Confirmed}
	d.history = append(d.history, historyEntry{info: info, before: before})
	res := device.CommitResult{Status: device.StatusCommitted, CommitID: id, Diff: &diff}
	if pend != nil {
		pend.commitID = id
		d.pending = pend
		res.RollbackTimeout = opts.Confirmed
		res.Deadline = pend.deadline
	}
	if err := d.unlock(ctx); err != nil {
		return res, err
	}
	return res, nil
}

// persist reports whether confirmed commits carry <persist>: when the
// device has :confirmed-commit:1.1, unless ?persist=0, and not on
// netconfd (yuma123) unless ?persist=1: netconfd 2.13 crashes (glibc
// munmap_chunk abort) when a persistent confirmed commit times out after
// the session that made it has ended, which is exactly the case persist
// is for. Without persist, netconfd rolls back when the session ends.
func (d *Driver) persist(h *helloInfo) bool {
	if !h.Persist || d.cfg.Persist == "0" {
		return false
	}
	if d.cfg.Persist == "1" {
		return true
	}
	return !isYuma(h)
}

// isYuma reports whether the device is netconfd (yuma123), whose quirks
// the driver works around (see Validate and persist).
func isYuma(h *helloInfo) bool {
	_, yuma := h.Modules["yuma123-system"]
	return yuma
}

func newPersistID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "netmcp-" + hex.EncodeToString(b)
}

// takePending returns the pending confirmed commit, or the error of
// nothing pending / already rolled back by the device.
func (d *Driver) takePending(what string) (*pendingCommit, error) {
	p := d.pending
	if p == nil {
		return nil, netproto.Errorf(netproto.CodeConfigIncompatible, "%s: no confirmed commit is pending", what)
	}
	if time.Now().After(p.deadline) {
		d.pending = nil
		d.setStatus(p.commitID, device.StatusRolledBack)
		return nil, netproto.Errorf(netproto.CodeConfirmedCommitTimeout, "%s: the confirmed commit %s timed out at %s and the device rolled it back", what, p.commitID, p.deadline.Format(time.RFC3339))
	}
	return p, nil
}

func (d *Driver) setStatus(id, status string) {
	for i := range d.history {
		if d.history[i].info.ID == id {
			d.history[i].info.Status = status
		}
	}
}

// Confirm confirms the pending confirmed commit (commit with persist-id).
func (d *Driver) Confirm(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	p, err := d.takePending("confirm")
	if err != nil {
		return device.CommitResult{}, err
	}
	op := "<commit/>"
	if p.persistID != "" {
		op = "<commit><persist-id>" + p.persistID + "</persist-id></commit>"
	}
	if _, _, err := d.conn.call(ctx, op, false, p.gen*boolU(p.persistID == "")); err != nil {
		if errors.Is(err, errSessionLost) {
			d.pending = nil
			d.setStatus(p.commitID, device.StatusRolledBack)
			return device.CommitResult{}, netproto.Errorf(netproto.CodeConfirmedCommitTimeout, "the session of the confirmed commit ended, so the device rolled it back")
		}
		return device.CommitResult{}, err
	}
	d.pending = nil
	d.setStatus(p.commitID, device.StatusConfirmed)
	return device.CommitResult{Status: device.StatusConfirmed, CommitID: p.commitID}, nil
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// CancelCommit rolls the pending confirmed commit back (cancel-commit).
func (d *Driver) CancelCommit(ctx context.Context, owner device.Owner) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	p, err := d.takePending("cancel-commit")
	if err != nil {
		return device.CommitResult{}, err
	}
	op := "<cancel-commit/>"
	if p.persistID != "" {
		op = "<cancel-commit><persist-id>" + p.persistID + "</persist-id></cancel-commit>"
	}
	if _, _, err := d.conn.call(ctx, op, false, p.gen*boolU(p.persistID == "")); err != nil {
		return device.CommitResult{}, err
	}
	d.pending = nil
	d.setStatus(p.commitID, device.StatusCancelled)
	return device.CommitResult{Status: device.StatusCancelled, CommitID: p.commitID}, nil
}

// Discard resets the candidate (discard-changes) and releases the lock.
func (d *Driver) Discard(ctx context.Context, owner device.Owner) error {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.lockedBy(owner); err != nil {
		return err
	}
	if d.holder == nil {
		return nil
	}
	if _, err := d.callLocked(ctx, "<discard-changes/>"); err != nil {
		return err
	}
	return d.unlock(ctx)
}

// Rollback makes running the configuration before commit id ("" = the
// last commit) with an edit-config replace of the whole candidate and a
// commit.
func (d *Driver) Rollback(ctx context.Context, owner device.Owner, id string) (device.CommitResult, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if err := d.lockedBy(owner); err != nil {
		return device.CommitResult{}, err
	}
	var target *historyEntry
	for i := len(d.history) - 1; i >= 0; i-- {
		if id == "" || d.history[i].info.ID == id {
			target = &d.history[i]
			break
		}
	}
	if target == nil {
		if id == "" {
			return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed, "no commit made through this netmcp session to roll back")
		}
		return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed, "unknown commit id %q", id)
	}
	inner := innerXML(target.before)
	if err := d.takeLock(ctx, owner); err != nil {
		return device.CommitResult{}, err
	}
	op := "<edit-config>" + candidateOnly("candidate") + "<default-operation>replace</default-operation><config xmlns=\"" + nsBase + "\">" + string(inner) + "</config></edit-config>"
	if _, err := d.callLocked(ctx, op); err != nil {
		d.callLocked(ctx, "<discard-changes/>")
		d.unlock(ctx)
		return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed, "rollback to before commit %s: %v", target.info.ID, err)
	}
	if _, err := d.callLocked(ctx, "<commit/>"); err != nil {
		d.callLocked(ctx, "<discard-changes/>")
		d.unlock(ctx)
		return device.CommitResult{}, netproto.Errorf(netproto.CodeRollbackFailed, "rollback to before commit %s: %v", target.info.ID, err)
	}
	nid := d.newCommitID()
	d.history = append(d.history, historyEntry{info: device.CommitInfo{ID: nid, Time: time.Now().UTC(), User: owner.User, Session: owner.Session,
		Comment: "rollback to before commit " + target.info.ID, Status: device.StatusRolledBack}})
	err := d.unlock(ctx)
	return device.CommitResult{Status: device.StatusRolledBack, CommitID: nid}, err
}

// innerXML returns the content of the first element of x (the <data> of
// a get-config reply).
func innerXML(x []byte) []byte {
	start := -1
	for i := 0; i < len(x); i++ {
		if x[i] == '>' {
			start = i + 1
			break
		}
	}
	end := -1
	for i := len(x) - 1; i >= 0; i-- {
		if x[i] == '<' {
			end = i
			break
		}
	}
	if start < 0 || end < start {
		return nil
	}
	if x[start-2] == '/' { // <data/>
		return nil
	}
	return x[start:end]
}

// History lists the commits made through this driver, newest first.
func (d *Driver) History(ctx context.Context) ([]device.CommitInfo, error) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	out := make([]device.CommitInfo, 0, len(d.history))
	for i := len(d.history) - 1; i >= 0; i-- {
		out = append(out, d.history[i].info)
	}
	return out, nil
}

// Release discards the owner's uncommitted changes and drops its lock.
func (d *Driver) Release(owner device.Owner) {
	d.cfgMu.Lock()
	defer d.cfgMu.Unlock()
	if d.holder == nil || d.holder.Session != owner.Session {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.Timeout)
	defer cancel()
	d.callLocked(ctx, "<discard-changes/>")
	d.unlock(ctx)
}
