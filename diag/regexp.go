package diag

import (
	"regexp"
	"sync"
)

// allRegexps holds every expression made by lazyRE, for the test that
// compiles them all.
var allRegexps []func() *regexp.Regexp

// lazyRE returns expr compiled on first use. Each parser needs only its
// own expressions, so "netmcp parse ping" or a server handling one ping
// does not compile the others at start-up.
func lazyRE(expr string) func() *regexp.Regexp {
	f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
	allRegexps = append(allRegexps, f)
	return f
}
