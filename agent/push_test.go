package agent

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/controller/serve"
)

// deadURL is an MCP URL nothing listens on.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	return url
}

// TestPushReportToController: with the controller down the finished
// report stays queued on the device (in the outbox, listed by the agent);
// at the next sync it is pushed to the real controller server, which
// verifies it against the CA and lists it; the next run's report is pushed
// at once; a tampered report is refused and stays queued.
func TestPushReportToController(t *testing.T) {
	d := newDomain(t, domainOpts{})
	a := d.agents["r1"]
	outbox := t.TempDir()
	a.cfg.Push = &ReportPusher{Endpoint: deadURL(t), Dir: outbox}

	r1 := askVerified(t, d, "r1")
	q, err := (&ReportPusher{Dir: outbox}).Queued() // as a restarted agent reads it
	if err != nil || len(q) != 1 || q[0].ID != r1.ID {
		t.Fatalf("controller down: outbox %v %v, want %s", q, err, r1.ID)
	}
	if _, err := verifyReportErr(d, q[0]); err != nil {
		t.Fatalf("queued report no longer verifies: %v", err)
	}

	srv := serve.New(&controller.Controller{}, controller.Store{Dir: t.TempDir()}, "test")
	if err := srv.EnableD2D(d.ca.CertPEM); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil))
	defer hs.Close()
	a.cfg.Push.Endpoint = hs.URL

	res, err := a.SyncReports(context.Background())
	if err != nil || !slices.Equal(res.Pushed, []string{r1.ID}) || len(res.Queued) != 0 {
		t.Fatalf("sync: %+v %v", res, err)
	}
	if ids, _ := srv.D2DReports(); !slices.Equal(ids, []string{r1.ID}) {
		t.Fatalf("controller lists %v, want %s", ids, r1.ID)
	}

	r2 := askVerified(t, d, "r1")
	ids, _ := srv.D2DReports()
	if len(ids) != 2 || !slices.Contains(ids, r2.ID) {
		t.Fatalf("next run not pushed: controller lists %v", ids)
	}
	if q, _ := a.cfg.Push.Queued(); len(q) != 0 {
		t.Fatalf("outbox not emptied: %d left", len(q))
	}

	bad := r2
	bad.ID, bad.URI = "tampered", r2.URI[:len(r2.URI)-len(r2.ID)]+"tampered"
	if err := a.cfg.Push.Enqueue(bad); err != nil {
		t.Fatal(err)
	}
	res, err = a.SyncReports(context.Background())
	if err != nil || len(res.Pushed) != 0 || !strings.Contains(res.Refused["tampered"], "altered") || !slices.Equal(res.Queued, []string{"tampered"}) {
		t.Fatalf("tampered: %+v %v", res, err)
	}
	if ids, _ := srv.D2DReports(); slices.Contains(ids, "tampered") {
		t.Fatal("the controller kept a tampered report")
	}
}
