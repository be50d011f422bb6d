//go:build !unix

package proccpu

import "time"

func used() time.Duration { return 0 }
