package agent

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/agent/discover"
	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/sign"
	"github.com/netmcp/netmcp/d2d/tlv"
)

// DefaultPort is the draft's D2D port.
const DefaultPort = 9514

// DefaultCallTimeout bounds one call to a neighbour.
const DefaultCallTimeout = 20 * time.Second

// DefaultUntrustedFor is how long a neighbour stays untrusted after it
// failed (a timeout, a result that does not verify, a certificate other
// than the one it advertised): long enough to finish the runs under way
// without it, short enough that whoever provoked the failure cannot keep a
// device out of the collaboration for good.
const DefaultUntrustedFor = 5 * time.Minute

// Config configures New.
type Config struct {
	// CertPEM and KeyPEM are the device certificate (its identity is the
	// common name) and key; CAPEM is the CA every peer must chain to.
	CertPEM, KeyPEM, CAPEM []byte
	// Local is a session to the device's own MCP server (netmcp serve's,
	// in process): every call the agent makes on its own device, and
	// every neighbour call it serves, goes through it.
	Local *mcp.ClientSession
	// Signer signs this device's results; its identity must be the
	// certificate's common name.
	Signer *sign.Signer
	// Offer is the set of capabilities neighbours may call (default
	// DefaultOffer). Only read-only capabilities exist.
	Offer []string
	// Discoverer finds the neighbours (LLDP, or a static list).
	Discoverer discover.Discoverer
	// Port is the agent's MCP port advertised in its TLV (DefaultPort).
	Port uint16
	// Resolve returns the host to dial for a neighbour (default its
	// LLDP management address).
	Resolve func(n discover.Neighbor) string
	// Dial, when set, opens the TCP connections to neighbours (e.g.
	// DialInNetns: from inside the device's network namespace).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// CallTimeout bounds each call to a neighbour (DefaultCallTimeout).
	CallTimeout time.Duration
	// UntrustedFor is how long a failed neighbour stays untrusted
	// (DefaultUntrustedFor). A revocation (Revoke) does not expire.
	UntrustedFor time.Duration
	// Writer, when set, is a session to the device's MCP server that may
	// change it (not read-only): its writes pass the device's approval
	// gate. Only Mitigate uses it, to apply this device's proposal of a
	// report with the operator's consent; neighbours never reach it.
	// Each write's context names its mitigation (MitigationOf), so that
	// a writer answering the gate's elicitations can ask the operator
	// who asked for it.
	Writer Writer
	// Gate, when set, decides whether D2D calls are allowed at all
	// (ControllerGate); a refused neighbour gets -32083 with the reason,
	// and Ask refuses to start.
	Gate interface{ Allow(context.Context) error }
	// Audit, when set, receives a record of every D2D call, inbound and
	// outbound, allowed or refused.
	Audit *audit.Log
	// Controller, when set, is the controller the agent falls back to when
	// a device of a run's path is untrusted (ControllerFallback).
	Controller *ControllerFallback
	// Push, when set, pushes every finished report to the controller,
	// queueing it on the device while the controller is unreachable.
	Push *ReportPusher
	// LocalUpdates, when set, carries the local session's resource updates
	// (LocalSession): neighbours and operators may then follow an
	// interface's state (resources/subscribe), fed by the device's change
	// stream where its driver has one.
	LocalUpdates *LocalUpdates
	// Logger receives the agent's log; nil discards it.
	Logger *slog.Logger
	// Now is the clock (time.Now).
	Now func() time.Time
}

// Agent is one device's collaboration agent.
type Agent struct {
	cfg      Config
	name     string
	cert     *x509.Certificate
	pair     tls.Certificate
	roots    *x509.CertPool
	binding  sign.Binding
	verifier *sign.Verifier
	log      *slog.Logger
	tools    map[string]*mcp.Tool // the local device's tools, by name

	mu        sync.Mutex
	domain    map[string]discover.Neighbor // known agents (direct and learnt), by name
	direct    []discover.Neighbor          // this device's own neighbours
	untrusted map[string]untrustedMark     // by name
	peers     map[string]*Peer
	bindings  map[string]sign.Binding // neighbours' certificate-bound keys
	reports   *report.Store
	issued    issuedLog // results issued to each caller, for attestation
	subs      subscriptions
	// lastProbes is the end of the interval the last run's captures
	// counted: a later run counts after it.
	lastProbes time.Time

	// onCall, set by tests, is told of each call to a peer as it starts.
	onCall func(peer, tool string)
}

// New builds an agent. It reads the local device's tool list.
func New(ctx context.Context, cfg Config) (*Agent, error) {
	if cfg.Local == nil || cfg.Signer == nil || cfg.Discoverer == nil {
		return nil, errors.New("agent: Local, Signer and Discoverer are required")
	}
	if cfg.Offer == nil {
		cfg.Offer = DefaultOffer
	}
	if err := checkOffer(cfg.Offer); err != nil {
		return nil, err
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.UntrustedFor <= 0 {
		cfg.UntrustedFor = DefaultUntrustedFor
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Resolve == nil {
		cfg.Resolve = func(n discover.Neighbor) string { return n.Address }
	}
	pair, err := tls.X509KeyPair(cfg.CertPEM, cfg.KeyPEM)
	if err != nil {
		return nil, fmt.Errorf("agent: device certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(cfg.CAPEM) {
		return nil, errors.New("agent: no certificate in the CA PEM")
	}
	name := cert.Subject.CommonName
	if cfg.Signer.ID() != name {
		return nil, fmt.Errorf("agent: signer identity %q differs from the certificate's %q", cfg.Signer.ID(), name)
	}
	certKey, err := sign.ParseCertKey(cfg.KeyPEM)
	if err != nil {
		return nil, err
	}
	binding, err := cfg.Signer.Bind(cfg.CertPEM, certKey)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Agent{cfg: cfg, name: name, cert: cert, pair: pair, roots: roots, binding: binding,
		verifier: sign.NewVerifier(), log: log, tools: map[string]*mcp.Tool{},
		domain: map[string]discover.Neighbor{}, untrusted: map[string]untrustedMark{}, peers: map[string]*Peer{}, bindings: map[string]sign.Binding{},
		reports: report.NewStore()}
	a.verifier.Trust(name, cfg.Signer.PublicKey())
	tl, err := cfg.Local.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: listing the device's tools: %w", err)
	}
	for _, t := range tl.Tools {
		a.tools[t.Name] = t
	}
	if cfg.LocalUpdates != nil {
		cfg.LocalUpdates.bind(a.relayUpdate)
	}
	return a, nil
}

// swapLastProbes records the end of this run's counting interval and
// returns the previous run's.
func (a *Agent) swapLastProbes(end time.Time) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	prev := a.lastProbes
	a.lastProbes = end
	return prev
}

// Name is the agent's identity.
func (a *Agent) Name() string { return a.name }

// Advert is the TLV this agent advertises over LLDP.
func (a *Agent) Advert() tlv.Advert {
	return tlv.Advert{Port: a.cfg.Port, CapDigest: tlv.CapabilityDigest(a.cfg.Offer), Thumbprint: sha256.Sum256(a.cert.Raw)}
}

// Reports is the agent's report store.
func (a *Agent) Reports() *report.Store { return a.reports }

// Discover refreshes the agent's neighbours from its Discoverer.
func (a *Agent) Discover(ctx context.Context) ([]discover.Neighbor, error) {
	ns, err := a.cfg.Discoverer.Neighbors(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.direct = ns
	for _, n := range ns {
		a.domain[n.Name] = n
	}
	return ns, nil
}

// learn adds agents heard of through a neighbour (its d2d.neighbors) to
// the domain, without overriding what this device heard itself.
func (a *Agent) learn(ns []discover.Neighbor) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, n := range ns {
		if _, ok := a.domain[n.Name]; !ok && n.Name != a.name {
			a.domain[n.Name] = n
		}
	}
}

// pin returns the thumbprint advertised by the agent named name.
func (a *Agent) pin(name string) ([sha256.Size]byte, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, ok := a.domain[name]
	return n.Advert.Thumbprint, ok
}

// member returns the domain entry of name.
func (a *Agent) member(name string) (discover.Neighbor, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, ok := a.domain[name]
	return n, ok
}

// untrustedMark is why a peer is untrusted, and until when (zero: for
// the agent's life, a revocation).
type untrustedMark struct {
	why   string
	until time.Time
}

// markUntrusted marks a peer untrusted for Config.UntrustedFor (keeping
// the first reason while the mark lasts), cancels its calls in flight
// and closes its session.
func (a *Agent) markUntrusted(name, why string) {
	a.mark(name, untrustedMark{why: why, until: a.cfg.Now().Add(a.cfg.UntrustedFor)})
}

func (a *Agent) mark(name string, m untrustedMark) {
	a.mu.Lock()
	defer a.mu.Unlock()
	old, already := a.untrustedLocked(name)
	switch {
	case !already:
		a.untrusted[name] = m
	case m.until.IsZero() && !old.until.IsZero():
		a.untrusted[name] = untrustedMark{why: old.why, until: time.Time{}}
	}
	if p := a.peers[name]; p != nil {
		delete(a.peers, name)
		p.close()
	}
}

// untrustedLocked returns name's mark if it has not expired (forgetting
// it if it has); a.mu is held.
func (a *Agent) untrustedLocked(name string) (untrustedMark, bool) {
	m, ok := a.untrusted[name]
	if ok && !m.until.IsZero() && !a.cfg.Now().Before(m.until) {
		delete(a.untrusted, name)
		return untrustedMark{}, false
	}
	return m, ok
}

// Revoke withdraws the authorization of peer name mid-run: its calls in
// flight are cancelled (the callee gets notifications/cancelled), its
// session closed, and it stays untrusted (a revocation does not expire).
func (a *Agent) Revoke(name, reason string) {
	a.mark(name, untrustedMark{why: "authorization revoked: " + reason})
}

// Untrusted returns the peers marked untrusted and why (marks that have
// expired are gone).
func (a *Agent) Untrusted() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]string{}
	for k := range a.untrusted {
		if m, ok := a.untrustedLocked(k); ok {
			out[k] = m.why
		}
	}
	return out
}

// MaxRequestBytes bounds the body of one request to the agent's endpoint:
// the largest message it reads, a whole report to countersign included
// (413 above it).
const MaxRequestBytes = 4 << 20

// Serve serves the agent's MCP endpoint (Streamable HTTP at /mcp) on ln
// over TLS 1.3 with mutual TLS until ctx ends.
func (a *Agent) Serve(ctx context.Context, ln net.Listener) error {
	// Bodies are bounded as netmcp serve bounds them: a peer, even an
	// authenticated one, cannot make the agent buffer an unbounded POST.
	h := mcp.NewStreamableHTTPHandler(a.sessionServer, &mcp.StreamableHTTPOptions{SessionTimeout: 10 * time.Minute, MaxRequestBodyBytes: MaxRequestBytes})
	mux := http.NewServeMux()
	mux.Handle("/mcp", a.pinned(h))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, TLSConfig: a.serverTLS(),
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelDebug)}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = hs.Shutdown(sctx)
			cancel()
		case <-done:
		}
	}()
	err := hs.Serve(tls.NewListener(ln, hs.TLSConfig))
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close closes the sessions to neighbours.
func (a *Agent) Close() error {
	a.mu.Lock()
	ps := a.peers
	a.peers = map[string]*Peer{}
	a.mu.Unlock()
	for _, p := range ps {
		p.close()
	}
	return nil
}
