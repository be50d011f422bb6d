package approval

import (
	"context"
	"crypto/ed25519"
	"sync"
	"time"
)

// Options configure an Authority.
type Options struct {
	// Modes chooses per tool; tools not listed use Default.
	Modes map[string]Mode
	// Default is the mode of unlisted tools; "" means Writes.
	Default Mode
	// TokenTTL is how long a confirmation token stays valid (default 2 minutes).
	TokenTTL time.Duration
	// ConsentMaxAge is how old a signed consent's timestamp may be (default 5 minutes).
	ConsentMaxAge time.Duration
	// TrustedKeys are the approvers' Ed25519 public keys by key id.
	TrustedKeys map[string]ed25519.PublicKey
	// MaxPending bounds the outstanding tokens of the Authority (default
	// 1024); when it is reached a new token is refused (retryable), no
	// other caller's is evicted.
	MaxPending int
	// MaxPendingPerIdentity bounds the outstanding tokens of one caller
	// (Request.User, or the session without one; default 64); a caller
	// over it loses its own oldest token.
	MaxPendingPerIdentity int
	// StateDir, when set, keeps the nonces of used signed consents in
	// NonceFile there, so that a consent is refused after a restart too,
	// and the pending confirmation tokens in TokenFile, so that a token
	// issued by one process is redeemed once through any process sharing
	// the directory, or after a restart.
	StateDir string
	// DeviceIDs are names this device answers to in a consent's device
	// member besides Request.Device (the device's name), e.g. the subject
	// of its certificate.
	DeviceIDs []string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Decision records how a call passed the gate, for the audit trail.
type Decision struct {
	// Method is "not-required", "consent", "token" or "elicitation".
	Method string `json:"method"`
	// Approver names who approved (consent user, or "operator" for elicitation).
	Approver string `json:"approver,omitempty"`
}

// Authority decides whether a call may proceed: whether it needs approval
// (its tool's Mode) and whether the evidence it brings approves it (a
// signed consent, a confirmation token it issued, an elicited answer).
// It is safe for concurrent use.
type Authority struct {
	opts Options

	mu       sync.Mutex
	tokens   map[string]pendingToken
	pools    map[string]int       // pending tokens per pool (poolOf)
	nonces   map[string]time.Time // consent nonces seen, until they expire
	nonceErr error                // the used nonces could not be loaded: refuse consents
}

// StateDir returns Options.StateDir: where the Authority keeps what must
// outlive the process ("" for nothing).
func (g *Authority) StateDir() string { return g.opts.StateDir }

// Open returns an Authority, loading the used consent nonces of
// Options.StateDir. An unreadable nonce file is an error.
func Open(opts Options) (*Authority, error) {
	g := New(opts)
	return g, g.nonceErr
}

// New returns an Authority. With Options.StateDir it loads the used
// consent nonces from there; if they cannot be read, the Authority refuses
// every signed consent (with that reason) rather than risk a replay. Use
// Open to see the error at once.
func New(opts Options) *Authority {
	if opts.Default == "" {
		opts.Default = Writes
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = 2 * time.Minute
	}
	if opts.ConsentMaxAge <= 0 {
		opts.ConsentMaxAge = 5 * time.Minute
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = 1024
	}
	if opts.MaxPendingPerIdentity <= 0 {
		opts.MaxPendingPerIdentity = 64
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	g := &Authority{opts: opts, tokens: map[string]pendingToken{}, pools: map[string]int{}, nonces: map[string]time.Time{}}
	if n, err := loadNonces(opts.StateDir, opts.Now()); err != nil {
		g.nonceErr = err
	} else {
		g.nonces = n
	}
	return g
}

// Mode returns the mode that applies to tool.
func (g *Authority) Mode(tool string) Mode {
	if m, ok := g.opts.Modes[tool]; ok {
		return m
	}
	return g.opts.Default
}

// Needs reports whether a call of tool needs approval.
func (g *Authority) Needs(tool string, write bool) bool { return g.Mode(tool).Needs(write) }

// Approve lets the call through (nil error) or refuses it. A refusal is
// either *ApprovalRequired (repeat the call with the token) or a
// *netproto.Error with code -32083 saying why the approval was refused.
// Evidence is checked in this order: signed consent, token, elicitation.
func (g *Authority) Approve(ctx context.Context, req Request, ev Evidence) (Decision, error) {
	if !g.Needs(req.Tool, req.Write) {
		return Decision{Method: "not-required"}, nil
	}
	hash, err := ArgumentsHash(req.Arguments)
	if err != nil {
		return Decision{}, err
	}
	switch {
	case len(ev.Consent) > 0:
		who, err := g.verifyConsent(req, hash, ev.Consent)
		if err != nil {
			return Decision{}, err
		}
		return Decision{Method: "consent", Approver: who}, nil
	case ev.Token != "":
		if err := g.redeem(req, hash, ev.Token); err != nil {
			return Decision{}, err
		}
		return Decision{Method: "token", Approver: req.User}, nil
	case ev.Elicitor != nil:
		if err := elicit(ctx, ev.Elicitor, req); err != nil {
			return Decision{}, err
		}
		return Decision{Method: "elicitation", Approver: "operator"}, nil
	}
	tok, exp, err := g.issue(req, hash)
	if err != nil {
		return Decision{}, err
	}
	return Decision{}, &ApprovalRequired{Tool: req.Tool, Token: tok, ExpiresAt: exp,
		Summary: req.Summary, RollbackWindow: req.RollbackWindow}
}
