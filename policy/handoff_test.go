package policy

import (
	"net/http/httptest"
	"testing"
)

// TestRequestIdentities: a held identity is found by its request's
// reference until released; a reference the client sent itself is
// replaced, so it names nothing.
func TestRequestIdentities(t *testing.T) {
	var h RequestIdentities
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set(IdentityRefHeader, "forged")
	release := h.Hold(r, Identity{Subject: "alice"})
	if got := r.Header.Values(IdentityRefHeader); len(got) != 1 || got[0] == "forged" {
		t.Fatalf("header after Hold: %q, want one fresh reference", got)
	}
	if id, ok := h.Of(r.Header); !ok || id.Subject != "alice" {
		t.Fatalf("Of = %+v %v, want alice", id, ok)
	}
	forged := httptest.NewRequest("POST", "/mcp", nil)
	forged.Header.Set(IdentityRefHeader, "forged")
	if id, ok := h.Of(forged.Header); ok {
		t.Fatalf("a reference never held names %+v", id)
	}
	release()
	if id, ok := h.Of(r.Header); ok {
		t.Fatalf("after release, Of = %+v", id)
	}
}
