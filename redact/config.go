package redact

import (
	"fmt"
	"strings"
)

// Dialects understood by Config ("" applies the rules of every dialect).
const (
	DialectHuaweiVRP  = "huawei-vrp"
	DialectCiscoIOSXR = "cisco-iosxr"
)

// triggers are keywords after which a secret follows, in both dialects:
//
//	huawei-vrp:  password cipher X; local-user u password irreversible-cipher X;
//	             snmp-agent community read cipher X; pre-shared-key cipher X;
//	             radius-server shared-key cipher X; ospf authentication-mode md5 1 cipher X;
//	             snmp-agent usm-user v3 u authentication-mode sha cipher X privacy-mode aes128 cipher Y
//	cisco-iosxr: username u secret 10 X; password 7 X; snmp-server community X RO;
//	             key-string password X; pre-shared-key X; message-digest-key 1 md5 encrypted X;
//	             snmp-server user u g v3 auth sha encrypted X priv aes 128 encrypted Y
var triggers = map[string]bool{
	"password": true, "secret": true, "key-string": true, "pre-shared-key": true,
	"shared-key": true, "authentication-key": true, "auth-key": true, "message-digest-key": true,
	"authentication-mode": true, "privacy-mode": true, "auth-password": true, "priv-password": true,
}

// snmpTriggers introduce a secret only on SNMP lines (first word snmp-agent
// or snmp-server): a BGP "set community" is no secret.
var snmpTriggers = map[string]bool{"community": true, "community-map": true, "auth": true, "priv": true}

// keyContexts are first words of lines where a bare "key" introduces a
// secret (radius-server key 7 X, tacacs-server key X, crypto isakmp key X).
var keyContexts = []string{"radius", "tacacs", "crypto", "isakmp", "hwtacacs"}

// noTypeNumber are triggers directly followed by their value, never by
// an encryption type or key id: in "snmp-server community 123 RO" the
// community is 123.
var noTypeNumber = map[string]bool{"community": true, "community-map": true, "pre-shared-key": true, "shared-key": true}

// modeTriggers take a mode word, not a secret, when it is their only
// argument (user-interface "authentication-mode password").
var modeTriggers = map[string]bool{"authentication-mode": true, "privacy-mode": true}

// introducers announce that the next token is the secret itself.
var introducers = map[string]bool{
	"cipher": true, "simple": true, "irreversible-cipher": true, "encrypted": true,
	"clear": true, "plain": true, "password": true, "hashed": true,
}

// modifiers may stand between a trigger and its secret; they are skipped
// only when another token follows them.
var modifiers = map[string]bool{
	"read": true, "write": true, "md5": true, "sha": true, "sha1": true, "sha-1": true, "sha256": true,
	"sha2-256": true, "sha2-384": true, "sha2-512": true, "hmac-md5": true, "hmac-sha256": true,
	"hmac-sha1-96": true, "aes": true, "aes128": true, "aes192": true, "aes256": true, "des": true,
	"des56": true, "3des": true, "v3": true, "keychain": true, "local": true, "remote": true,
}

// freeText are first words of lines that carry prose, never syntax.
var freeText = map[string]bool{"description": true, "remark": true, "alias": true, "banner": true}

// notSecret are words after a trigger that show the line carries no
// secret (snmp-agent community complexity-check disable).
var notSecret = map[string]bool{"complexity-check": true, "policy": true, "min-length": true}

// stopWords follow a secret, never stand for one: in "crypto isakmp key 7
// address 192.0.2.9" the key is 7.
var stopWords = map[string]bool{"address": true, "ro": true, "rw": true, "context": true,
	"host": true, "view": true, "systemowner": true, "sdrowner": true, "ipv4": true, "ipv6": true}

// maxSkip bounds the modifiers skipped after a trigger.
const maxSkip = 4

// Config masks the secrets of configuration text in dialect (huawei-vrp,
// cisco-iosxr, or "" for both): the values its syntax shows as secrets,
// then every known secret. It learns nothing: call LearnConfig with the
// device's own configuration for that. Line structure and white space are
// kept.
func (r *Redactor) Config(text, dialect string) (string, error) {
	return r.config(text, dialect, true)
}

// ConfigSyntax masks only the values the syntax of configuration text
// shows as secrets, not the known ones: the masking of text a caller may
// have written (an error echoing its input), where masking a known value
// would confirm a guess.
func (r *Redactor) ConfigSyntax(text, dialect string) (string, error) {
	return r.config(text, dialect, false)
}

func (r *Redactor) config(text, dialect string, known bool) (string, error) {
	if err := checkDialect(dialect); err != nil {
		return "", err
	}
	var repl *secretReplacer
	if known {
		r.mu.RLock()
		repl = r.repl
		r.mu.RUnlock()
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		lines[i] = applySpans(line, secretSpans(line))
	}
	// One pass of the known secrets over the whole text (a secret is one
	// token: it never spans lines).
	return maskKnown(strings.Join(lines, "\n"), repl), nil
}

// LearnConfig makes known the secrets that the syntax of configuration
// text shows (the device's running or candidate configuration), so that
// they are masked wherever they appear later, even where no syntax shows
// them.
func (r *Redactor) LearnConfig(text, dialect string) error {
	if err := checkDialect(dialect); err != nil {
		return err
	}
	var found []string
	for _, line := range strings.Split(text, "\n") {
		for _, s := range secretSpans(line) {
			found = append(found, line[s.start:s.end])
		}
	}
	r.addSecrets(found)
	return nil
}

func checkDialect(dialect string) error {
	switch dialect {
	case "", DialectHuaweiVRP, DialectCiscoIOSXR:
		return nil
	}
	return fmt.Errorf("redact: unknown CLI dialect %q (want %s or %s)", dialect, DialectHuaweiVRP, DialectCiscoIOSXR)
}

// span is a byte range of a line.
type span struct{ start, end int }

// tokens splits line on spaces and tabs, keeping positions.
func tokens(line string) []span {
	var out []span
	start := -1
	for i := 0; i <= len(line); i++ {
		if i == len(line) || line[i] == ' ' || line[i] == '\t' {
			if start >= 0 {
				out = append(out, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}

// secretSpans returns the tokens of line that are secrets.
func secretSpans(line string) []span {
	toks := tokens(line)
	word := func(i int) string { return strings.ToLower(line[toks[i].start:toks[i].end]) }
	keyLine, snmpLine := false, false
	if len(toks) > 0 && freeText[word(0)] {
		return nil
	}
	if len(toks) > 0 {
		first := word(0)
		snmpLine = strings.HasPrefix(first, "snmp")
		for _, c := range keyContexts {
			if strings.Contains(first, c) {
				keyLine = true
			}
		}
	}
	var out []span
	for i := 0; i < len(toks); i++ {
		w := word(i)
		if !triggers[w] && !(keyLine && w == "key") && !(snmpLine && snmpTriggers[w]) {
			continue
		}
		if j := secretAfter(toks, word, i); j >= 0 {
			out = append(out, toks[j])
			i = j
		}
	}
	return out
}

// secretAfter returns the index of the secret token following the trigger
// at i, or -1.
func secretAfter(toks []span, word func(int) string, i int) int {
	n := len(toks)
	j := i + 1
	if j < n && notSecret[word(j)] {
		return -1
	}
	trigger := word(i)
	if j == n-1 && modeTriggers[trigger] {
		return -1
	}
	lastSkipped := -1
	for skipped := 0; j < n; j++ {
		w := word(j)
		more := j+1 < n
		switch {
		case introducers[w] && more:
			return j + 1
		case (modifiers[w] || (isTypeNumber(w) && !noTypeNumber[trigger])) && more && skipped < maxSkip:
			skipped++
			lastSkipped = j
			continue
		case stopWords[w] && lastSkipped >= 0 && more:
			return lastSkipped
		}
		return j
	}
	return -1
}

// isTypeNumber reports a short number: an encryption type (0, 5, 7, 8, 9,
// 10) or a key id (message-digest-key 1).
func isTypeNumber(w string) bool {
	if len(w) == 0 || len(w) > 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// applySpans replaces the spans of line by Mask.
func applySpans(line string, spans []span) string {
	if len(spans) == 0 {
		return line
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		b.WriteString(line[last:s.start])
		b.WriteString(Mask)
		last = s.end
	}
	b.WriteString(line[last:])
	return b.String()
}
