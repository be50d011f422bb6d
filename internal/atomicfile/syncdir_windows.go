//go:build windows

package atomicfile

// syncDir does nothing: Windows cannot flush a directory (see SyncDir).
func syncDir(string) error { return nil }
