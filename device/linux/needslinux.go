package linux

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/netmcp/netmcp/device"
)

// Scheme is the URL scheme of the driver.
const Scheme = "linux"

// ErrNeedsLinux is wrapped by the error of a Linux-only feature (this
// driver, which reads the host through netlink, /proc and network
// namespaces, and the real lab served through it) where netmcp is built
// for another OS.
var ErrNeedsLinux = errors.New("needs Linux")

// NeedsLinux returns the error of using feature, which exists only on
// Linux, where netmcp runs on goos (runtime.GOOS): it names both and
// wraps ErrNeedsLinux.
func NeedsLinux(feature, goos string) error {
	return fmt.Errorf("%s %w; this is %s", feature, ErrNeedsLinux, goos)
}

// openElsewhere is the driver's opener on goos, an OS other than Linux:
// the scheme stays registered, so linux:// is a known scheme everywhere,
// and every URL is refused with NeedsLinux.
func openElsewhere(goos string) device.OpenFunc {
	return func(_ context.Context, u *url.URL, _ device.Options) (device.Driver, error) {
		return nil, fmt.Errorf("device URL %q: %w", Scheme+"://"+u.Host, NeedsLinux("the linux driver", goos))
	}
}
