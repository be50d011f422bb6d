package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeController serves a controller's ask tool over Streamable HTTP and
// records the intents it was asked.
func fakeController(t *testing.T) (string, func() []string) {
	var mu sync.Mutex
	var asked []string
	srv := mcp.NewServer(&mcp.Implementation{Name: "controller"}, nil)
	type askIn struct {
		Intent string `json:"intent"`
	}
	type askOut struct {
		IsAnomaly     bool     `json:"is_anomaly"`
		FaultyDevices []string `json:"faulty_devices"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: ControllerToolAsk}, func(_ context.Context, _ *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, askOut, error) {
		mu.Lock()
		asked = append(asked, in.Intent)
		mu.Unlock()
		return nil, askOut{IsAnomaly: true, FaultyDevices: []string{"r3"}}, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), asked...) }
}

// TestFallbackToController: r3 is untrusted (its authorization revoked);
// r1 has a controller, so the run falls back to it: the controller is
// asked the same intent and its report is carried, signed, in r1's. A
// healthy run does not call the controller.
func TestFallbackToController(t *testing.T) {
	url, asked := fakeController(t)
	d := newDomain(t, domainOpts{})
	a := d.agents["r1"]
	a.cfg.Controller = &ControllerFallback{Endpoint: url}
	r := askVerified(t, d, "r1")
	if r.Fallback != nil || len(asked()) != 0 {
		t.Fatalf("healthy run fell back: %+v, controller asked %v", r.Fallback, asked())
	}
	a.Revoke("r3", "operator withdrew consent")
	r = askVerified(t, d, "r1")
	fb := r.Fallback
	if fb == nil || fb.Controller != url || !strings.Contains(fb.Reason, "r3") || fb.Error != "" {
		t.Fatalf("fallback %+v", fb)
	}
	var cr struct {
		FaultyDevices []string `json:"faulty_devices"`
	}
	if err := json.Unmarshal(fb.Report, &cr); err != nil || len(cr.FaultyDevices) != 1 || cr.FaultyDevices[0] != "r3" {
		t.Fatalf("controller report %s: %v", fb.Report, err)
	}
	if got := asked(); len(got) != 1 || got[0] != pathIntent {
		t.Fatalf("controller asked %v", got)
	}
	// A tampered controller part breaks the report's signatures.
	r.Fallback.Report = json.RawMessage(`{"faulty_devices":["r1"]}`)
	if _, err := verifyReportErr(d, r); err == nil {
		t.Fatal("a report with a tampered controller part verifies")
	}
}
