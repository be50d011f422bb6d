package linux

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/netmcp/netmcp/device"
)

// TestOpenElsewhere checks the opener registered on an OS other than
// Linux: every URL is refused with ErrNeedsLinux, the message naming the
// URL, the driver and the OS.
func TestOpenElsewhere(t *testing.T) {
	for _, tc := range []struct{ url, goos, want string }{
		{"linux://", "darwin", `device URL "linux://": the linux driver needs Linux; this is darwin`},
		{"linux://r1", "windows", `device URL "linux://r1": the linux driver needs Linux; this is windows`},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		drv, err := openElsewhere(tc.goos)(context.Background(), u, device.Options{})
		if drv != nil || !errors.Is(err, ErrNeedsLinux) || err.Error() != tc.want {
			t.Errorf("%s on %s: %v, %v; want %q wrapping ErrNeedsLinux", tc.url, tc.goos, drv, err, tc.want)
		}
	}
}
