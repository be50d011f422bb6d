//go:build windows

package configstore

import (
	"errors"
	"os"
)

// mapGen is not used on Windows: the counter is read with ReadAt.
func mapGen(*os.File) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapGen([]byte) error { return nil }

func loadGen([]byte) (uint64, bool) { return 0, false }
