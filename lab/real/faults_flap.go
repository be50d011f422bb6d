//go:build linux

package real

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/netmcp/netmcp/lab/topology"
)

// flapper is one link_flap under way: a goroutine that sets the
// interface down for "down" seconds every "period" seconds (ip link).
type flapper struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// flapParams reads link_flap's period and down (seconds, 0 < down < period).
func flapParams(f topology.Fault) (period, down time.Duration, err error) {
	p, err1 := strconv.ParseFloat(f.Param("period"), 64)
	d, err2 := strconv.ParseFloat(f.Param("down"), 64)
	if err1 != nil || err2 != nil || d <= 0 || p <= d || p > 3600 {
		return 0, 0, fmt.Errorf("link_flap: period=%s down=%s: want seconds with 0 < down < period <= 3600", f.Param("period"), f.Param("down"))
	}
	return time.Duration(p * float64(time.Second)), time.Duration(d * float64(time.Second)), nil
}

// startFlap starts flapping the target interface.
func (l *Lab) startFlap(f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	period, down, err := flapParams(f)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("link_flap: the lab is closed")
	}
	if _, dup := l.flaps[f.Target]; dup {
		return fmt.Errorf("link_flap: %s already flaps", f.Target)
	}
	ctx, cancel := context.WithCancel(context.Background())
	fl := &flapper{cancel: cancel, done: make(chan struct{})}
	if l.flaps == nil {
		l.flaps = map[string]*flapper{}
	}
	l.flaps[f.Target] = fl
	go func() {
		defer close(fl.done)
		for {
			if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "down"); err != nil && ctx.Err() == nil {
				l.logger.Warn("link_flap: down", "target", f.Target, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(down):
			}
			if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "up"); err != nil && ctx.Err() == nil {
				l.logger.Warn("link_flap: up", "target", f.Target, "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(period - down):
			}
		}
	}()
	return nil
}

// stopFlap stops flapping and leaves the interface up, with the
// adjacencies formed again.
func (l *Lab) stopFlap(ctx context.Context, f topology.Fault) error {
	d, i, err := l.target(f)
	if err != nil {
		return err
	}
	l.mu.Lock()
	fl := l.flaps[f.Target]
	delete(l.flaps, f.Target)
	l.mu.Unlock()
	if fl == nil {
		return fmt.Errorf("link_flap: %s does not flap", f.Target)
	}
	fl.cancel()
	<-fl.done
	if _, err := run(ctx, d.NS, "ip", "link", "set", i.Linux, "up"); err != nil {
		return err
	}
	return l.fastAdjacencies(ctx, 15*time.Second)
}

// stopFlaps stops every flap (Close).
func (l *Lab) stopFlaps() {
	l.mu.Lock()
	fls := l.flaps
	l.flaps = nil
	l.mu.Unlock()
	for _, fl := range fls {
		fl.cancel()
		<-fl.done
	}
}
