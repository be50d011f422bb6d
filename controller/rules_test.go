package controller

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// rulesNamed returns the sweep's rules of these names, in the sweep's
// order.
func rulesNamed(t *testing.T, names ...string) []rule {
	t.Helper()
	var out []rule
	for _, ru := range sweepRules {
		if slices.Contains(names, ru.name) {
			out = append(out, ru)
		}
	}
	if len(out) != len(names) {
		t.Fatalf("rules %v: found %d", names, len(out))
	}
	return out
}

// TestSweepRules: every rule has a unique name, a check, and is named in
// docs/controller.md, which says what it does.
func TestSweepRules(t *testing.T) {
	doc, err := os.ReadFile("../docs/controller.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ru := range sweepRules {
		switch {
		case ru.name == "" || seen[ru.name]:
			t.Errorf("rule %q: no name or a name used twice", ru.name)
		case ru.check == nil:
			t.Errorf("rule %s: no check", ru.name)
		case !strings.Contains(string(doc), "`"+ru.name+"`"):
			t.Errorf("rule %s: not named in docs/controller.md", ru.name)
		}
		seen[ru.name] = true
	}
}
