// Package netns runs code on an OS thread switched into a Linux network
// namespace. A socket belongs to the namespace of the thread that creates
// it and stays there, so a function run this way may open listeners and
// connections that live in the namespace while the process stays in its
// own. Elsewhere than on Linux every call fails with ErrNeedsLinux.
package netns

import "errors"

// ErrNeedsLinux is returned where network namespaces do not exist.
var ErrNeedsLinux = errors.New("network namespaces need Linux")
