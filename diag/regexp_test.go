package diag

import "testing"

// TestRegexpsCompile compiles every lazily compiled expression, so a bad
// one fails here rather than on the first input that reaches it.
func TestRegexpsCompile(t *testing.T) {
	if len(allRegexps) < 30 {
		t.Fatalf("only %d expressions registered", len(allRegexps))
	}
	for i, re := range allRegexps {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("expression %d: %v", i, r)
				}
			}()
			re()
		}()
	}
}
