package redact

import (
	"math/rand"
	"strings"
	"testing"
)

// TestSecretReplacerMatchesReplacer: the two-byte filter never hides a
// secret: on random strings built from pieces of the secrets, the result
// is the plain strings.Replacer's.
func TestSecretReplacerMatchesReplacer(t *testing.T) {
	secrets := []string{"Huawei@123", "N3tOps!2025", "s3cr3t-ro", "r3-ro-long", "xr-community-ro", "\xff\xfesecret"}
	var pairs []string
	for _, s := range secrets {
		pairs = append(pairs, s, Mask)
	}
	m := newSecretReplacer(secrets, pairs)
	plain := strings.NewReplacer(pairs...)
	pieces := append([]string{"", "a", "GigabitEthernet0/0/0", "Hu", "3t", "ro", "\xff", "é", " "}, secrets...)
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(6); n > 0; n-- {
			p := pieces[rng.Intn(len(pieces))]
			if len(p) > 1 && rng.Intn(3) == 0 {
				p = p[:rng.Intn(len(p))] // a cut secret must stay
			}
			b.WriteString(p)
		}
		s := b.String()
		if got, want := m.Replace(s), plain.Replace(s); got != want {
			t.Fatalf("Replace(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestSecretReplacerNoAllocation: a string without a secret costs no
// allocation (the plain Replacer copies it twice).
func TestSecretReplacerNoAllocation(t *testing.T) {
	m := newSecretReplacer([]string{"Huawei@123"}, []string{"Huawei@123", Mask})
	s := "GigabitEthernet0/0/0/1 is up, line protocol is up"
	if n := testing.AllocsPerRun(100, func() { _ = m.Replace(s) }); n != 0 {
		t.Errorf("Replace of a string without a secret: %v allocations, want 0", n)
	}
	if got := m.Replace("pw Huawei@123!"); got != "pw "+Mask+"!" {
		t.Errorf("Replace = %q", got)
	}
}
