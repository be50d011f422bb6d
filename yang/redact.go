package yang

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
)

// SecretLeaves are the local names (any module) of the leaves whose values
// are secrets: user passwords, keys, SNMP community strings, tokens. Diff,
// UnifiedDiff and Redact never show their values, and package redact masks
// them by default.
var SecretLeaves = []string{
	"password", "password-hashed", "encrypted-password", "cleartext-password",
	"secret", "secret-key", "shared-secret", "shared-key",
	"key", "key-string", "keystring", "auth-key", "priv-key", "private-key", "cleartext-private-key",
	"authentication-key", "md5-key", "pre-shared-key", "psk", "passphrase",
	"community", "community-name", "community-string", "auth-password", "priv-password",
	"token", "access-token", "bearer-token",
}

// secretMembers is SecretLeaves as a set, made on first use.
var secretMembers = sync.OnceValue(func() map[string]bool {
	set := make(map[string]bool, len(SecretLeaves))
	for _, name := range SecretLeaves {
		set[name] = true
	}
	return set
})

// redactKey keys the tags of redacted values: random per process, so a tag
// shows whether a secret changed without allowing offline guessing. It is
// made on first use (tests replace it with a fixed key).
var redactKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("yang: no randomness for the redaction key: " + err.Error())
	}
	return k
})

// IsSecret reports whether a member name (optionally module-qualified) is
// a secret leaf whose value must not be shown.
func IsSecret(member string) bool {
	if i := strings.IndexByte(member, ':'); i >= 0 {
		member = member[i+1:]
	}
	return secretMembers()[member]
}

// Redact returns v with the value of every secret leaf (user passwords,
// SNMP community strings) replaced by "[redacted:TAG]", where TAG is the
// same for equal secrets within this process and says nothing else. The
// input is not modified; unchanged subtrees are shared.
func Redact(v any) any {
	out, _ := maskSecrets(v)
	return out
}

func redactValue(v any) string {
	s, ok := scalarString(v)
	if !ok {
		s = jsonText(v)
	}
	m := hmac.New(sha256.New, redactKey())
	m.Write([]byte(s))
	return "[redacted:" + hex.EncodeToString(m.Sum(nil)[:4]) + "]"
}

// isLeafValue reports whether v is the value of a leaf or leaf-list (a
// scalar, or a list of scalars), not a container or list entries: a secret
// name masks values only (a list may be named like a secret leaf, as
// openconfig-system's SNMP "community" list is).
func isLeafValue(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return false
	case []any:
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				return false
			}
		}
	}
	return true
}

// maskMember returns the redacted value v of member name and whether it
// differs from v. When name is secret, a leaf value becomes a tag and a
// container has every leaf value below it tagged (ietf-key-chain's
// key-string container holds its hexadecimal-string); list entries are
// judged by their own members.
func maskMember(name string, v any) (any, bool) {
	if IsSecret(name) {
		if isLeafValue(v) {
			return redactValue(v), true
		}
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			return mapLeaves(m, func(leaf any) any { return redactValue(leaf) }), true
		}
	}
	return maskSecrets(v)
}

// maskSecrets returns the redacted value and whether it differs from v.
func maskSecrets(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if r, changed := maskMember(k, e); changed {
				if out == nil {
					out = copyMap(x)
				}
				out[k] = r
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range x {
			if r, changed := maskSecrets(e); changed {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = r
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}
