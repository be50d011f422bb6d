package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/internal/atomicfile"
	"github.com/netmcp/netmcp/internal/flock"
)

// TokenFile is the file, in Options.StateDir, that keeps the confirmation
// tokens issued and not yet redeemed, so that a token issued by one process
// is redeemed through another sharing the state directory, or after a
// restart. Tokens are stored by their SHA-256 digest: the file never holds
// a token a reader could present.
const TokenFile = "approval-tokens.json"

const tokenVersion = 1

// tokenState is the content of TokenFile.
type tokenState struct {
	Version int `json:"version"`
	// Tokens maps the hex SHA-256 of a token to what it was issued for.
	Tokens map[string]storedToken `json:"tokens"`
}

// storedToken is a pendingToken as TokenFile holds it.
type storedToken struct {
	Session string    `json:"session"`
	Tool    string    `json:"tool"`
	Hash    string    `json:"argumentsHash"`
	Binding string    `json:"binding,omitempty"`
	Owner   string    `json:"owner"`
	Issued  time.Time `json:"issued"`
	Expires time.Time `json:"expires"`
}

// tokenKey is how a token is known in memory and on disk: its digest.
func tokenKey(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// syncTokens runs fn with g.mu held and the pending tokens current. With a
// state directory, it holds the token file's lock, replaces the tokens in
// memory with the file's (another process may have issued or redeemed some
// since), and writes them back when fn changed them (changed reports it).
// A file that cannot be read or written refuses the operation: a token
// approves a change, so the gate does not guess which ones are valid.
func (g *Authority) syncTokens(fn func() (changed bool, err error)) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	dir := g.opts.StateDir
	if dir == "" {
		_, err := fn()
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return denied("the approval tokens in the state directory cannot be kept (%v); refused", err)
	}
	fl, err := flock.Lock(filepath.Join(dir, TokenFile+".lock"))
	if err != nil {
		return denied("the approval tokens in the state directory cannot be locked (%v); refused", err)
	}
	defer fl.Unlock()
	disk, err := readTokens(dir)
	if err != nil {
		return denied("%v; refused", err)
	}
	g.tokens, g.pools = disk, map[string]int{}
	for _, t := range disk {
		g.pools[t.owner]++
	}
	before := len(g.tokens)
	changed, err := fn()
	if changed || len(g.tokens) != before {
		if werr := writeTokens(dir, g.tokens); werr != nil {
			return denied("the approval tokens cannot be written to the state directory (%v); refused", werr)
		}
	}
	return err
}

// readTokens reads dir's pending tokens; a missing file is none.
func readTokens(dir string) (map[string]pendingToken, error) {
	out := map[string]pendingToken{}
	path := filepath.Join(dir, TokenFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("approval: pending tokens: %w", err)
	}
	var st tokenState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("approval: pending tokens: %s: %w", path, err)
	}
	if st.Version != tokenVersion {
		return nil, fmt.Errorf("approval: pending tokens: %s: unsupported version %d", path, st.Version)
	}
	for k, t := range st.Tokens {
		out[k] = pendingToken{session: t.Session, tool: t.Tool, hash: t.Hash, binding: t.Binding,
			owner: t.Owner, issued: t.Issued, expires: t.Expires}
	}
	return out, nil
}

// writeTokens replaces dir's token file with tokens, atomically.
func writeTokens(dir string, tokens map[string]pendingToken) error {
	st := tokenState{Version: tokenVersion, Tokens: make(map[string]storedToken, len(tokens))}
	for k, t := range tokens {
		st.Tokens[k] = storedToken{Session: t.session, Tool: t.tool, Hash: t.hash, Binding: t.binding,
			Owner: t.owner, Issued: t.issued, Expires: t.expires}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, TokenFile), b, 0o600)
}
