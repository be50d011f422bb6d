package approval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A confirmation token issued by one process is redeemed once through any
// process sharing the state directory, or after a restart; the file holds
// digests, never a token.
func TestTokensSharedByStateDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	clk := &fakeClock{t: t0}
	opts := Options{Now: clk.now, StateDir: dir}
	a, b := New(opts), New(opts)
	args := `{"confirmed":120}`
	issue := func(g *Authority) string {
		t.Helper()
		_, err := g.Approve(ctx, commitReq("stateless:jwt:alice", args), Evidence{})
		var ar *ApprovalRequired
		if !errors.As(err, &ar) {
			t.Fatalf("first call: %v, want ApprovalRequired", err)
		}
		return ar.Token
	}

	tok := issue(a)
	raw, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), tok) || strings.Contains(string(raw), strings.TrimPrefix(tok, "apv_")) {
		t.Fatalf("the token file holds the token itself: %s", raw)
	}
	if d, err := b.Approve(ctx, commitReq("stateless:jwt:alice", args), Evidence{Token: tok}); err != nil || d.Method != "token" {
		t.Fatalf("token issued by a, redeemed through b: %v %v", d, err)
	}
	_, err = a.Approve(ctx, commitReq("stateless:jwt:alice", args), Evidence{Token: tok})
	wantDenied(t, err, "already used")

	// A restart keeps a pending token; a refusal leaves it valid.
	tok = issue(a)
	restarted := New(opts)
	_, err = restarted.Approve(ctx, commitReq("stateless:jwt:bob", args), Evidence{Token: tok})
	wantDenied(t, err, "another session")
	if _, err := restarted.Approve(ctx, commitReq("stateless:jwt:alice", args), Evidence{Token: tok}); err != nil {
		t.Fatalf("token after a restart: %v", err)
	}

	// Expired tokens are refused, and leave the file.
	tok = issue(b)
	clk.t = clk.t.Add(3 * time.Minute)
	_, err = a.Approve(ctx, commitReq("stateless:jwt:alice", args), Evidence{Token: tok})
	wantDenied(t, err, "expired")
	if got, _ := readTokens(dir); len(got) != 0 {
		t.Errorf("%d tokens left on disk after the only one expired", len(got))
	}

	// A broken file refuses tokens rather than guessing.
	if err := os.WriteFile(filepath.Join(dir, TokenFile), []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = a.Approve(ctx, commitReq("stateless:jwt:alice", args), Evidence{})
	wantDenied(t, err, "pending tokens")
}

// Two processes racing to redeem one token: exactly one wins.
func TestSharedTokenRedeemedOnce(t *testing.T) {
	ctx := context.Background()
	opts := Options{StateDir: t.TempDir()}
	gates := []*Authority{New(opts), New(opts), New(opts), New(opts)}
	_, err := gates[0].Approve(ctx, commitReq("s", `{}`), Evidence{})
	var ar *ApprovalRequired
	if !errors.As(err, &ar) {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wins := make(chan int, len(gates))
	for i, g := range gates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.Approve(ctx, commitReq("s", `{}`), Evidence{Token: ar.Token}); err == nil {
				wins <- i
			}
		}()
	}
	wg.Wait()
	close(wins)
	if n := len(wins); n != 1 {
		t.Fatalf("the token was redeemed %d times, want once", n)
	}
}
