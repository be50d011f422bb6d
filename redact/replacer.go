package redact

import "strings"

// secretReplacer masks the known secrets of a Redactor: a strings.Replacer
// over them, behind a filter of the first two bytes of every secret. Most
// strings a device returns hold no secret, and the filter tells so in one
// pass without allocating, where the Replacer would copy the string twice
// (its generic algorithm has no fast path for "nothing replaced"). It is
// immutable once built.
type secretReplacer struct {
	r *strings.Replacer
	// pairs has bit a<<8|b set when some secret starts with bytes a, b
	// (every known secret is at least MinKnownSecretLen long).
	pairs [1 << 16 / 64]uint64
}

// newSecretReplacer builds the replacer of secrets (pairs are the
// strings.NewReplacer arguments: each secret and its mask).
func newSecretReplacer(secrets, pairs []string) *secretReplacer {
	m := &secretReplacer{r: strings.NewReplacer(pairs...)}
	for _, s := range secrets {
		if len(s) >= 2 {
			i := int(s[0])<<8 | int(s[1])
			m.pairs[i>>6] |= 1 << (i & 63)
		}
	}
	return m
}

// mayHold tells whether s can hold a secret: false means it holds none.
func (m *secretReplacer) mayHold(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		j := int(s[i])<<8 | int(s[i+1])
		if m.pairs[j>>6]&(1<<(j&63)) != 0 {
			return true
		}
	}
	return false
}

// Replace returns s with every known secret masked (s itself when it
// holds none).
func (m *secretReplacer) Replace(s string) string {
	if !m.mayHold(s) {
		return s
	}
	return m.r.Replace(s)
}
