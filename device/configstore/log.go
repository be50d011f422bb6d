package configstore

import (
	"fmt"
	"time"

	"github.com/netmcp/netmcp/device"
)

// logExpired logs the automatic rollback of p.
func (s *Store) logExpired(p *Pending) {
	s.log(4, "ROLLBACK", fmt.Sprintf("confirmed commit %s was not confirmed by %s; configuration rolled back to %s",
		p.ID, p.Deadline.UTC().Format(time.RFC3339), nameOf(p.Before)))
}

// log sends a syslog event to Options.Log.
func (s *Store) log(severity int, name, msg string) {
	if s.opts.Log == nil {
		return
	}
	mn := fmt.Sprintf("CONFIG-%d-%s", severity, name)
	s.opts.Log(device.LogEntry{Time: s.opts.Now(), Severity: severity, Facility: "CONFIG",
		Mnemonic: mn, Message: msg, Text: "%" + mn + ": " + msg})
}

// who names an owner in messages.
func who(o device.Owner) string {
	u := o.User
	if u == "" {
		u = "unknown"
	}
	return fmt.Sprintf("user %s (session %s)", u, o.Session)
}
