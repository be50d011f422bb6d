package dialect

import (
	"fmt"
	"strings"

	"github.com/netmcp/netmcp/lab/topology"
	"github.com/netmcp/netmcp/netproto"
)

// Mode is one level of the configuration mode stack.
type Mode struct {
	// Kind names the mode's rules in a Parser (top, interface, vlan, acl,
	// vrf, ospf, bgp...); the dialect chooses the names.
	Kind string
	Name string // interface, ACL, VRF, user, area or peer name
	VLAN int
	V6   bool   // an address family mode of IPv6
	VRF  string // a static-route VRF
}

// Parser is a dialect's configuration line parser: the word that negates
// a command, the prefixes of comment lines, and per mode the rules that
// parse a line, tried in order.
type Parser struct {
	// Name is the dialect's name, for error messages.
	Name string
	// Negation is the word before a command that removes it ("no", "undo").
	Negation string
	// Comments are prefixes of comment lines besides "!" (every dialect
	// skips those, and a lone "#").
	Comments []string
	// Common rules are tried first in every mode (leave the mode, return
	// to the top...).
	Common []Rule
	// Modes holds the rules of each mode, by Mode.Kind.
	Modes map[string][]Rule
}

// Rule is one configuration command of a mode. A line matches when its
// words (the negation removed) start with Words, each a keyword or
// alternatives "a|b", and their number fits Len, Min and Max; Run then
// parses it and reports handled=false when the line is not this rule's
// after all, so that the next rule is tried.
type Rule struct {
	// Words are the leading keywords, space separated, each a word,
	// alternatives "a|b" or "*" for any word: "ip|ipv6 route-static",
	// "peer * as-number".
	Words string
	// Len is the exact number of words (0: any), Min the least (0: those
	// of Words) and Max the most (0: no limit).
	Len, Min, Max int
	// NegAny lets the negated form have any number of words ("undo mtu").
	NegAny bool
	// Run applies the line.
	Run func(l *Line) (handled bool, err error)
}

// matches reports whether the words of l fit the rule.
func (r *Rule) matches(l *Line) bool {
	slots := strings.Fields(r.Words)
	if len(l.W) < len(slots) {
		return false
	}
	for i, s := range slots {
		if !alternative(s, l.W[i]) {
			return false
		}
	}
	if r.NegAny && l.Neg {
		return true
	}
	n := len(l.W)
	return (r.Len == 0 || n == r.Len) && n >= r.Min && (r.Max == 0 || n <= r.Max)
}

// alternative reports whether w is one of the "|"-separated words of s,
// or s is "*" (any word).
func alternative(s, w string) bool {
	if s == "*" {
		return true
	}
	for a := range strings.SplitSeq(s, "|") {
		if a == w {
			return true
		}
	}
	return false
}

// Line is one configuration line as a rule sees it.
type Line struct {
	S    *Session
	C    *Config
	M    Mode     // the mode the line is tried in
	W    []string // the words, the negation removed
	Neg  bool     // the line was negated ("no ...", "undo ...")
	Text string   // the line as typed, trimmed
}

// Bad rejects the line: handled, with an error naming the dialect and why.
func (l *Line) Bad(why string) (bool, error) {
	return true, BadArgs(l.S.p.Name, l.Text, why)
}

// Fail is Bad with err's text.
func (l *Line) Fail(err error) (bool, error) { return l.Bad(err.Error()) }

// Arg returns word i, or "" when the line is shorter.
func (l *Line) Arg(i int) string {
	if i < len(l.W) {
		return l.W[i]
	}
	return ""
}

// ChangeRoute adds a static route, or for a negated line removes it (only
// the routes with its next hop when the line names one).
func (l *Line) ChangeRoute(r topology.StaticRoute) (bool, error) {
	if l.Neg {
		exact := r.NextHop != "" || r.Interface != "" || r.Discard
		if l.C.RemoveRoute(r, exact) == 0 {
			return l.Bad("no such static route")
		}
		return true, nil
	}
	l.C.AddRoute(r)
	return true, nil
}

// Done reports a line handled without error.
func Done() (bool, error) { return true, nil }

// Pass reports a line that is not the rule's: the next rule, then the
// parent mode, is tried.
func Pass() (bool, error) { return false, nil }

// line parses one line in mode m: the common rules, then the mode's.
func (p *Parser) line(s *Session, m Mode, words []string, text string) (bool, error) {
	l := &Line{S: s, C: s.C, M: m, W: words, Text: text}
	if words[0] == p.Negation {
		l.W, l.Neg = words[1:], true
		if len(l.W) == 0 {
			return false, nil
		}
	}
	for _, rules := range [][]Rule{p.Common, p.Modes[m.Kind]} {
		for i := range rules {
			if !rules[i].matches(l) {
				continue
			}
			if handled, err := rules[i].Run(l); handled || err != nil {
				return handled, err
			}
		}
	}
	return false, nil
}

// isComment reports whether a trimmed line is a comment.
func (p *Parser) isComment(trim string) bool {
	if trim == "" || trim == "#" || strings.HasPrefix(trim, "!") {
		return true
	}
	for _, c := range p.Comments {
		if strings.HasPrefix(trim, c) {
			return true
		}
	}
	return false
}

// Session applies configuration lines of one dialect to a Config and
// keeps the stack of configuration modes.
type Session struct {
	C     *Config
	p     *Parser
	stack []Mode
}

// NewSession starts a session in the top mode.
func NewSession(c *Config, p *Parser) *Session {
	return &Session{C: c, p: p, stack: []Mode{{Kind: "top"}}}
}

// Apply parses lines. Indented text (a configuration file) uses the
// indentation: a line starting in column 0 returns to the top mode.
// Flat lines (typed commands) fall back from the current mode to its
// parents until one accepts the command, as IOS and VRP do.
func (s *Session) Apply(lines []string) error {
	structured := false
	for _, l := range lines {
		if len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
			structured = true
			break
		}
	}
	for i, raw := range lines {
		line := strings.TrimRight(raw, " \t\r")
		trim := strings.TrimSpace(line)
		if s.p.isComment(trim) {
			continue
		}
		if structured && line[0] != ' ' && line[0] != '\t' {
			s.stack = s.stack[:1]
		}
		if err := s.line(trim); err != nil {
			if e, ok := err.(*netproto.Error); ok {
				if len(lines) > 1 {
					e.Detail = fmt.Sprintf("line %d: %s", i+1, e.Detail)
				}
				return e
			}
			return netproto.Errorf(netproto.CodeConfigIncompatible, "line %d %q: %v", i+1, trim, err)
		}
	}
	return nil
}

func (s *Session) line(line string) error {
	words := strings.Fields(line)
	for depth := len(s.stack) - 1; depth >= 0; depth-- {
		handled, err := s.p.line(s, s.stack[depth], words, line)
		if err != nil {
			return err
		}
		if handled {
			return nil
		}
		if depth > 0 {
			s.stack = s.stack[:depth] // leave the mode that did not know the command
		}
	}
	return netproto.Errorf(netproto.CodeConfigIncompatible,
		"unsupported configuration command %q for CLI dialect %s", line, s.p.Name)
}

// Enter pushes a mode above the current one.
func (s *Session) Enter(m Mode) { s.stack = append(s.stack, m) }

// Exit leaves the current mode.
func (s *Session) Exit() {
	if len(s.stack) > 1 {
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// Top returns to the top mode.
func (s *Session) Top() { s.stack = s.stack[:1] }

// BadArgs is the error of a configuration line a dialect refuses.
func BadArgs(dialect, line, why string) error {
	return netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %q: %s", dialect, line, why)
}
