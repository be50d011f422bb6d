//go:build !linux

package linux

import (
	"runtime"

	"github.com/netmcp/netmcp/device"
)

func init() { device.Register(Scheme, openElsewhere(runtime.GOOS)) }
