package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/d2d/tlv"
)

// Peer is an open, negotiated session to a neighbour agent.
type Peer struct {
	// Name is the neighbour's identity.
	Name string
	// Authorised are the capabilities this agent may call on it (the
	// intersection of both offers).
	Authorised []string
	// Binding is the neighbour's certificate-bound signing key.
	Binding sign.Binding
	cs      *mcp.ClientSession
	// notAfter is the end of the validity of the certificate Binding
	// binds: the session is not used past it.
	notAfter time.Time
	// ctx ends when the peer is revoked or marked untrusted: its calls in
	// flight are cancelled (notifications/cancelled) before the session
	// closes.
	ctx    context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup
}

// close cancels the peer's calls in flight and closes the session once
// they have returned.
func (p *Peer) close() {
	p.cancel()
	go func() {
		p.calls.Wait()
		p.cs.Close()
	}()
}

// Session is the peer's MCP session (tests use it to send raw calls).
func (p *Peer) Session() *mcp.ClientSession { return p.cs }

// NegotiationError is a neighbour refused after TLS: not an agent, a
// capability list that does not match its TLV's digest, a key binding
// that does not verify against its certificate.
type NegotiationError struct {
	Peer, Reason string
}

// Error says who was refused and why.
func (e *NegotiationError) Error() string { return "agent: " + e.Peer + " refused: " + e.Reason }

// Connect returns the session to domain member name, opening and
// negotiating it if needed.
func (a *Agent) Connect(ctx context.Context, name string) (*Peer, error) {
	a.mu.Lock()
	if p := a.peers[name]; p != nil {
		if a.cfg.Now().Before(p.notAfter.Add(sign.MaxClockSkew)) {
			a.mu.Unlock()
			return p, nil
		}
		// Its certificate has expired since the session was negotiated:
		// a new session is negotiated, and refused.
		delete(a.peers, name)
		p.close()
	}
	m, bad := a.untrustedLocked(name)
	a.mu.Unlock()
	if bad {
		return nil, fmt.Errorf("agent: %s is untrusted: %s", name, m.why)
	}
	n, ok := a.member(name)
	if !ok {
		return nil, fmt.Errorf("agent: %s is not in the collaboration domain (no D2D TLV heard from it)", name)
	}
	p, err := a.dial(ctx, n)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if old := a.peers[name]; old != nil {
		a.mu.Unlock()
		p.close()
		return old, nil
	}
	a.peers[name] = p
	a.mu.Unlock()
	return p, nil
}

// dial opens a TLS 1.3 mTLS MCP session to n and negotiates.
func (a *Agent) dial(ctx context.Context, n discover.Neighbor) (*Peer, error) {
	host := a.cfg.Resolve(n)
	if host == "" {
		return nil, fmt.Errorf("agent: no address for %s", n.Name)
	}
	endpoint := "https://" + net.JoinHostPort(host, strconv.Itoa(int(n.Advert.Port))) + "/mcp"
	hc := &http.Client{Transport: &http.Transport{DialTLSContext: a.dialTLS(n.Name, n.Advert.Thumbprint), ForceAttemptHTTP2: false}}
	offer := Offer{Capabilities: a.cfg.Offer, Binding: &a.binding}
	c := mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent", Title: a.name, Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Experimental: offer.asExperimental()}})
	cctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout)
	defer cancel()
	cs, err := c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		var te *ThumbprintError
		if errors.As(err, &te) {
			return nil, te
		}
		return nil, fmt.Errorf("agent: connecting to %s at %s: %w", n.Name, endpoint, err)
	}
	p, err := a.negotiate(n, cs)
	if err != nil {
		cs.Close()
		return nil, err
	}
	return p, nil
}

// negotiate checks the callee's initialize result: its offer's digest is
// the one its TLV advertised, its key binding verifies against the
// certificate it presented, and the intersection is not empty.
func (a *Agent) negotiate(n discover.Neighbor, cs *mcp.ClientSession) (*Peer, error) {
	init := cs.InitializeResult()
	var exp map[string]any
	if init != nil && init.Capabilities != nil {
		exp = init.Capabilities.Experimental
	}
	theirs, err := offerFrom(exp)
	if err != nil {
		return nil, &NegotiationError{n.Name, err.Error()}
	}
	if tlv.CapabilityDigest(theirs.Capabilities) != n.Advert.CapDigest {
		return nil, &NegotiationError{n.Name, "its capabilities [" + strings.Join(theirs.Capabilities, ", ") + "] do not match the digest of its LLDP TLV"}
	}
	if theirs.Binding == nil {
		return nil, &NegotiationError{n.Name, "no signing key binding"}
	}
	key, err := theirs.Binding.Verify(a.roots, a.cfg.Now())
	if err != nil {
		return nil, &NegotiationError{n.Name, err.Error()}
	}
	if theirs.Binding.Identity != n.Name || bindingThumb(*theirs.Binding) != n.Advert.Thumbprint {
		return nil, &NegotiationError{n.Name, "its signing key is bound to another certificate than the one it advertised"}
	}
	auth := Intersect(a.cfg.Offer, theirs.Capabilities)
	if len(auth) == 0 {
		return nil, &NegotiationError{n.Name, "no capability in common"}
	}
	a.verifier.Trust(n.Name, key)
	a.mu.Lock()
	a.bindings[n.Name] = *theirs.Binding
	a.mu.Unlock()
	pctx, pcancel := context.WithCancel(context.Background())
	p := &Peer{Name: n.Name, Authorised: auth, Binding: *theirs.Binding, cs: cs, ctx: pctx, cancel: pcancel}
	if c, err := parseCertPEM([]byte(theirs.Binding.Cert)); err == nil {
		p.notAfter = c.NotAfter
	}
	return p, nil
}

func bindingThumb(b sign.Binding) [sha256.Size]byte {
	c, err := parseCertPEM([]byte(b.Cert))
	if err != nil {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256(c.Raw)
}

// Call calls tool on neighbour name and verifies the signed result: signed
// by name, for this agent, for this very call, with a fresh nonce. A
// neighbour that times out or fails authentication is marked untrusted. A
// session lost under a call (the neighbour restarted) is reopened, and the
// call made once more.
func (a *Agent) Call(ctx context.Context, name, tool string, args any) (sign.Result, error) {
	r, stale, err := a.callOnce(ctx, name, tool, args)
	if stale {
		a.log.Info("d2d session lost; reconnecting", "peer", name, "err", err)
		r, _, err = a.callOnce(ctx, name, tool, args)
	}
	return r, err
}

// callOnce is one attempt of Call; stale reports a session that failed
// under the call (not a refusal, a timeout or a revocation).
func (a *Agent) callOnce(ctx context.Context, name, tool string, args any) (r sign.Result, stale bool, err error) {
	p, err := a.Connect(ctx, name)
	if err != nil {
		var te *ThumbprintError
		var ne *NegotiationError
		if errors.As(err, &te) || errors.As(err, &ne) || isTimeout(ctx, err) {
			a.markUntrusted(name, err.Error())
		}
		return sign.Result{}, false, err
	}
	p.calls.Add(1)
	defer p.calls.Done()
	cctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout)
	defer cancel()
	defer context.AfterFunc(p.ctx, cancel)()
	start := time.Now()
	rawArgs, _ := canonicalArgs(args)
	if a.onCall != nil {
		a.onCall(name, tool)
	}
	res, err := p.cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	a.auditCall(a.name, p.cs.ID(), "tools/call", name+":"+tool, rawArgs, nil, start, err)
	if err != nil {
		if p.ctx.Err() != nil {
			return sign.Result{}, false, fmt.Errorf("agent: %s %s cancelled: %s is no longer trusted", name, tool, name)
		}
		if isTimeout(cctx, err) {
			a.markUntrusted(name, fmt.Sprintf("call %s timed out after %s", tool, a.cfg.CallTimeout))
			return sign.Result{}, false, fmt.Errorf("agent: %s %s: %w", name, tool, err)
		}
		if je := asRPCError(err); je == nil || je.Code == codeRejectedByTransport {
			a.evict(name, p)
			return sign.Result{}, true, fmt.Errorf("agent: %s %s: %w", name, tool, err)
		}
		return sign.Result{}, false, fmt.Errorf("agent: %s %s: %w", name, tool, err)
	}
	r, err = a.checkResult(res, name, tool, args)
	if err != nil {
		a.markUntrusted(name, err.Error())
		return sign.Result{}, false, err
	}
	if res.IsError {
		return r, false, fmt.Errorf("agent: %s %s: %s", name, tool, r.Body)
	}
	return r, false, nil
}

// codeRejectedByTransport is the go-sdk's JSON-RPC code for a request its
// transport could not deliver (the HTTP exchange failed): a lost session,
// not the callee's answer.
const codeRejectedByTransport = -32005

// evict forgets a peer's session (not the peer's trust) so that the next
// call opens a new one.
func (a *Agent) evict(name string, p *Peer) {
	a.mu.Lock()
	if a.peers[name] == p {
		delete(a.peers, name)
	}
	a.mu.Unlock()
	p.close()
}

// checkResult decodes and verifies a neighbour's signed result.
func (a *Agent) checkResult(res *mcp.CallToolResult, name, tool string, args any) (sign.Result, error) {
	var r sign.Result
	b, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		return r, fmt.Errorf("agent: %s returned no signed result for %s", name, tool)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("agent: %s returned a malformed signed result: %w", name, err)
	}
	if err := a.verifier.Verify(r, name, a.name); err != nil {
		return r, err
	}
	want, err := canonicalArgs(args)
	if err != nil {
		return r, err
	}
	if r.Tool != tool || !bytes.Equal(r.Args, want) {
		return r, &sign.Error{Reason: sign.ReasonIdentity, Signer: name, Detail: fmt.Sprintf("result is for %s %s, not for the call made (%s %s)", r.Tool, r.Args, tool, want)}
	}
	return r, nil
}

func canonicalArgs(args any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage(`{}`), nil
	}
	return sign.Canonical(args)
}

func isTimeout(ctx context.Context, err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
