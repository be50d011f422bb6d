package dialect

import (
	"strings"
	"time"
)

// Dialect is one vendor CLI of the simulator.
type Dialect interface {
	// Name is the dialect's name as topologies, URLs and the MCP-NET
	// capability object spell it ("huawei-vrp", "cisco-iosxr").
	Name() string
	// Commands are the operational (show, display, ping...) commands,
	// matched in order by Match.
	Commands() []Command
	// Parser is the configuration line parser.
	Parser() *Parser
	// Render prints a configuration as the dialect's running
	// configuration; Parser reads it back into the same configuration.
	// changed and by are the last change's time and user (zero: none).
	// Secrets are printed as configured: redaction belongs to the MCP layer.
	Render(c Config, changed time.Time, by string) string
	// Syslog is the wording of the device's log messages.
	Syslog() Syslog
}

// Command is one operational command of a dialect. Keywords match in
// full or, as on the real CLIs, by a prefix of at least two letters.
type Command struct {
	Words []string
	Run   func(v *View, args []string) (string, error)
}

// Match finds the command words name and returns it with the remaining
// words, its arguments. Keywords typed in full win over abbreviations
// ("show ip route" before "show ipv4 ..."); nil when none matches.
func Match(table []Command, words []string) (*Command, []string) {
	for pass := 0; pass < 2; pass++ {
		for i := range table {
			c := &table[i]
			if matchWords(c.Words, words, pass == 1) {
				return c, words[len(c.Words):]
			}
		}
	}
	return nil, nil
}

// matchWords reports whether typed starts with the keywords kw, each in
// full or, with abbrev, by a prefix of at least two letters.
func matchWords(kw, typed []string, abbrev bool) bool {
	if len(typed) < len(kw) {
		return false
	}
	for j, w := range kw {
		t := strings.ToLower(typed[j])
		if t != w && !(abbrev && len(t) >= 2 && strings.HasPrefix(w, t)) {
			return false
		}
	}
	return true
}

// Cmd is the command of the keywords words (space separated) that run
// answers.
func Cmd(words string, run func(v *View, args []string) (string, error)) Command {
	return Command{Words: strings.Fields(words), Run: run}
}
