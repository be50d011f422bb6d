package agent

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// ErrCollaborationDisabled is the refusal of D2D calls while the
// controller is reachable and local collaboration is not enabled (the
// draft's backward-compatibility rule: one audit path).
var ErrCollaborationDisabled = errors.New("local collaboration is not enabled and the controller is reachable: D2D calls are refused (single audit path through the controller)")

// ControllerGate decides whether D2D calls are allowed: always when local
// collaboration is enabled; otherwise only while the controller at
// Controller cannot be reached (a TCP connection within DialTimeout).
// Reachability is probed at most once per Every.
type ControllerGate struct {
	// Controller is HOST:PORT of the controller ("" = none configured).
	Controller string
	// LocalCollaboration is the operator's explicit enablement.
	LocalCollaboration bool
	// DialTimeout bounds a probe (default 2 s); Every is the probe period
	// (default 10 s).
	DialTimeout, Every time.Duration

	mu        sync.Mutex
	checked   time.Time
	reachable bool
}

// Allow returns nil when D2D calls are allowed now.
func (g *ControllerGate) Allow(ctx context.Context) error {
	if g == nil || g.LocalCollaboration || g.Controller == "" {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	every := g.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	if g.checked.IsZero() || time.Since(g.checked) >= every {
		to := g.DialTimeout
		if to <= 0 {
			to = 2 * time.Second
		}
		d := net.Dialer{Timeout: to}
		c, err := d.DialContext(ctx, "tcp", g.Controller)
		g.reachable = err == nil
		if c != nil {
			c.Close()
		}
		g.checked = time.Now()
	}
	if g.reachable {
		return ErrCollaborationDisabled
	}
	return nil
}
