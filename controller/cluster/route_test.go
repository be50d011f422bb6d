package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// bigSessions answers tool "big" with a result of args bytes: "routes"
// repeated (compressible, as a routing table is), or with "random",
// random text that no compression shrinks.
type bigSessions struct{ *stubSessions }

func (s bigSessions) Call(ctx context.Context, device, tool string, args json.RawMessage) (json.RawMessage, error) {
	var a struct {
		Size   int  `json:"size"`
		Random bool `json:"random"`
	}
	if tool != "big" || json.Unmarshal(args, &a) != nil {
		return s.stubSessions.Call(ctx, device, tool, args)
	}
	text := strings.Repeat("route 10.255.0.0/32 via 10.0.0.1; ", a.Size/34+1)[:a.Size]
	if a.Random {
		b := make([]byte, a.Size*3/4)
		_, _ = rand.Read(b)
		text = base64.StdEncoding.EncodeToString(b)
	}
	return json.Marshal(map[string]string{"device": device, "text": text})
}

// TestForwardedLargeResult: a result larger than the NATS maximum payload
// (1 MiB here) reaches the asking replica whole, gzipped on the way; one
// that stays too large gzipped is an error naming the limit, at once
// rather than at the caller's deadline. The same of a call's arguments.
func TestForwardedLargeResult(t *testing.T) {
	url := startNATS(t, 1)[0]
	inv := devices(4)
	var nodes []*node
	for _, name := range []string{"a", "b"} {
		nc := connect(t, url)
		stub := newStub(name, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := Join(ctx, Config{Name: name, Conn: nc, LeaseTTL: testTTL, PolicyDigest: "sha256:test", Sessions: bigSessions{stub}}, inv)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Halt)
		nodes = append(nodes, &node{Replica: r, stub: stub, nc: nc})
	}
	waitOwned(t, nodes, inv, 30*time.Second)
	dev := inv[0]
	via := nodes[0]
	if via.Serves(dev) {
		via = nodes[1]
	}
	if max := via.nc.MaxPayload(); max != 1<<20 {
		t.Fatalf("the test server's maximum payload is %d, want the default 1 MiB", max)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const size = 3 << 20
	out, err := via.Call(ctx, dev, "big", json.RawMessage(`{"size":3145728}`))
	if err != nil {
		t.Fatalf("a %d-byte result through %s: %v", size, via.Instance(), err)
	}
	var res map[string]string
	if err := json.Unmarshal(out, &res); err != nil || len(res["text"]) != size || res["device"] != dev {
		t.Fatalf("a %d-byte result through %s: %d bytes of text, device %q, %v", size, via.Instance(), len(res["text"]), res["device"], err)
	}
	_, err = via.Call(ctx, dev, "big", json.RawMessage(`{"size":3145728,"random":true}`))
	var re *RemoteError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "larger than the NATS maximum payload (1048576 bytes)") {
		t.Fatalf("an incompressible %d-byte result: %v, want a remote error naming the maximum payload", size, err)
	}
	// The same of a request's arguments: the stub's show echoes them.
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("result of an earlier step; ", size/27)})
	out, err = via.Call(ctx, dev, "show", big)
	if err != nil || !strings.Contains(string(out), "result of an earlier step; result") || len(out) < size {
		t.Fatalf("a call with %d bytes of arguments through %s: %d bytes back, %v", len(big), via.Instance(), len(out), err)
	}
	noise := make([]byte, size)
	_, _ = rand.Read(noise)
	big, _ = json.Marshal(map[string][]byte{"noise": noise})
	if _, err = via.Call(ctx, dev, "show", big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a call with %d incompressible bytes of arguments: %v, want ErrTooLarge", len(big), err)
	}
	if ctx.Err() != nil {
		t.Fatal("a call waited for its deadline")
	}
}
