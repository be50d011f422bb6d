package configstore

import (
	"fmt"
	"time"

	"github.com/netmcp/netmcp/device"
)

// retryDelay is how long a failed automatic rollback waits before retrying.
const retryDelay = 10 * time.Second

// arm (re)starts the confirmed-commit timer to fire after d.
func (s *Store) arm(d time.Duration) {
	s.stopTimer()
	gen := s.gen
	s.timer = s.opts.AfterFunc(d, func() { s.fire(gen) })
}

// stopTimer stops the confirmed-commit timer; a callback already running
// sees a newer generation and does nothing.
func (s *Store) stopTimer() {
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// fire is the timer callback: it rolls back the pending confirmed commit.
func (s *Store) fire(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || gen != s.gen {
		return
	}
	if err := s.enter(); err != nil {
		s.log(3, "ROLLBACK_FAILED", fmt.Sprintf("confirmed commit timer: %v; retrying in %s", err, retryDelay))
		s.arm(retryDelay)
		return
	}
	defer s.leave()
	// Another process may have confirmed, cancelled or rolled it back, or
	// extended its deadline (then enter re-armed the timer).
	if gen != s.gen || s.st.Pending == nil {
		return
	}
	s.timer = nil
	p := s.st.Pending.clone()
	if err := s.rollbackPending(device.StatusRolledBack, true); err != nil {
		s.log(3, "ROLLBACK_FAILED", fmt.Sprintf("confirmed commit %s expired but could not be rolled back: %v; retrying in %s",
			p.ID, err, retryDelay))
		s.arm(retryDelay)
		return
	}
	s.gen++
	s.logExpired(p)
}
