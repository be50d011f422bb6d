package diag

import (
	"testing"

	"github.com/netmcp/netmcp/internal/lazyre"
)

// TestRegexpsCompile compiles every lazily compiled expression, so a bad
// one fails here rather than on the first input that reaches it.
func TestRegexpsCompile(t *testing.T) {
	n, err := lazyre.CompileAll()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 { // the parsers keep a few for rare lines
		t.Fatal("no expression registered: the parsers' lazy expressions go unchecked")
	}
}
