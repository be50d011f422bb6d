//go:build !unix

package serve

import "os"

// checkOwner has no owner to compare on this OS; the state directory's
// permissions are the user profile's.
func checkOwner(string, os.FileInfo) error { return nil }
