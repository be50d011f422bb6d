package netconf

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	nc "github.com/nemith/netconf"
	ncssh "github.com/nemith/netconf/transport/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/netmcp/netmcp/netproto"
)

// Base NETCONF namespace and capability URIs.
const (
	nsBase = "urn:ietf:params:xml:ns:netconf:base:1.0"

	capCandidate       = "urn:ietf:params:netconf:capability:candidate:1.0"
	capConfirmed10     = "urn:ietf:params:netconf:capability:confirmed-commit:1.0"
	capConfirmed11     = "urn:ietf:params:netconf:capability:confirmed-commit:1.1"
	capRollbackOnError = "urn:ietf:params:netconf:capability:rollback-on-error:1.0"
	capValidate10      = "urn:ietf:params:netconf:capability:validate:1.0"
	capValidate11      = "urn:ietf:params:netconf:capability:validate:1.1"
	capBase11          = "urn:ietf:params:netconf:base:1.1"
	capMonitoring      = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"
	capNotification    = "urn:ietf:params:netconf:capability:notification:1.0"
)

// conn is the one NETCONF session of a device. Every RPC takes the session
// in turn (sem), so concurrent callers never interleave on the device; a
// session that fails is dropped and the next call opens a new one.
type conn struct {
	cfg *Config
	log *slog.Logger

	sem chan struct{} // one holder at a time; ctx-aware, unlike a mutex

	// Guarded by sem.
	sess *nc.Session
	tr   *ncssh.Transport
	bt   *boundedTransport // tr with every message bounded, what sess reads
	gen  uint64            // incremented for every new session
	// answered is true once the session has answered an RPC: until then
	// netconfd may have dropped what it read together with our <hello>
	// (see sendFirst).
	answered bool
	yuma     bool // the session is to netconfd (yuma123)

	// prefixes, set by the driver, maps YANG prefixes to module names
	// (for error-path); it may return nil.
	prefixes func() map[string]string

	mu     sync.Mutex // guards hello and closed
	hello  *helloInfo
	closed bool
}

func newConn(cfg *Config, log *slog.Logger) *conn {
	return &conn{cfg: cfg, log: log, sem: make(chan struct{}, 1)}
}

// errClosed is returned by calls after Close.
var errClosed = errors.New("netconf: driver is closed")

// acquire takes the session slot, or fails when ctx ends first.
func (c *conn) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *conn) release() { <-c.sem }

// open dials the device and exchanges <hello>, bounded by ctx and the
// configured timeout. Called with the slot held.
func (c *conn) open(ctx context.Context) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return errClosed
	}
	if c.sess != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	tr, err := ncssh.Dial(ctx, "tcp", c.cfg.Address(), c.cfg.sshConfig())
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.Canceled) {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return dialError(c.cfg, err)
	}
	// nc.Open has no deadline of its own: close the transport if the
	// device does not say <hello> in time.
	type opened struct {
		s   *nc.Session
		err error
	}
	done := make(chan opened, 1)
	bt := newBoundedTransport(tr, c.cfg.MaxReplyBytes, c.cfg.MaxReplyDepth)
	go func() {
		s, err := nc.Open(bt)
		done <- opened{s, err}
	}()
	var o opened
	select {
	case o = <-done:
	case <-ctx.Done():
		tr.Close()
		<-done
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		return netproto.Errorf(netproto.CodeTimeout, "%s: no NETCONF <hello> within %s (is the netconf SSH subsystem enabled?)", c.cfg.Address(), c.cfg.Timeout).Retryable()
	}
	if o.err != nil {
		tr.Close()
		if e, ok := errLimit(bt, o.err); ok {
			return netproto.Errorf(netproto.CodeUnreachable, "%s: <hello>: %v", c.cfg.Address(), e)
		}
		return netproto.Errorf(netproto.CodeUnreachable, "%s: NETCONF session: %v", c.cfg.Address(), o.err).Retryable()
	}
	h := parseHello(o.s.ServerCapabilities())
	h.SessionID = o.s.SessionID()
	c.sess, c.tr, c.bt = o.s, tr, bt
	c.gen++
	c.answered, c.yuma = false, isYuma(h)
	c.mu.Lock()
	c.hello = h
	c.mu.Unlock()
	c.log.Debug("netconf session opened", "device", c.cfg.Address(), "session-id", h.SessionID, "base11", h.Base11)
	return nil
}

// syncOp is the read sendFirst sends ahead of a write that would be a
// session's first RPC: <get-schema> of ietf-netconf-monitoring (the module
// that defines it, so a device with get-schema has it). The driver sends
// no RPC of its own otherwise: netconfd 2.13, after it rolled back a killed
// session's confirmed commit, dies on the <get-schema>s that follow any
// other first RPC in the next session (TestLabConfirmedCommitSurvivesKill).
const syncOp = `<get-schema xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"><identifier>ietf-netconf-monitoring</identifier><format>yang</format></get-schema>`

// firstReplyWait is how long sendFirst waits for a reply to a session's
// first RPC before it sends the RPC again; each later wait is twice as long.
var firstReplyWait = 2 * time.Second

// sendFirst sends a session's first RPC. netconfd (yuma123) silently drops
// whatever arrives in the same read as the client's <hello>: an RPC sent
// right after the handshake, when netconfd is slow to read (a loaded
// host), arrives with the <hello> and is never answered, and the caller
// would wait for its whole deadline (TestNetconfdDropsRPCWithHello). A
// read (idempotent) is therefore sent again with a new message-id while no
// reply has come, until one is answered or ctx ends; late replies to the
// earlier copies are dropped by the session (nobody waits for their
// message-id). A write is never sent twice: a read goes first the same
// way, then the write once the session has answered.
func sendFirst(ctx context.Context, s *nc.Session, op string, idempotent bool) (*nc.Reply, error) {
	if !idempotent {
		if _, err := resendUntilAnswered(ctx, s, syncOp); err != nil {
			return nil, err
		}
		return s.Do(ctx, op)
	}
	return resendUntilAnswered(ctx, s, op)
}

// resendUntilAnswered sends op, and again after each wait without a reply.
func resendUntilAnswered(ctx context.Context, s *nc.Session, op string) (*nc.Reply, error) {
	wait := firstReplyWait
	for {
		actx, cancel := context.WithTimeout(ctx, wait)
		reply, err := s.Do(actx, op)
		cancel()
		if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
			return reply, err
		}
		wait *= 2
	}
}

// dialError maps an SSH dial failure to the draft's codes.
func dialError(cfg *Config, err error) error {
	var ke *knownhostsKeyError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return netproto.Errorf(netproto.CodeTimeout, "%s: SSH connection timed out: %v", cfg.Address(), err).Retryable()
	case strings.Contains(err.Error(), "unable to authenticate"):
		return netproto.Errorf(netproto.CodeAccessDenied, "%s: SSH authentication of user %s failed (%s)", cfg.Address(), cfg.User, strings.Join(cfg.authDesc, ", "))
	case asKnownHosts(err, &ke):
		return netproto.Errorf(netproto.CodeAccessDenied, "%s: host key not accepted by known-hosts %s: %v", cfg.Address(), cfg.knownHosts, err)
	case strings.Contains(err.Error(), "subsystem"):
		return netproto.Errorf(netproto.CodeUnreachable, "%s: the SSH server refused the netconf subsystem: %v", cfg.Address(), err)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.EOF) {
		return netproto.Errorf(netproto.CodeUnreachable, "%s: %v", cfg.Address(), err).Retryable()
	}
	return netproto.Errorf(netproto.CodeUnreachable, "%s: %v", cfg.Address(), err).Retryable()
}

// drop forgets a failed session. Called with the slot held.
func (c *conn) drop() {
	if c.tr != nil {
		c.tr.Close()
	}
	c.sess, c.tr, c.bt = nil, nil, nil
}

// call sends one RPC whose body is op (XML) and returns the reply's inner
// XML. An <rpc-error> becomes a *netproto.Error (see rpcError). With
// retry, a failure of the transport on an existing session is retried
// once on a new one (for reads only: a write must not be sent twice).
// gen, when not 0, is the session generation the call must run in: if
// the session was replaced since, the call fails without being sent.
func (c *conn) call(ctx context.Context, op string, retry bool, gen uint64) ([]byte, uint64, error) {
	if _, ok := ctx.Deadline(); !ok {
		// Every wait on the device ends: a caller that set no deadline
		// gets DefaultRPCTimeout, reported as the draft's timeout.
		parent := ctx
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultRPCTimeout)
		defer cancel()
		body, g, err := c.call(ctx, op, retry, gen)
		if err != nil && parent.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = netproto.Errorf(netproto.CodeTimeout, "%s: no NETCONF reply within %s", c.cfg.Address(), DefaultRPCTimeout).Retryable()
		}
		return body, g, err
	}
	if err := c.acquire(ctx); err != nil {
		return nil, 0, err
	}
	defer c.release()
	for attempt := 0; ; attempt++ {
		fresh := c.sess == nil
		if err := c.open(ctx); err != nil {
			return nil, 0, err
		}
		if gen != 0 && c.gen != gen {
			return nil, c.gen, errSessionLost
		}
		var reply *nc.Reply
		var err error
		if c.yuma && !c.answered {
			reply, err = sendFirst(ctx, c.sess, op, retry)
		} else {
			reply, err = c.sess.Do(ctx, op) // a string is written verbatim inside <rpc>
		}
		if err == nil {
			c.answered = true
			if rerr := rpcError(reply.Errors, c.schemaPrefixes()); rerr != nil {
				return nil, c.gen, rerr
			}
			return reply.Body, c.gen, nil
		}
		if ctx.Err() != nil {
			// The reply may still come; the session stays consistent
			// (nemith drops replies nobody waits for), but to be safe
			// with a half-read message, start a new one next time.
			c.drop()
			return nil, c.gen, ctx.Err()
		}
		if e, ok := errLimit(c.bt, err); ok {
			// Asking again would fetch the same message: fail now.
			c.log.Warn("netconf reply refused", "device", c.cfg.Address(), "error", e)
			c.drop()
			return nil, c.gen, netproto.Errorf(netproto.CodeUnreachable, "%s: %v", c.cfg.Address(), e)
		}
		c.log.Warn("netconf session failed; reconnecting on the next call", "device", c.cfg.Address(), "error", err)
		c.drop()
		if !retry || fresh || attempt > 0 {
			return nil, c.gen, netproto.Errorf(netproto.CodeUnreachable, "%s: NETCONF session lost: %v", c.cfg.Address(), err).Retryable()
		}
	}
}

// DefaultRPCTimeout bounds one RPC (the wait for the session and for the
// reply) when the caller's context sets no deadline.
const DefaultRPCTimeout = 2 * time.Minute

// errSessionLost reports that the session holding a lock was replaced.
var errSessionLost = errors.New("netconf: the NETCONF session was lost")

// schemaPrefixes is set by the driver: YANG prefix to module name, used to
// rewrite error-path. Nil until the schema is loaded.
func (c *conn) schemaPrefixes() map[string]string {
	if c.prefixes == nil {
		return nil
	}
	return c.prefixes()
}

// close ends the session politely (close-session) and refuses later calls.
func (c *conn) close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	if c.sess == nil {
		return nil
	}
	if c.yuma && !c.answered {
		// close-session would be the session's first RPC, which netconfd
		// drops when it reads it with the <hello> (see sendFirst): have
		// the session answer a read first, as sendFirst does for a write.
		// If none is answered, close-session below still ends the session.
		if _, err := resendUntilAnswered(ctx, c.sess, syncOp); err == nil {
			c.answered = true
		}
	}
	err := c.sess.Close(ctx)
	c.sess, c.tr, c.bt = nil, nil, nil
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, nc.ErrClosed) {
		return fmt.Errorf("netconf: close-session: %w", err)
	}
	return nil
}

// helloInfo is what the device's <hello> says.
type helloInfo struct {
	SessionID     uint64
	Capabilities  []string
	Base11        bool
	Candidate     bool
	Confirmed     bool // confirmed-commit 1.0 or 1.1
	Persist       bool // confirmed-commit 1.1: persist and cancel-commit
	RollbackOnErr bool
	Validate      bool
	Monitoring    bool // ietf-netconf-monitoring: get-schema
	Notification  bool
	// Modules maps module name to its namespace and revision, from the
	// capabilities' module= parameters.
	Modules map[string]moduleInfo
	// ByNamespace maps a namespace to its module name.
	ByNamespace map[string]string
}

type moduleInfo struct {
	Name, Namespace, Revision string
	Features                  []string
}

func parseHello(caps []string) *helloInfo {
	h := &helloInfo{Capabilities: caps, Modules: map[string]moduleInfo{}, ByNamespace: map[string]string{}}
	for _, c := range caps {
		base, query, _ := strings.Cut(c, "?")
		switch base {
		case capBase11:
			h.Base11 = true
		case capCandidate:
			h.Candidate = true
		case capConfirmed10:
			h.Confirmed = true
		case capConfirmed11:
			h.Confirmed, h.Persist = true, true
		case capRollbackOnError:
			h.RollbackOnErr = true
		case capValidate10, capValidate11:
			h.Validate = true
		case capNotification:
			h.Notification = true
		}
		if query == "" {
			continue
		}
		// The query is &-separated and XML-unescaped already (&amp; -> &).
		var m moduleInfo
		m.Namespace = base
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "module":
				m.Name = v
			case "revision":
				m.Revision = v
			case "features":
				m.Features = strings.Split(v, ",")
			}
		}
		if m.Name == "" {
			continue
		}
		h.Modules[m.Name] = m
		h.ByNamespace[m.Namespace] = m.Name
		if m.Name == "ietf-netconf-monitoring" {
			h.Monitoring = true
		}
	}
	return h
}

// rpcError maps the <rpc-error>s of a reply (severity error) to a
// *netproto.Error: the first error's tag picks the code, every error's
// message is in the detail, and error-path (rewritten from the device's
// XML prefixes to module names where known) is the path.
func rpcError(errs nc.RPCErrors, prefixes map[string]string) error {
	errs = errs.Filter(nc.SevError)
	if len(errs) == 0 {
		return nil
	}
	first := errs[0]
	code, retry := netproto.CodeConfigIncompatible, false
	switch first.Tag {
	case nc.ErrLockDenied, nc.ErrInUse:
		code, retry = netproto.CodeAccessDenied, true
	case nc.ErrAccesDenied:
		code = netproto.CodeAccessDenied
	case nc.ErrInvalidValue, nc.ErrBadElement, nc.ErrMissingElement, nc.ErrBadAttribute,
		nc.ErrMissingAttribute, nc.ErrUnknownAttribute, nc.ErrMalformedMessage, nc.ErrTooBig:
		code = netproto.CodeYangSyntaxError
	case nc.ErrUnknownElement, nc.ErrUnknownNamespace, nc.ErrOperationNotSupported,
		nc.ErrDataExists, nc.ErrDataMissing, nc.ErrOperationFailed:
		code = netproto.CodeConfigIncompatible
	case nc.ErrResourceDenied:
		code, retry = netproto.CodeConfigIncompatible, true
	case nc.ErrRollbackFailed, nc.ErrPartialOperation:
		code = netproto.CodeRollbackFailed
	}
	var parts []string
	for _, e := range errs {
		msg := strings.TrimSpace(e.Message)
		if msg == "" {
			msg = "(no error-message)"
		}
		p := fmt.Sprintf("rpc-error %s/%s: %s", e.Type, e.Tag, msg)
		if info := errorInfo(e.Info); info != "" {
			p += " [" + info + "]"
		}
		parts = append(parts, p)
	}
	ne := netproto.Errorf(code, "%s", strings.Join(parts, "; "))
	ne.Path = rewriteErrorPath(strings.TrimSpace(first.Path), prefixes)
	ne.RetryPossible = retry
	return ne
}

// errorInfo renders <error-info> children as "name=value" pairs (such as
// session-id=3 of a lock-denied, bad-element=foo).
func errorInfo(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	d := xml.NewDecoder(strings.NewReader(string(raw)))
	var out []string
	var name string
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name = t.Name.Local
		case xml.CharData:
			if v := strings.TrimSpace(string(t)); v != "" && name != "" {
				out = append(out, name+"="+v)
			}
		case xml.EndElement:
			name = ""
		}
	}
	return strings.Join(out, " ")
}

// rewriteErrorPath turns a device error-path such as
// /nc:rpc/nc:edit-config/nc:config/if:interfaces/if:interface[if:name='x']/if:mtu
// into /ietf-interfaces:interfaces/interface[name='x']/mtu: the NETCONF
// envelope is dropped, and each prefix becomes its module name (written
// only where the module changes). A prefix that is not known stays as is.
func rewriteErrorPath(p string, prefixes map[string]string) string {
	if p == "" {
		return ""
	}
	segs := splitXPath(p)
	var out strings.Builder
	cur := ""
	for _, s := range segs {
		pfx, rest, ok := strings.Cut(s, ":")
		if !ok || strings.ContainsAny(pfx, "[='") {
			out.WriteString("/" + s)
			continue
		}
		if pfx == "nc" && (strings.HasPrefix(rest, "rpc") || strings.HasPrefix(rest, "edit-config") || strings.HasPrefix(rest, "config") ||
			strings.HasPrefix(rest, "get") || strings.HasPrefix(rest, "data") || strings.HasPrefix(rest, "filter")) {
			continue
		}
		mod, known := prefixes[pfx]
		if !known {
			out.WriteString("/" + s)
			continue
		}
		// Predicates carry prefixes too: [if:name='x'] -> [name='x'].
		rest = strings.ReplaceAll(rest, "["+pfx+":", "[")
		if mod == cur {
			out.WriteString("/" + rest)
		} else {
			out.WriteString("/" + mod + ":" + rest)
			cur = mod
		}
	}
	if out.Len() == 0 {
		return "/"
	}
	return out.String()
}

// splitXPath splits an absolute path at the slashes outside predicates.
func splitXPath(p string) []string {
	var segs []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '[':
			depth++
		case ch == ']':
			depth--
		case ch == '/' && depth == 0:
			if i > start {
				segs = append(segs, p[start:i])
			}
			start = i + 1
		}
	}
	if start < len(p) {
		segs = append(segs, p[start:])
	}
	return segs
}

// knownhostsKeyError is the host key mismatch or unknown-key error of
// golang.org/x/crypto/ssh/knownhosts.
type knownhostsKeyError = knownhosts.KeyError

// asKnownHosts reports whether err is a known-hosts refusal.
func asKnownHosts(err error, ke **knownhostsKeyError) bool {
	var re *knownhosts.RevokedError
	return errors.As(err, ke) || errors.As(err, &re)
}
