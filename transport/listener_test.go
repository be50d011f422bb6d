package transport

import (
	"errors"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeListener returns the scripted results of Accept, then net.ErrClosed.
type fakeListener struct {
	mu      sync.Mutex
	results []any // net.Conn or error
}

func (f *fakeListener) Accept() (net.Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.results) == 0 {
		return nil, net.ErrClosed
	}
	r := f.results[0]
	f.results = f.results[1:]
	if err, ok := r.(error); ok {
		return nil, err
	}
	return r.(net.Conn), nil
}
func (f *fakeListener) Close() error   { return nil }
func (f *fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// fakeConn is a connection from a given source that records Close.
type fakeConn struct {
	net.Conn
	remote net.Addr
	closed bool
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) Close() error         { c.closed = true; return nil }

func from(ip string) *fakeConn {
	return &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
}

// TestGuardListenerRetriesAcceptErrors: failed Accepts (too many open
// files, a connection aborted) are retried with a backoff doubling from
// 5 ms to at most 1 s, never returned; only a closed listener ends Accept.
func TestGuardListenerRetriesAcceptErrors(t *testing.T) {
	emfile := &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	var results []any
	for range 10 {
		results = append(results, emfile)
	}
	good := from("192.0.2.1")
	results = append(results, errors.New("some permanent-looking failure"), good)
	ln := GuardListener(&fakeListener{results: results}, ListenerOptions{}).(*guardListener)
	var slept []time.Duration
	ln.sleep = func(d time.Duration) { slept = append(slept, d) }

	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept returned %v; want the connection after the failures", err)
	}
	if c.RemoteAddr().String() != good.RemoteAddr().String() {
		t.Fatalf("Accept returned a connection from %v", c.RemoteAddr())
	}
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !slices.Equal(slept, want) {
		t.Errorf("backoff %v, want %v", slept, want)
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept on a closed listener: %v, want net.ErrClosed", err)
	}
}

// TestGuardListenerPerSource: a source holding MaxConnsPerSource open
// connections has its next ones closed at once; other sources are served;
// closing a connection frees its slot.
func TestGuardListenerPerSource(t *testing.T) {
	a1, a2, a3, b1, a4 := from("192.0.2.1"), from("192.0.2.1"), from("192.0.2.1"), from("192.0.2.2"), from("192.0.2.1")
	fl := &fakeListener{results: []any{a1, a2, a3, b1}}
	ln := GuardListener(fl, ListenerOptions{MaxConnsPerSource: 2})
	var got []net.Conn
	for range 3 {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c)
	}
	if !a3.closed {
		t.Error("the third connection of 192.0.2.1 was not closed (limit 2)")
	}
	if a1.closed || a2.closed || b1.closed {
		t.Error("a connection within the limit was closed")
	}
	if got[2].RemoteAddr().String() != b1.RemoteAddr().String() {
		t.Errorf("third accepted connection from %v, want 192.0.2.2", got[2].RemoteAddr())
	}
	got[0].Close()
	got[0].Close() // twice: frees one slot only
	fl.results = []any{a4, from("192.0.2.1")}
	c, err := ln.Accept()
	if err != nil || a4.closed {
		t.Fatalf("after a close, 192.0.2.1 was refused: %v", err)
	}
	defer c.Close()
	last := fl.results[0].(*fakeConn)
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) || !last.closed {
		t.Errorf("a second Close freed a second slot (err %v, closed %v)", err, last.closed)
	}
}
