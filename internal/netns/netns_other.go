//go:build !linux

package netns

import "github.com/vishvananda/netns"

// InNamespace fails with ErrNeedsLinux without running fn: network
// namespaces exist only on Linux.
func InNamespace(ns netns.NsHandle, fn func() error) error {
	return ErrNeedsLinux
}
