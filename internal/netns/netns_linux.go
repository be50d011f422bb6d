package netns

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/vishvananda/netns"
)

// InNamespace runs fn on an OS thread switched into the network namespace
// ns (root only), and switches the thread back. If the thread cannot be
// switched back it stays locked, so the Go runtime discards it with its
// goroutine instead of reusing it in the wrong namespace.
func InNamespace(ns netns.NsHandle, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("this thread's network namespace: %w", err)
			return
		}
		defer orig.Close()
		if err := netns.Set(ns); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("entering the network namespace: %w", err)
			return
		}
		ferr := fn()
		if err := netns.Set(orig); err != nil {
			errc <- errors.Join(ferr, fmt.Errorf("returning to the original namespace: %w", err))
			return // the thread stays locked and dies with the goroutine
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}
