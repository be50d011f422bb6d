package agent

import (
	"fmt"
	"regexp"
	"strings"
)

// Intent is a parsed intent.
type Intent struct {
	// Kind is what to verify: "loss".
	Kind string
	// Path is the devices in order: from, via..., to.
	Path []string
}

var (
	pathRe  = regexp.MustCompile(`(?i)\bfrom\s+([A-Za-z0-9._-]+)\s+to\s+([A-Za-z0-9._-]+)(?:\s+via\s+(.+))?`)
	viaSep  = regexp.MustCompile(`(?i)\s*(?:,|\band\b|\s)\s*`)
	lossRe  = regexp.MustCompile(`(?i)\b(loss|lossy|drops?|dropping|reachab\w*|verify)\b`)
	trimEnd = ".!?;:\"'"
)

// ParseIntent reads an intent such as "verify packet loss on the path from
// r1 to r3 via r2". Only path loss verification is understood; anything
// else is refused with the form it expects.
func ParseIntent(s string) (Intent, error) {
	m := pathRe.FindStringSubmatch(s)
	if m == nil || !lossRe.MatchString(s) {
		return Intent{}, fmt.Errorf("agent: intent %q not understood; expected \"verify packet loss on the path from A to B [via C[, D]]\"", s)
	}
	path := []string{m[1]}
	for _, v := range viaSep.Split(strings.Trim(strings.TrimSpace(m[3]), trimEnd), -1) {
		if v = strings.Trim(v, trimEnd); v != "" {
			path = append(path, v)
		}
	}
	path = append(path, strings.Trim(m[2], trimEnd))
	seen := map[string]bool{}
	for _, d := range path {
		if seen[d] {
			return Intent{}, fmt.Errorf("agent: intent path %v names %s twice", path, d)
		}
		seen[d] = true
	}
	return Intent{Kind: "loss", Path: path}, nil
}
