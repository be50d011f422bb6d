package diag

import "fmt"

// ParseError is returned when a tool's output cannot be parsed.
type ParseError struct {
	Tool   string // "ping", "traceroute", "tracepath" or "dig"
	Reason string
}

func (e *ParseError) Error() string { return fmt.Sprintf("diag: %s: %s", e.Tool, e.Reason) }

func parseErr(tool, format string, args ...any) error {
	return &ParseError{Tool: tool, Reason: fmt.Sprintf(format, args...)}
}
