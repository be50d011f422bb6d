package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/redact"
)

// SourceStdio is the identity source of the local user of a stdio server.
const SourceStdio = "stdio"

// SecurityOptions configure Server.Secure: who the callers are, what they
// may do, what is recorded and what is masked.
type SecurityOptions struct {
	// Policy decides who may do what; nil means policy.Default() (the
	// built-in roles, no identity mapping).
	Policy *policy.Policy
	// Verifier checks OAuth 2.0 bearer tokens on HTTP (HTTPHandler); nil
	// means bearer tokens are refused.
	Verifier *policy.Verifier
	// LocalUser is the subject of the stdio identity (the OS user).
	LocalUser string
	// LocalRole is the role of HTTP peers on loopback that no certificate
	// or token authenticates and the policy does not map. "" means viewer;
	// NoRole gives them none.
	LocalRole string
	// StdioRole is the role of the stdio user (the OS user who started the
	// server) when the policy does not map it. "" means operator: that user
	// already controls the process, and every change still passes the
	// approval gate. NoRole gives it none.
	StdioRole string
	// Audit receives a record of every request and response; nil disables
	// the audit trail.
	Audit *audit.Log
	// Redactor masks secrets; share it with RedactingLogHandler. Nil means
	// a new one.
	Redactor *redact.Redactor
	// RateLimiter bounds calls per identity; nil means no limit.
	RateLimiter *policy.RateLimiter
	// SessionLimiter bounds calls in progress per session; nil means no limit.
	SessionLimiter *policy.SessionLimiter
}

// NoRole as SecurityOptions.LocalRole gives unauthenticated local callers no role.
const NoRole = "none"

// Security is the access-control layer of a Server (MCP-NET section 9,
// troubleshooting draft section 7): every request is attributed to an
// identity bound to its session, authorised by the policy, limited,
// audited, and its result masked. It is installed by Server.Secure.
type Security struct {
	s     *Server
	opts  SecurityOptions
	pol   *policy.Policy
	mask  *secretMasker
	local policy.Identity
	seq   atomic.Uint64
	// pending holds the identities of the HTTP requests being served
	// (its own lock).
	pending policy.RequestIdentities

	// The identity a session is bound to is kept with the server's
	// session state (session.identity), under s.mu.
	mu    sync.Mutex
	conns map[string]policy.Identity // TLS stream session id -> identity
}

// Secure installs the access-control layer on s and returns it. Call it
// once, after New and before any session connects. It wraps every request
// (an MCP receiving middleware, outermost, so nothing bypasses it), audits
// the server's own requests to the client (elicitation), records approval
// decisions, and learns the secrets of the device's configuration so they
// are masked wherever they appear later.
func (s *Server) Secure(opts SecurityOptions) (*Security, error) {
	pol := opts.Policy
	if pol == nil {
		pol = policy.Default()
	}
	if opts.LocalRole == "" {
		opts.LocalRole = policy.RoleViewer
	}
	if opts.StdioRole == "" {
		opts.StdioRole = policy.RoleOperator
	}
	for _, r := range []struct{ what, role string }{{"local", opts.LocalRole}, {"stdio", opts.StdioRole}} {
		if r.role != NoRole && pol.RoleScopes(r.role) == nil {
			return nil, fmt.Errorf("server: %s role %q is not a role of the policy (known: %v)", r.what, r.role, pol.RoleNames())
		}
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New(redact.Options{})
	}
	sec := &Security{s: s, opts: opts, pol: pol, mask: newSecretMasker(opts.Redactor, s.info.CLIDialect),
		conns: map[string]policy.Identity{}}
	user := opts.LocalUser
	if user == "" {
		user = "local"
	}
	sec.local = pol.Resolve(user, SourceStdio, nil)
	if len(sec.local.Roles) == 0 && opts.StdioRole != NoRole {
		sec.local.Roles = []string{opts.StdioRole}
	}
	sec.learnDeviceSecrets()
	s.opts.Approver = &auditApprover{inner: s.opts.Approver, sec: sec}
	s.mcp.AddReceivingMiddleware(sec.middleware)
	s.mcp.AddSendingMiddleware(sec.sendingMiddleware)
	return sec, nil
}

// Policy returns the policy in force.
func (sec *Security) Policy() *policy.Policy { return sec.pol }

// LocalIdentity returns the identity of the stdio user.
func (sec *Security) LocalIdentity() policy.Identity { return sec.local }

// withLocalRole gives id the local role when the policy gave it none.
func (sec *Security) withLocalRole(id policy.Identity) policy.Identity {
	if len(id.Roles) == 0 && sec.opts.LocalRole != NoRole {
		id.Roles = []string{sec.opts.LocalRole}
	}
	return id
}

// learnDeviceSecrets teaches the redactor the secrets of the device's
// configuration (running and candidate, as trees and as text, and the
// startup configuration), so that a password echoed where no syntax shows
// it (a log line, a diff) is masked. It runs when security is installed
// and after every successful change; the device's configuration is the
// only source of known secrets.
func (sec *Security) learnDeviceSecrets() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if sec.s.hasYang() {
		for _, ds := range []device.Datastore{device.Running, device.Candidate} {
			if v, err := sec.s.drv.Get(ctx, ds, "/"); err == nil {
				sec.mask.learn(v)
			}
		}
	}
	if sec.s.files != nil {
		for _, name := range []string{"running-config", "candidate-config", "startup-config"} {
			if b, err := sec.s.files.ReadFile(ctx, name); err == nil {
				sec.mask.learn(string(b))
			}
		}
	}
}

// BindConn attributes the session of a connection (the TLS stream, one
// session per connection) to id; the returned function forgets it when the
// connection ends.
func (sec *Security) BindConn(sessionID string, id policy.Identity) (release func()) {
	sec.mu.Lock()
	sec.conns[sessionID] = id
	sec.mu.Unlock()
	return func() {
		sec.mu.Lock()
		delete(sec.conns, sessionID)
		sec.mu.Unlock()
	}
}

// identityOf returns who sent req: the identity the HTTP layer
// authenticated for this request, that of a TLS stream connection, the
// identity the session was bound to, or, for a session without transport
// identity (stdio, in-process), the local user.
func (sec *Security) identityOf(req mcp.Request) policy.Identity {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		if id, ok := sec.pending.Of(ex.Header); ok {
			return id
		}
		// An HTTP message whose request has ended (a notification
		// answered with 202) or that did not pass HTTPHandler.
		if id, ok := sec.boundIdentity(ss); ok {
			return id
		}
		return sec.pol.Resolve("", policy.SourceAnonymous, nil)
	}
	if ss != nil {
		sec.mu.Lock()
		id, ok := sec.conns[ss.ID()]
		sec.mu.Unlock()
		if ok {
			return id
		}
	}
	return sec.local
}

func (sec *Security) boundIdentity(ss *mcp.ServerSession) (policy.Identity, bool) {
	if ss == nil {
		return policy.Identity{}, false
	}
	s := sec.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[ss]; ok && st.identity != nil {
		return *st.identity, true
	}
	return policy.Identity{}, false
}

// bind ties ss to id at its first request and refuses a later request of
// another identity on the same session. The binding ends with the
// session's state (Server.endSession).
func (sec *Security) bind(ss *mcp.ServerSession, id policy.Identity) error {
	if ss == nil {
		return nil
	}
	st := sec.s.session(ss)
	sec.s.mu.Lock()
	defer sec.s.mu.Unlock()
	if b := st.identity; b != nil {
		if b.String() != id.String() {
			return netproto.Errorf(netproto.CodeAccessDenied,
				"session %s belongs to %s; a request of %s on it is refused (open your own session)", sessionLabel(ss), b, id)
		}
		return nil
	}
	st.identity = &id
	return nil
}

// sessionOwner returns the identity a session id is bound to.
func (sec *Security) sessionOwner(sessionID string) (string, bool) {
	s := sec.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.byID[sessionID]; ok && st.identity != nil {
		return st.identity.String(), true
	}
	return "", false
}

func sessionLabel(ss *mcp.ServerSession) string {
	if id := ss.ID(); id != "" {
		return id
	}
	return "(stdio)"
}

// errAuditUnavailable refuses requests that could not be recorded.
var errAuditUnavailable = errors.New("the audit log cannot be written; the request was refused")
