package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/netmcp/netmcp/netproto"
)

// TestServeSharedConfirmationToken: a 2026-07-28 client that cannot answer
// an approval question gets a confirmation token from one `netmcp serve`
// process; the operator's repeat of the identical call carrying it is
// served by the other process sharing the state directory and applies the
// edit. The token is then spent on both.
func TestServeSharedConfirmationToken(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--device", "sim://r1", "--state-dir", dir, "--local-role", "operator"}
	_, urlA := startHTTPServe(t, args...)
	_, urlB := startHTTPServe(t, args...)
	rr := &roundRobin{backends: []string{urlA, urlB}}
	proxy := httptest.NewServer(rr)
	t.Cleanup(proxy.Close)
	url := proxy.URL + "/mcp"

	edit := fmt.Sprintf(`{"edit":[{"path":"%s","value":{"config":{"name":"LoopBack100","type":"iana-if-type:softwareLoopback","description":"via token"}}}]`, lo100)
	call := func(args string) rawRPC {
		t.Helper()
		r, status := rpc2026(t, url, "tools/call", `{"name":"`+netproto.ToolYangEdit+`","arguments":`+args+`}`, "")
		if status != http.StatusOK || r.Error != nil {
			t.Fatalf("edit: status %d, error %+v", status, r.Error)
		}
		return r
	}
	first := call(edit + "}")
	tok, _ := first.Result.Structured["approvalToken"].(string)
	if !first.Result.IsError || first.Result.Structured["status"] != netproto.StatusApprovalRequired || tok == "" || rr.lastServed() != 0 {
		t.Fatalf("first edit (served by %d): %+v, want approval-required with a token", rr.lastServed(), first.Result)
	}
	withToken := edit + `,"approvalToken":"` + tok + `"}`
	second := call(withToken)
	if second.Result.IsError || rr.lastServed() != 1 {
		t.Fatalf("the edit repeated with A's token through B (served by %d): %+v", rr.lastServed(), second.Result)
	}
	if h, _ := second.Result.Structured["handle"].(string); h == "" {
		t.Fatalf("the approved edit gave no handle: %+v", second.Result.Structured)
	}
	// The repeat is refused, whichever check comes first: the token is
	// spent, and the candidate is now held by the edit's handle.
	third, status := rpc2026(t, url, "tools/call", `{"name":"`+netproto.ToolYangEdit+`","arguments":`+withToken+`}`, "")
	if status != http.StatusOK || rr.lastServed() != 0 || (third.Error == nil && !third.Result.IsError) {
		t.Fatalf("the spent token through A (served by %d): status %d %+v, want refused", rr.lastServed(), status, third.Result)
	}
	if third.Error != nil && third.Error.Code != netproto.CodeAccessDenied {
		t.Fatalf("the spent token through A: %+v, want -32083", third.Error)
	}
}
