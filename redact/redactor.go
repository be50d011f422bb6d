package redact

import (
	"slices"
	"strings"
	"sync"

	"github.com/netmcp/netmcp/yang"
)

// Mask replaces every secret.
const Mask = "******"

// MinKnownSecretLen is the shortest value masked wherever it appears;
// shorter secrets are masked only where the syntax shows them (masking
// every "7" of an output would destroy it).
const MinKnownSecretLen = 4

// Redactor masks secrets: by syntax in configuration text, by leaf name
// and schema path in YANG trees, and by value (the known secrets)
// everywhere. Masking never teaches it a secret: the known secrets are
// only those given to AddSecret, LearnConfig and LearnTree, which callers
// feed with the device's own configuration, never with what a client sent
// (a masker that learnt from requests could be taught to hide any word,
// and would confirm guesses). It is safe for concurrent use; the zero value
// is not usable, call New.
type Redactor struct {
	leaves   map[string]bool
	paths    map[string]bool
	prefixes map[string]bool // proper prefixes of the paths: /a and /a/b of /a/b/c

	mu    sync.RWMutex
	known []string        // longest first
	set   map[string]bool // the same, for membership
	repl  *secretReplacer // every known secret -> Mask; nil when none
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

// DefaultLeaves are leaf names (local names, any module) holding secrets:
// the YANG trees' own list (yang.SecretLeaves), so that what yang never
// shows in a diff and what a Redactor masks are the same leaves.
var DefaultLeaves = yang.SecretLeaves

// DefaultPaths are schema paths holding secrets whose leaf names do not
// say so (the SNMP community string of ietf-snmp is "text-name").
var DefaultPaths = []string{
	"/ietf-snmp:snmp/community/text-name",
	"/ietf-snmp:snmp/community/binary-name",
	"/openconfig-system:system/aaa/server-groups/server-group/servers/server/tacacs/config/secret-key",
}

// New returns a Redactor with the default leaves and paths plus opts.
func New(opts Options) *Redactor {
	r := &Redactor{leaves: map[string]bool{}, paths: map[string]bool{}, prefixes: map[string]bool{}, set: map[string]bool{}}
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
	r.addSecrets(opts.Secrets)
	return r
}

// SecretLeaf reports whether leaves with the local name local (any module)
// hold secrets.
func (r *Redactor) SecretLeaf(local string) bool {
	if i := strings.IndexByte(local, ':'); i >= 0 {
		local = local[i+1:]
	}
	return r.leaves[local]
}

// AddSecret makes s masked wherever it appears from now on (when it is at
// least MinKnownSecretLen long and not made of mask characters only).
func (r *Redactor) AddSecret(s string) {
	r.addSecrets([]string{s})
}

// addSecrets adds several secrets and rebuilds the replacer once.
func (r *Redactor) addSecrets(ss []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, s := range ss {
		if len(s) < MinKnownSecretLen || strings.Trim(s, "*") == "" || r.set[s] {
			continue
		}
		r.set[s] = true
		r.known = append(r.known, s)
		added = true
	}
	if !added {
		return
	}
	// Longest first: where two secrets start at the same place, the
	// replacer takes the first pair given, so the longer one is masked whole.
	slices.SortStableFunc(r.known, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.known))
	for _, k := range r.known {
		pairs = append(pairs, k, Mask)
	}
	r.repl = newSecretReplacer(r.known, pairs)
}

// Known returns how many secret values the Redactor knows.
func (r *Redactor) Known() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.known)
}

// String masks every known secret value in s. Its cost is linear in the
// length of s (a filter of the secrets' first two bytes, then, when it may
// hold one, a pass of a strings.Replacer over all known secrets),
// whatever the number of secrets.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	repl := r.repl
	r.mu.RUnlock()
	return maskKnown(s, repl)
}

// StringKeeping masks every known secret value in s except a secret that
// lies wholly inside an occurrence of one of keep, which is left as it is.
// The server keeps what a caller sent: a caller already knows its own
// input, and masking a secret inside an echo of it would confirm that the
// input guessed a secret. A secret that only overlaps an echo is masked,
// and the echo with it: the caller did not send its other bytes. Strings
// of keep shorter than MinKnownSecretLen are ignored.
//
// When s holds no known secret this costs one replacer pass; otherwise it
// also searches s for each known secret and kept string.
func (r *Redactor) StringKeeping(s string, keep []string) string {
	r.mu.RLock()
	repl, known := r.repl, r.known
	r.mu.RUnlock()
	masked := maskKnown(s, repl)
	if masked == s || len(keep) == 0 {
		return masked // no secret in s: nothing to keep (the usual case)
	}
	kept := keptSpans(s, keep)
	if len(kept) == 0 {
		return masked
	}
	hide := make([]bool, len(s)) // bytes of s to mask
	for _, k := range known {
		for from := 0; ; {
			i := strings.Index(s[from:], k)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(k)
			if !insideOne(kept, start, end) {
				for j := start; j < end; j++ {
					hide[j] = true
				}
			}
			from = start + 1
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !hide[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		for i < len(s) && hide[i] {
			i++
		}
		b.WriteString(Mask)
	}
	return b.String()
}

// keptSpans returns the occurrences of the kept strings in s, leftmost and
// longest first, not overlapping.
func keptSpans(s string, keep []string) [][2]int {
	var ks []string
	for _, k := range keep {
		if len(k) >= MinKnownSecretLen {
			ks = append(ks, k)
		}
	}
	slices.SortStableFunc(ks, func(a, b string) int { return len(b) - len(a) })
	var out [][2]int
	for from := 0; from < len(s); {
		at, n := -1, 0
		for _, k := range ks {
			if i := strings.Index(s[from:], k); i >= 0 && (at < 0 || from+i < at) {
				at, n = from+i, len(k)
			}
		}
		if at < 0 {
			break
		}
		out = append(out, [2]int{at, at + n})
		from = at + n
	}
	return out
}

// insideOne reports whether [start, end) lies wholly inside one span.
func insideOne(spans [][2]int, start, end int) bool {
	for _, sp := range spans {
		if sp[0] <= start && end <= sp[1] {
			return true
		}
	}
	return false
}

// maskKnown replaces occurrences of the secrets until none is left (a
// replacement can reveal a new occurrence across its boundary when a
// secret contains '*'; each round removes non-mask characters, so this
// ends, and most texts take one round).
func maskKnown(s string, repl *secretReplacer) string {
	if repl == nil {
		return s
	}
	for {
		out := repl.Replace(s)
		if out == s {
			return s
		}
		s = out
	}
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
