// Package clipipe parses and applies the output filters that follow a show
// command on network CLIs: "| include RE", "| exclude RE" and "| begin RE"
// (keywords by any prefix, as on the devices: "| i RE", "| inc RE").
//
// The MCP server applies them itself, to the output the caller may see
// (secrets already masked), rather than letting the device filter the raw
// output: a filter that ran on unmasked text would tell a caller, line by
// line, whether a secret matches a regular expression.
package clipipe

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxPattern is the longest regular expression a filter may carry.
const MaxPattern = 512

// Kind is what a filter keeps.
type Kind string

// Filter kinds.
const (
	Include Kind = "include" // lines matching the expression
	Exclude Kind = "exclude" // lines not matching it
	Begin   Kind = "begin"   // from the first matching line on
)

// Filter is one parsed output filter.
type Filter struct {
	Kind    Kind
	Pattern *regexp.Regexp
}

// Split separates a command from its output filter at the first "|". It
// returns the bare command and the filter, or a nil filter when the command
// has none. A "|" with no known filter after it, or a bad expression, is an
// error: the command is not run with a filter silently dropped.
func Split(command string) (string, *Filter, error) {
	cmd, pipe, ok := strings.Cut(command, "|")
	if !ok {
		return command, nil, nil
	}
	word, pat, _ := strings.Cut(strings.TrimSpace(pipe), " ")
	pat = strings.TrimSpace(pat)
	var kind Kind
	for _, k := range []Kind{Include, Exclude, Begin} {
		if word != "" && strings.HasPrefix(string(k), strings.ToLower(word)) {
			kind = k
			break
		}
	}
	if kind == "" {
		return "", nil, fmt.Errorf("unsupported output filter %q (supported: include, exclude, begin)", clip(word, 32))
	}
	if pat == "" {
		return "", nil, fmt.Errorf("output filter %s needs a regular expression", kind)
	}
	if len(pat) > MaxPattern {
		return "", nil, fmt.Errorf("output filter %s: regular expression of %d bytes (at most %d)", kind, len(pat), MaxPattern)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return "", nil, fmt.Errorf("output filter %s: bad regular expression: %v", kind, err)
	}
	return strings.TrimSpace(cmd), &Filter{Kind: kind, Pattern: re}, nil
}

// Apply returns the lines of out the filter keeps, each ending in a
// newline; "" when none is kept. A nil filter keeps everything.
func (f *Filter) Apply(out string) string {
	if f == nil {
		return out
	}
	var b strings.Builder
	started := false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		match := f.Pattern.MatchString(l)
		keep := false
		switch f.Kind {
		case Include:
			keep = match
		case Exclude:
			keep = !match
		case Begin:
			started = started || match
			keep = started
		}
		if keep {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// String returns the filter as written after the command: "| include RE".
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	return "| " + string(f.Kind) + " " + f.Pattern.String()
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
