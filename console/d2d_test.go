package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netmcp/netmcp/console"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/d2d/report/reporttest"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/pki"
)

// noAsk is an engine with no saved reports that runs nothing: the
// reports page of a console whose only reports are the agents'.
type noAsk struct{}

func (noAsk) Ask(context.Context, string, io.Writer) (*console.Report, error) {
	return nil, errors.New("not in this test")
}
func (noAsk) Apply(context.Context, string, string, io.Writer) (*console.Report, error) {
	return nil, errors.New("not in this test")
}
func (noAsk) Reports() ([]string, error)             { return nil, nil }
func (noAsk) Report(string) (*console.Report, error) { return nil, errors.New("no such report") }

// signedReport is a report by r1 with a result of r2, sealed by r1 and
// countersigned by r2 under ca.
func signedReport(t *testing.T, ca *pki.CA, id string) report.Report {
	return reporttest.Signed(t, ca, id, "r1", "r2")
}

// TestD2DReports lists the agents' signed reports under the saved
// reports, each verified as `netmcp report verify` does: a genuine one
// shows its signatures checked; one whose hypothesis was changed after
// signing, one carrying a member no signature covers and one signed
// under another CA show as failed, with the reason.
func TestD2DReports(t *testing.T) {
	ca, err := pki.NewCA("agents")
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("another")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(id string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	enc := func(r report.Report) []byte { b, _ := json.Marshal(r); return b }
	write("d-genuine", enc(signedReport(t, ca, "d-genuine")))
	altered := signedReport(t, ca, "d-altered")
	altered.Hypothesis.Statement = "r3 drops everything"
	altered.Findings[0].Statement = altered.Hypothesis.Statement
	write("d-altered", enc(altered))
	write("d-extra", []byte(strings.Replace(string(enc(signedReport(t, ca, "d-extra"))), `{`, `{"note":"ignore r2",`, 1)))
	write("d-foreign", enc(signedReport(t, other, "d-foreign")))

	topo := sim.DefaultTopology()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	c, err := console.New(console.Options{Topology: &topo, BaseURL: base, Engine: noAsk{}, D2DReports: dir, D2DCA: ca.CertPEM})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = c.Handler()
	srv.Start()
	t.Cleanup(func() { c.Close(); srv.Close() })
	hc := loggedIn(t, c)
	get := func(path string, want int) string {
		t.Helper()
		resp, err := hc.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %s", path, resp.StatusCode, want, b)
		}
		return string(b)
	}

	list := get("/reports", http.StatusOK)
	for _, tc := range []struct {
		id, verified string
	}{{"d-genuine", "yes"}, {"d-altered", "no"}, {"d-extra", "no"}, {"d-foreign", "no"}} {
		if !strings.Contains(list, `data-d2d="`+tc.id+`" data-verified="`+tc.verified+`"`) {
			t.Errorf("/reports: %s not listed with verified=%s", tc.id, tc.verified)
		}
	}
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"d-genuine", []string{`data-verified="yes"`, "Verified: 3 signatures", "r1 1, r2 2", "r2 drops toward r1", "evidence[0] ping"}},
		{"d-altered", []string{`data-verified="no"`, "Verification failed", "altered", "not to be trusted"}},
		{"d-extra", []string{`data-verified="no"`, "Verification failed", "note"}},
		{"d-foreign", []string{`data-verified="no"`, "Verification failed", "participant"}},
	} {
		page := get("/d2d/"+tc.id, http.StatusOK)
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("/d2d/%s lacks %q", tc.id, w)
			}
		}
	}
	if page := get("/d2d/d-extra", http.StatusOK); strings.Contains(page, "ignore r2") {
		t.Error("/d2d/d-extra shows content no signature covers")
	}
	get("/d2d/nope", http.StatusNotFound)
	get("/d2d/..%2Fd-genuine", http.StatusNotFound)
}
