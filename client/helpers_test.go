package client_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/testwait"
)

// hostnamePath is a YANG path every simulated router serves.
const hostnamePath = "/openconfig-system:system/config/hostname"

// deadPort returns a loopback address nothing listens on.
func deadPort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// eventually waits until cond holds, within a deadline scaled to the
// machine's load (testwait).
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, within, what, func() (bool, string) { return cond(), "" })
}

// updates counts notifications/resources/updated per device and URI.
type updates struct {
	mu sync.Mutex
	n  map[string]int
}

func (u *updates) add(dev, uri string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == nil {
		u.n = map[string]int{}
	}
	u.n[dev+" "+uri]++
}

func (u *updates) get(dev, uri string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n[dev+" "+uri]
}
