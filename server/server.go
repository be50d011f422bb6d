package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/transport"
)

// DefaultPageSize is the number of list entries (interfaces, routes) in one
// page of a paginated resource.
const DefaultPageSize = 100

// Default bounds of the sessions of a Server (Options.MaxSessions and
// Options.MaxSessionsPerIdentity).
const (
	DefaultMaxSessions            = 1024
	DefaultMaxSessionsPerIdentity = 256
)

// Options configure New.
type Options struct {
	// Name and Version are the serverInfo of the initialize result
	// (default "netmcp" and the driver's software version).
	Name, Version string
	// CompatNames serves tools as network_cli_exec etc. instead of the
	// draft's dotted names, for hosts that only accept ^[a-zA-Z0-9_-]{1,64}$.
	CompatNames bool
	// Logger receives server logs (never secrets); nil discards them.
	Logger *slog.Logger
	// PageSize is the page size of paginated resources (default DefaultPageSize).
	PageSize int
	// ReadOnly refuses every state-changing call with -32083.
	ReadOnly bool
	// Approver approves state-changing calls. Nil means
	// NewMCPApprover(approval.New(approval.Options{})): every write needs
	// approval (elicitation, confirmation token or signed consent).
	Approver Approver
	// User names the user behind every session (e.g. the OS user of a
	// stdio server); it is recorded with commits and lock holders.
	User string
	// MaxSessions bounds the sessions the server keeps at once (default
	// DefaultMaxSessions); an initialize over it is refused with a
	// retryable -32083 and leaves no session behind.
	MaxSessions int
	// MaxSessionsPerIdentity bounds the sessions of one caller identity
	// (default DefaultMaxSessionsPerIdentity), so that one caller cannot
	// take every session.
	MaxSessionsPerIdentity int
	// DiagLimiter bounds the diagnostics (ping, traceroute, ...) running
	// at once, overall and per session. Nil means DefaultDiagMax and
	// DefaultDiagPerSession.
	DiagLimiter *diag.Limiter
	// StateDir is the device's state directory, where the handles of
	// protocol 2026-07-28 calls over HTTP are kept (in StateDir/handles),
	// so that a restarted server, or another process with the same
	// directory, continues them. "" keeps them in memory.
	StateDir string
	// HandleTTL is how long a handle lives without use (default
	// DefaultHandleTTL).
	HandleTTL time.Duration
	// IdempotencyTTL is how long the result of a write sent with an
	// idempotency key is remembered (default DefaultIdempotencyTTL, never
	// less than the rollback window).
	IdempotencyTTL time.Duration
	// TaskTTL is how long a finished task of the Tasks extension is kept
	// for tasks/get (default DefaultTaskTTL).
	TaskTTL time.Duration
}

// Server is one device served over MCP.
type Server struct {
	drv   device.Driver
	cfg   device.Configurer // nil when the driver cannot change configuration
	files device.FileStore  // nil without configuration files
	tel   device.Telemetry  // nil without telemetry
	diag  device.Diagnoser  // nil without diagnostics
	info  device.Info
	opts  Options
	log   *slog.Logger
	mcp   *mcp.Server

	cursorKey []byte

	mu            sync.Mutex
	sessions      map[*mcp.ServerSession]*session
	byID          map[string]*session // sessions that have an MCP session id
	subs          map[string]int      // subscribed URI -> number of subscribers
	runbooks      *contextStore[runbook]
	bgpRunbooks   *contextStore[bgpRunbook] // network.troubleshoot.bgp-down (runbook_bgp.go)
	promptSchemas map[string][]argSchema
	unserved      map[string]bool // tools the device cannot serve at all (listed with available false)
	editSeq       int
	handleTag     string         // random, per server: handles of two runs differ
	handleSeq     int            // sessions seen, for their handles
	live          int            // initialized sessions (session.admitted)
	liveBy        map[string]int // initialized sessions per identity
	uploads       uploads        // chunked network.file.push in progress
	localMu       sync.Mutex     // candidateMu of calls without a session
	handles       *handleStore   // state of stateless calls (handles.go)
	idem          *idemStore     // results of keyed writes (idempotency.go)
	tasks         *Tasks         // the Tasks extension (tasks.go)

	unsubscribe func()
}

// session is what the server keeps per MCP session.
type session struct {
	owner device.Owner
	// identity is the caller the access-control layer bound the session
	// to at its first request (Security.bind); nil before, or without it.
	identity *policy.Identity
	// candMu orders the session's candidate changes and commits (see
	// Server.candidateMu).
	candMu sync.Mutex
	// admitted: the session's initialize passed the session bounds and
	// counts against them, for identity who.
	admitted bool
	who      string
}

// New builds the MCP server of a device. The driver's optional interfaces
// decide which tools are available and which resources exist.
func New(drv device.Driver, opts Options) (*Server, error) {
	if drv == nil {
		return nil, errors.New("server: nil driver")
	}
	if opts.PageSize < 0 {
		return nil, fmt.Errorf("server: page size %d is negative", opts.PageSize)
	}
	if opts.PageSize == 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerIdentity <= 0 {
		opts.MaxSessionsPerIdentity = DefaultMaxSessionsPerIdentity
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Approver == nil {
		opts.Approver = NewMCPApprover(approval.New(approval.Options{}), log)
	}
	info := drv.Info()
	if opts.Name == "" {
		opts.Name = "netmcp"
	}
	if opts.Version == "" {
		opts.Version = info.SoftwareVersion
	}
	if opts.Version == "" {
		opts.Version = "0"
	}
	s := &Server{drv: drv, info: info, opts: opts, log: log,
		sessions: map[*mcp.ServerSession]*session{}, byID: map[string]*session{}, subs: map[string]int{}, liveBy: map[string]int{}, unserved: map[string]bool{},
		runbooks: newContextStore[runbook]("ctx-"), bgpRunbooks: newContextStore[bgpRunbook]("ctx-bgp-")}
	s.cfg, _ = drv.(device.Configurer)
	s.files, _ = drv.(device.FileStore)
	s.tel, _ = drv.(device.Telemetry)
	s.diag, _ = drv.(device.Diagnoser)
	s.handleTag = strings.ToLower(rand.Text()[:6])
	s.handles = newHandleStore(opts.StateDir, opts.HandleTTL)
	s.idem = newIdemStore(opts.StateDir)
	s.tasks = NewTasks(opts.TaskTTL, s.callIdentity, log)
	if opts.StateDir != "" {
		st, err := OpenTaskDir(opts.StateDir)
		if err != nil {
			return nil, fmt.Errorf("server: tasks in the state directory: %w", err)
		}
		s.tasks.SetStore(st)
	}
	s.cursorKey = make([]byte, 32)
	if _, err := rand.Read(s.cursorKey); err != nil {
		return nil, fmt.Errorf("server: cursor key: %w", err)
	}

	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Title: info.Name, Version: opts.Version}, &mcp.ServerOptions{
		Logger:             log,
		Instructions:       instructions(info),
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribeHandler,
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 MCP logging, deprecated since 2026-07-28, carries the drafts' live output
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: false},
			Prompts:   &mcp.PromptCapabilities{ListChanged: false},
			Resources: &mcp.ResourceCapabilities{Subscribe: true, ListChanged: false},
		},
	})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	if err := s.addDiagTools(); err != nil {
		return nil, err
	}
	if err := s.addCaptureTools(); err != nil {
		return nil, err
	}
	s.addResources()
	s.addConfigResources()
	s.addHandleResources()
	s.addPrompts()
	if err := s.addCustomMethods(); err != nil {
		return nil, err
	}
	if err := s.tasks.addMethods(s.mcp); err != nil {
		return nil, err
	}
	// Middleware order: the first listed runs first (outermost).
	s.mcp.AddReceivingMiddleware(s.sessionMiddleware, s.wireMiddleware)
	Install(s.mcp, Capability(info))
	if s.tel != nil {
		s.unsubscribe = s.tel.Subscribe(s.onEvent)
	}
	return s, nil
}

// MCP returns the MCP server, to be served by package transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close stops event delivery. It does not close the driver.
func (s *Server) Close() error {
	if s.unsubscribe != nil {
		s.unsubscribe()
	}
	s.tasks.Close()
	return nil
}

func instructions(info device.Info) string {
	return fmt.Sprintf("MCP-NET server for device %s (%s %s, CLI dialect %s). "+
		"Read network:/// resources for state; change configuration with network.yang.edit or "+
		"network.cli.configure on the candidate, then network.commit (prefer confirmed commits).",
		info.Name, info.Vendor, info.Platform, info.CLIDialect)
}

// sessionMiddleware registers each new session: it gets a device owner
// identity, and when it ends its candidate locks are released. A session's
// first request (initialize, or any request of a per-request protocol
// version) must fit the session bounds (Options.MaxSessions,
// MaxSessionsPerIdentity); a session refused, or whose initialize fails,
// leaves no session state behind.
func (s *Server) sessionMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		who := ""
		if id, ok := policy.IdentityFrom(ctx); ok {
			who = id.String()
		}
		if _, ok := req.GetParams().(*WriteParams); ok && transport.Stateless(ss) {
			return nil, statelessWrite(req)
		}
		fresh, err := s.admitSession(ss, who)
		if err != nil {
			s.endSession(ss)
			return nil, RPCError(err)
		}
		res, err := next(ctx, method, req)
		if err != nil && fresh && method == "initialize" {
			s.endSession(ss)
		}
		return res, err
	}
}

// statelessWrite is the error of resources/write on a session that ends
// with the call (protocol 2026-07-28 over HTTP): the candidate it writes
// would be released with the session before the client's next request
// could commit it; the tools carry the candidate under a handle instead.
func statelessWrite(req mcp.Request) error {
	return RPCError(netproto.Errorf(netproto.CodeConfigIncompatible,
		"resources/write is not served on protocol 2026-07-28 over HTTP: the candidate it writes belongs to no session and "+
			"would be lost before a commit; change the candidate with network.yang.edit or network.cli.configure, which return "+
			"a \"handle\" that network.commit takes, or write over a 2025-11-25 session (initialize, then Mcp-Session-Id) or stdio"))
}

// admitSession counts ss against the session bounds at its first request.
// It reports whether ss was admitted now (false for any later request), or
// refuses it with a retryable -32083.
func (s *Server) admitSession(ss *mcp.ServerSession, who string) (fresh bool, err error) {
	st := s.session(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.admitted {
		return false, nil
	}
	if s.live >= s.opts.MaxSessions {
		s.log.Warn("session refused: server full", "sessions", s.live, "identity", who)
		return false, netproto.Errorf(netproto.CodeAccessDenied,
			"the server has %d sessions open, its limit; close a session (HTTP: DELETE it) or retry when idle sessions expire", s.live).Retryable()
	}
	if who != "" && s.liveBy[who] >= s.opts.MaxSessionsPerIdentity {
		s.log.Warn("session refused: identity at its limit", "identity", who, "sessions", s.liveBy[who])
		return false, netproto.Errorf(netproto.CodeAccessDenied,
			"%s has %d sessions open, the limit per identity; close one of them (HTTP: DELETE it) or retry when idle sessions expire", who, s.liveBy[who]).Retryable()
	}
	st.admitted, st.who = true, who
	s.live++
	if who != "" {
		s.liveBy[who]++
	}
	return true, nil
}

// Sessions returns the number of sessions the server keeps state for.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// session returns the state of ss, creating it on first use.
func (s *Server) session(ss *mcp.ServerSession) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[ss]; ok {
		return st
	}
	// The device knows a session by a handle, never by its MCP session id:
	// the handle shows up in lock errors and the commit history, where
	// other callers read it, and a session id is a bearer secret (over
	// HTTP whoever presents it acts as that session).
	s.handleSeq++
	st := &session{owner: device.Owner{Session: fmt.Sprintf("%s-%d", s.handleTag, s.handleSeq), User: s.opts.User}}
	if id := ss.ID(); id != "" {
		s.byID[id] = st
	}
	s.sessions[ss] = st
	go func() {
		_ = ss.Wait()
		s.endSession(ss)
	}()
	return st
}

// endSession forgets a session and releases its locks on the device.
func (s *Server) endSession(ss *mcp.ServerSession) {
	s.mu.Lock()
	st, ok := s.sessions[ss]
	delete(s.sessions, ss)
	if ok && s.byID[ss.ID()] == st {
		delete(s.byID, ss.ID())
	}
	if ok && st.admitted {
		st.admitted = false
		s.live--
		if st.who != "" {
			if s.liveBy[st.who]--; s.liveBy[st.who] <= 0 {
				delete(s.liveBy, st.who)
			}
		}
	}
	var owner device.Owner
	if ok {
		owner = st.deviceOwner()
	}
	s.mu.Unlock()
	if ok && s.cfg != nil {
		s.cfg.Release(owner)
		s.log.Info("session ended, locks released", "session", owner.Session)
	}
}

// deviceOwner is who the session is on the device: its handle and the
// identity it is bound to (the caller, e.g. "jwt:alice"), or Options.User
// before the binding or without an access-control layer. The binding never
// changes, so the owner is the same for every call of the session. Called
// with s.mu held.
func (st *session) deviceOwner() device.Owner {
	o := st.owner
	if st.identity != nil {
		o.User = st.identity.String()
	}
	return o
}

// owner returns the device owner of the session ss: a handle (not the
// session id) and the caller's identity.
func (s *Server) owner(ss *mcp.ServerSession) device.Owner {
	if ss == nil {
		return device.Owner{Session: "local", User: s.opts.User}
	}
	st := s.session(ss)
	s.mu.Lock()
	defer s.mu.Unlock()
	return st.deviceOwner()
}

// hasYang reports whether the device serves YANG data.
func (s *Server) hasYang() bool { return len(s.info.YangModules) > 0 }

// toolName returns the name under which a draft tool is served.
func (s *Server) toolName(name string) string {
	if s.opts.CompatNames {
		return netproto.CompatName(name)
	}
	return name
}
