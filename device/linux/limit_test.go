//go:build linux

package linux

import (
	"context"
	"errors"
	"testing"

	"github.com/netmcp/netmcp/diag"
)

// TestHostLimitShared checks that the diagnostics limit is the host's, not
// one driver's: slots held for one namespace leave none for another
// driver, which is refused before anything runs, and a released slot is
// usable again.
func TestHostLimitShared(t *testing.T) {
	var releases []func()
	for {
		release, err := hostLimiter.Acquire("some-netns")
		if err != nil {
			break
		}
		releases = append(releases, release)
	}
	if len(releases) == 0 {
		t.Fatal("the host limiter gave no slot at all")
	}
	host, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	req := diag.Request{Tool: "ping", Destination: "127.0.0.1", Count: 1}
	if _, err := host.Diagnose(context.Background(), req, nil); !errors.Is(err, diag.ErrBusy) {
		t.Fatalf("with every host slot held by another namespace, Diagnose = %v, want ErrBusy", err)
	}
	for _, release := range releases {
		release()
	}
	release, err := hostLimiter.Acquire("")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	release()
}
