package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/internal/atomicfile"
	"github.com/netmcp/netmcp/internal/flock"
)

// NonceFile is the file, in Options.StateDir, that keeps the nonces of the
// signed consents already used, each until the consent could no longer be
// accepted anyway, so that a consent is not accepted twice even across a
// restart.
const NonceFile = "consent-nonces.json"

// nonceState is the content of NonceFile.
type nonceState struct {
	Version int `json:"version"`
	// Nonces maps "keyId/nonce" to the time after which it may be forgotten.
	Nonces map[string]time.Time `json:"nonces"`
}

const nonceVersion = 1

// lockNonces takes the flock of dir's nonce file: several processes may
// share the state directory, and each use of a nonce re-reads the file
// under it, so that a consent used through one is refused by the others.
func lockNonces(dir string) (*flock.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return flock.Lock(filepath.Join(dir, NonceFile+".lock"))
}

// loadNonces reads the used nonces of dir, dropping the expired ones (and
// rewriting the file without them). A missing file is an empty set.
func loadNonces(dir string, now time.Time) (map[string]time.Time, error) {
	if dir == "" {
		return map[string]time.Time{}, nil
	}
	fl, err := lockNonces(dir)
	if err != nil {
		return nil, fmt.Errorf("approval: used consent nonces: %w", err)
	}
	defer fl.Unlock()
	out, stale, err := readNonces(dir, now)
	if err == nil && stale {
		// Best effort: a stale entry left on disk is harmless and pruned
		// at the next write.
		_ = saveNonces(dir, out)
	}
	return out, err
}

// readNonces reads the used nonces of dir that have not expired; stale
// tells whether the file holds expired ones.
func readNonces(dir string, now time.Time) (out map[string]time.Time, stale bool, err error) {
	out = map[string]time.Time{}
	path := filepath.Join(dir, NonceFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("approval: used consent nonces: %w", err)
	}
	var st nonceState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, false, fmt.Errorf("approval: used consent nonces: %s: %w", path, err)
	}
	if st.Version != nonceVersion {
		return nil, false, fmt.Errorf("approval: used consent nonces: %s: unsupported version %d", path, st.Version)
	}
	for n, exp := range st.Nonces {
		if now.Before(exp) {
			out[n] = exp
		}
	}
	return out, len(out) < len(st.Nonces), nil
}

// saveNonces writes the used nonces to dir atomically (a temporary file,
// synced, renamed over NonceFile, the directory synced).
func saveNonces(dir string, nonces map[string]time.Time) error {
	b, err := json.Marshal(nonceState{Version: nonceVersion, Nonces: nonces})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, NonceFile), b, 0o600)
}

// useNonce records nonce as used until forget, or refuses it as a replay.
// With a state directory the nonce is durable before the consent is
// accepted; if it cannot be written the consent is refused.
func (g *Authority) useNonce(nonce string, forget, now time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.nonceErr != nil {
		return denied("used consent nonces cannot be read from the state directory (%v); consents are refused until this is repaired", g.nonceErr)
	}
	if dir := g.opts.StateDir; dir != "" {
		// Another process sharing the directory may have used nonces
		// since this one read them.
		fl, err := lockNonces(dir)
		if err != nil {
			return denied("the used consent nonces in the state directory cannot be locked (%v); refused", err)
		}
		defer fl.Unlock()
		disk, _, err := readNonces(dir, now)
		if err != nil {
			return denied("used consent nonces cannot be read from the state directory (%v); refused", err)
		}
		for n, exp := range disk {
			g.nonces[n] = exp
		}
	}
	g.purgeLocked(now)
	if _, seen := g.nonces[nonce]; seen {
		return denied("consent nonce %q was already used (replay)", nonce)
	}
	g.nonces[nonce] = forget
	if g.opts.StateDir != "" {
		if err := saveNonces(g.opts.StateDir, g.nonces); err != nil {
			delete(g.nonces, nonce)
			return denied("the consent's nonce cannot be recorded in the state directory (%v), so it could be replayed; refused", err)
		}
	}
	return nil
}
