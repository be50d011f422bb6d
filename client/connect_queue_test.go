package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/inventory"
)

// TestConnectTimeoutStartsWhenAttemptRuns: with one connection attempt at
// a time, a device queued behind a device that hangs past its
// ConnectTimeout still gets a whole ConnectTimeout of its own, and its
// first attempt succeeds. Its time in the queue is not its attempt's.
func TestConnectTimeoutStartsWhenAttemptRuns(t *testing.T) {
	const timeout = time.Second
	srv := networkOnlyServer()
	hanging := make(chan struct{})
	dial := func(ctx context.Context, dev inventory.Device) (mcp.Transport, error) {
		if dev.Name == "hangs" {
			close(hanging)
			// Past its own deadline, and past that of an attempt whose
			// clock would have started with this one's.
			<-ctx.Done()
			time.Sleep(timeout)
			return nil, ctx.Err()
		}
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		return ct, nil
	}
	inv := &inventory.Inventory{Devices: []inventory.Device{{Name: "hangs", URL: "http://in-memory"}, {Name: "queued", URL: "http://in-memory"}}}
	f, err := client.New(inv, client.Options{Dial: dial, Concurrency: 1, ConnectTimeout: timeout, BackoffInitial: time.Hour, BackoffMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.Release("queued"); err != nil {
		t.Fatal(err)
	}
	f.Start()
	<-hanging
	// queued starts now, behind hangs's attempt.
	if err := f.Hold("queued"); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "queued's first attempt ends", func() (bool, string) {
		st, _ := f.Device("queued").State()
		return st == client.StateConnected || st == client.StateDown, st.String()
	})
	if st, err := f.Device("queued").State(); st != client.StateConnected {
		t.Fatalf("queued behind a hanging attempt: %s (%v), want connected on its first attempt", st, err)
	}
}
