// Package lazyre compiles regular expressions on first use.
//
// A package-level regexp.MustCompile runs at program start in every binary
// that links the package, whether or not the expression is ever used. netmcp
// is one binary with many commands, and a short-lived one such as
// "netmcp parse ping" must not pay for the expressions of the server, the
// data model and the other parsers. An expression made with New costs one
// small allocation until its first use, and is compiled once.
//
// Every expression is registered, so that a test can compile them all with
// CompileAll and a bad one fails in CI rather than on the first input that
// reaches it.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. It is safe for
// concurrent use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns expr, to be compiled on its first use. Like
// regexp.MustCompile, a bad expression panics, but on first use.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// Re returns the compiled expression, compiling it the first time.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }

// CompileAll compiles every expression made by New in this program so far
// and returns how many there are, or the first that does not compile.
func CompileAll() (int, error) {
	mu.Lock()
	list := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range list {
		if _, err := regexp.Compile(r.expr); err != nil {
			return len(list), fmt.Errorf("lazyre: %q: %w", r.expr, err)
		}
	}
	return len(list), nil
}
