package serve_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/report/reporttest"
	"github.com/netmcp/netmcp/pki"
)

// d2dReport builds a report signed by r1 (creator) and countersigned by
// r2, both with certificates of ca.
func d2dReport(t *testing.T, ca *pki.CA, id string) report.Report {
	t.Helper()
	return d2dReportBy(t, ca, id, "r1", "r2")
}

// d2dReportBy builds a report signed by creator and countersigned by peer,
// whose finding is on peer, both with certificates of ca.
func d2dReportBy(t *testing.T, ca *pki.CA, id, creator, peer string) report.Report {
	return reporttest.Signed(t, ca, id, creator, peer)
}

func d2dSession(t *testing.T, srv *serve.Server) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs := inMemoryHost(t, ctx, srv, "agent", nil, nil)
	return cs
}

func submit(t *testing.T, cs *mcp.ClientSession, r any) *mcp.CallToolResult {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: serve.ToolSubmitReport, Arguments: map[string]any{"report": json.RawMessage(b)}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSubmitD2DReport: a signed report is accepted, kept and listed; a
// resubmission is a duplicate; tampered, forged (another CA) and malformed
// reports are refused with the reason; a controller with no D2D CA
// refuses all.
func TestSubmitD2DReport(t *testing.T) {
	ca, _ := pki.NewCA("ca")
	other, _ := pki.NewCA("ca")
	srv := serve.New(&controller.Controller{}, controller.Store{Dir: t.TempDir()}, "test")
	cs := d2dSession(t, srv)
	good := d2dReport(t, ca, "rep-1")

	if res := submit(t, cs, good); !res.IsError || !strings.Contains(textOf(res), "--d2d-ca") {
		t.Fatalf("no CA configured, got %v %q", res.IsError, textOf(res))
	}
	if err := srv.EnableD2D(ca.CertPEM); err != nil {
		t.Fatal(err)
	}
	res := submit(t, cs, good)
	if res.IsError {
		t.Fatalf("refused: %s", textOf(res))
	}
	var out serve.SubmitReportOut
	remarshal(t, res.StructuredContent, &out)
	if out.ID != "rep-1" || out.Creator != "r1" || out.Verified != 3 || out.Duplicate || out.URI != serve.D2DReportsURI+"/rep-1" {
		t.Fatalf("result %+v", out)
	}
	if res := submit(t, cs, good); res.IsError || !strings.Contains(string(mustJSON(t, res.StructuredContent)), `"duplicate":true`) {
		t.Fatalf("resubmission: %v %s", res.IsError, textOf(res))
	}

	tampered := good
	h := *good.Hypothesis
	h.Device = "r1"
	tampered.Hypothesis = &h
	forged := d2dReport(t, other, "rep-2")
	badEvidence := d2dReport(t, ca, "rep-3")
	badEvidence.Evidence[0].Body = json.RawMessage(`{"loss":0}`)
	sameID := d2dReport(t, ca, "rep-1")
	badID := d2dReport(t, ca, "../x")
	for _, tc := range []struct {
		name string
		r    any
		want string
	}{
		{"tampered hypothesis", tampered, "altered"},
		{"forged by another CA", forged, "certificate"},
		{"tampered evidence", badEvidence, "refused"},
		{"a different report under a held id", sameID, "already held"},
		{"bad id", badID, "not a valid id"},
		{"not a report", map[string]any{"id": "x", "bogus": 1}, "not a D2D report"},
	} {
		res := submit(t, cs, tc.r)
		if !res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("%s: error %v %q, want %q", tc.name, res.IsError, textOf(res), tc.want)
		}
	}

	ctx := context.Background()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: serve.D2DReportsURI})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `["rep-1"]`) {
		t.Fatalf("list %v %v", rr, err)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: serve.D2DReportsURI + "/rep-1"})
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &back); err != nil || back.ID != "rep-1" || back.Signatures["r1"] != good.Signatures["r1"] {
		t.Fatalf("read back %+v %v", back.ID, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: serve.D2DReportsURI + "/rep-2"}); err == nil {
		t.Fatal("a refused report is readable")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
