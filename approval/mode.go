package approval

import "fmt"

// Mode says when a tool needs approval.
type Mode string

// Modes of a policy.
const (
	// Always: every call of the tool needs approval.
	Always Mode = "always"
	// Writes: calls that change state need approval (the default).
	Writes Mode = "writes"
	// Never: the tool never asks.
	Never Mode = "never"
)

// ParseMode checks a mode name from a policy file.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Always, Writes, Never:
		return m, nil
	}
	return "", fmt.Errorf("approval: unknown mode %q (want always, writes or never)", s)
}

// Needs reports whether a call needs approval under mode m; write tells
// whether the call changes state.
func (m Mode) Needs(write bool) bool {
	switch m {
	case Always:
		return true
	case Never:
		return false
	default:
		return write
	}
}
