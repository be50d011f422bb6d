package redact

import (
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "******"

// MinKnownSecretLen is the shortest value masked wherever it appears;
// shorter secrets are masked only where the syntax shows them (masking
// every "7" of an output would destroy it).
const MinKnownSecretLen = 4

// Redactor masks secrets and remembers the values it masked. It is safe
// for concurrent use; the zero value is not usable, call New.
type Redactor struct {
	leaves   map[string]bool
	paths    map[string]bool
	prefixes map[string]bool // proper prefixes of the paths: /a and /a/b of /a/b/c

	mu    sync.RWMutex
	known []string // longest first
}

// Options configure a Redactor beyond the defaults.
type Options struct {
	// ExtraLeaves are more leaf names whose values are secret.
	ExtraLeaves []string
	// ExtraPaths are more schema paths (/module:a/b/c, list keys ignored)
	// whose values are secret.
	ExtraPaths []string
	// Secrets are values known to be secret from the start.
	Secrets []string
}

// DefaultLeaves are leaf names (local names, any module) holding secrets.
var DefaultLeaves = []string{
	"password", "password-hashed", "encrypted-password", "cleartext-password",
	"secret", "secret-key", "shared-secret", "shared-key",
	"key", "key-string", "keystring", "auth-key", "priv-key", "private-key", "cleartext-private-key",
	"authentication-key", "md5-key", "pre-shared-key", "psk", "passphrase",
	"community", "community-name", "community-string", "auth-password", "priv-password",
	"token", "access-token", "bearer-token",
}

// DefaultPaths are schema paths holding secrets whose leaf names do not
// say so (the SNMP community string of ietf-snmp is "text-name").
var DefaultPaths = []string{
	"/ietf-snmp:snmp/community/text-name",
	"/ietf-snmp:snmp/community/binary-name",
	"/openconfig-system:system/aaa/server-groups/server-group/servers/server/tacacs/config/secret-key",
}

// New returns a Redactor with the default leaves and paths plus opts.
func New(opts Options) *Redactor {
	r := &Redactor{leaves: map[string]bool{}, paths: map[string]bool{}, prefixes: map[string]bool{}}
	for _, l := range append(slices.Clone(DefaultLeaves), opts.ExtraLeaves...) {
		r.leaves[l] = true
	}
	for _, p := range append(slices.Clone(DefaultPaths), opts.ExtraPaths...) {
		key := schemaKey(p)
		r.paths[key] = true
		for i := 1; i < len(key); i++ {
			if key[i] == '/' {
				r.prefixes[key[:i]] = true
			}
		}
	}
	for _, s := range opts.Secrets {
		r.AddSecret(s)
	}
	return r
}

// AddSecret makes s masked wherever it appears from now on (when it is at
// least MinKnownSecretLen long and not made of mask characters only).
func (r *Redactor) AddSecret(s string) {
	if len(s) < MinKnownSecretLen || strings.Trim(s, "*") == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(r.known, s) {
		return
	}
	r.known = append(r.known, s)
	slices.SortFunc(r.known, func(a, b string) int { return len(b) - len(a) })
}

// Known returns how many secret values the Redactor knows.
func (r *Redactor) Known() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.known)
}

// String masks every known secret value in s.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return maskKnown(s, r.known)
}

// maskKnown replaces occurrences of the secrets until none is left (a
// replacement can reveal a new occurrence across its boundary; each round
// removes non-mask characters, so this ends).
func maskKnown(s string, known []string) string {
	for changed := true; changed; {
		changed = false
		for _, k := range known {
			if strings.Contains(s, k) {
				s = strings.ReplaceAll(s, k, Mask)
				changed = true
			}
		}
	}
	return s
}

// schemaKey normalises a schema path: prefixes dropped below the first
// element, predicates removed.
func schemaKey(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, part := range parts {
		if j := strings.IndexByte(part, '['); j >= 0 {
			part = part[:j]
		}
		if j := strings.IndexByte(part, '='); j >= 0 {
			part = part[:j]
		}
		if i > 0 {
			if j := strings.IndexByte(part, ':'); j >= 0 {
				part = part[j+1:]
			}
		}
		parts[i] = part
	}
	return "/" + strings.Join(parts, "/")
}
