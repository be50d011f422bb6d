package approval

import (
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// pendingToken is an issued, not yet redeemed confirmation token.
type pendingToken struct {
	session, tool, hash string
	binding             string // Request.Binding when the token was issued
	owner               string // the pool it counts against (poolOf)
	expires             time.Time
	issued              time.Time
}

// poolOf names the pool of pending tokens a request counts against: its
// caller's identity (Request.User), or its session when it has none.
func poolOf(req Request) string {
	if req.User != "" {
		return "user:" + req.User
	}
	return "session:" + req.Session
}

// issue makes a single-use token bound to the session, tool and arguments.
// Each identity has its own pool of Options.MaxPendingPerIdentity tokens: a
// full pool loses its own oldest token, never another identity's. When the
// whole gate holds Options.MaxPending tokens, a new one is refused
// (retryable) instead of evicting anybody's.
func (g *Authority) issue(req Request, hash string) (string, time.Time, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("approval: no randomness: " + err.Error()) // crypto/rand never fails on Linux
	}
	tok := "apv_" + base64.RawURLEncoding.EncodeToString(b[:])
	now := g.opts.Now()
	exp := now.Add(g.opts.TokenTTL)
	pool := poolOf(req)

	err := g.syncTokens(func() (bool, error) {
		g.purgeLocked(now)
		if g.pools[pool] >= g.opts.MaxPendingPerIdentity {
			var oldest string
			var at time.Time
			for k, t := range g.tokens {
				if t.owner == pool && (oldest == "" || t.issued.Before(at)) {
					oldest, at = k, t.issued
				}
			}
			g.dropLocked(oldest)
		}
		if len(g.tokens) >= g.opts.MaxPending {
			return false, netproto.Errorf(netproto.CodeAccessDenied,
				"approval: %d approvals are pending on this server (the most it keeps); none was evicted; retry when some are used or expire (within %s)",
				len(g.tokens), g.opts.TokenTTL).Retryable()
		}
		g.tokens[tokenKey(tok)] = pendingToken{session: req.Session, tool: req.Tool, hash: hash, binding: req.Binding,
			owner: pool, expires: exp, issued: now}
		g.pools[pool]++
		return true, nil
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return tok, exp, nil
}

// dropLocked forgets the token whose key (tokenKey) is key.
func (g *Authority) dropLocked(key string) {
	t, ok := g.tokens[key]
	if !ok {
		return
	}
	delete(g.tokens, key)
	if g.pools[t.owner]--; g.pools[t.owner] <= 0 {
		delete(g.pools, t.owner)
	}
}

// redeem checks and consumes a token. A token that does not match the call
// is refused and stays valid for the call it was issued for.
func (g *Authority) redeem(req Request, hash, tok string) error {
	now := g.opts.Now()
	key := tokenKey(tok)
	return g.syncTokens(func() (bool, error) {
		t, ok := g.tokens[key]
		if !ok {
			return false, denied("confirmation token is unknown or was already used (tokens are single-use); call again without it to get a new one")
		}
		if !now.Before(t.expires) {
			g.dropLocked(key)
			return true, denied("confirmation token expired at %s; call again without it to get a new one", t.expires.UTC().Format(time.RFC3339))
		}
		switch {
		case t.session != req.Session:
			return false, denied("confirmation token belongs to another session")
		case t.tool != req.Tool:
			return false, denied("confirmation token was issued for %s, not %s", t.tool, req.Tool)
		case t.hash != hash:
			return false, denied("confirmation token was issued for other arguments of %s; call again without it to approve these", req.Tool)
		case t.binding != req.Binding:
			// The token is spent: what it approved no longer exists.
			g.dropLocked(key)
			return true, denied("%s: the candidate changed since this approval was given, so the approved change is not the one that would be applied; call again without the token to review and approve the current change", req.Tool)
		}
		g.dropLocked(key)
		return true, nil
	})
}

func (g *Authority) purgeLocked(now time.Time) {
	for k, t := range g.tokens {
		if !now.Before(t.expires) {
			g.dropLocked(k)
		}
	}
	for n, exp := range g.nonces {
		if !now.Before(exp) {
			delete(g.nonces, n)
		}
	}
}
