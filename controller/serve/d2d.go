package serve

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/d2d/report"
	"github.com/netmcp/netmcp/policy"
)

// D2D report names of the controller's MCP server (a
// device agent pushes its signed roll-up report to the controller).
const (
	// ToolSubmitReport takes a device-to-device roll-up report (the JSON of
	// d2d/report.Report), checks every signature against the CA given
	// with EnableD2D, and keeps it.
	ToolSubmitReport = "submit_report"
	// D2DReportsURI lists the ids of the D2D reports received.
	D2DReportsURI = "netmcp://d2d-reports"
	// D2DReportResourceTemplate is one D2D report received, as submitted.
	D2DReportResourceTemplate = "netmcp://d2d-reports/{id}"
	// d2dSubdir is the folder of the reports directory holding them.
	d2dSubdir = "d2d"
)

// d2dIDRE is what a D2D report id may be (it names a file).
var d2dIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// d2dState is the CA D2D reports are checked against, and where they are
// kept (nil: D2DFiles in the reports directory).
type d2dState struct {
	mu    sync.Mutex
	roots *x509.CertPool
	store D2DStore // d2dstore.go
}

// submitReportIn is submit_report's input.
type submitReportIn struct {
	Report json.RawMessage `json:"report" jsonschema:"the D2D roll-up report, the JSON of the agent's report resource"`
}

// SubmitReportOut is submit_report's result.
type SubmitReportOut struct {
	ID  string `json:"id"`
	URI string `json:"uri"`
	// Creator is the device that made the report.
	Creator string `json:"creator"`
	// Verified is the number of signatures checked.
	Verified int `json:"verified"`
	// Duplicate is true when the same report was already held (a push
	// retried after its answer was lost).
	Duplicate bool `json:"duplicate,omitempty"`
}

// EnableD2D lets the server accept D2D reports whose signatures chain to
// the CA of caPEM (`controller serve --d2d-ca`). Without it submit_report
// refuses every report.
func (s *Server) EnableD2D(caPEM []byte) error {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return errors.New("d2d CA: no certificate in the PEM")
	}
	s.d2d.mu.Lock()
	s.d2d.roots = roots
	s.d2d.mu.Unlock()
	return nil
}

// addD2D registers submit_report and the D2D report resources.
func (s *Server) addD2D() {
	// The report is taken raw (a low-level handler): its nonces are
	// 64-bit and every byte is signed, so it is never round-tripped
	// through a map of float64s.
	s.srv.AddTool(&mcp.Tool{Name: ToolSubmitReport,
		Description: "Submit a device-to-device roll-up report (netmcp agent): every signature is checked against the controller's D2D CA; an accepted report is listed at " + D2DReportsURI + ".",
		InputSchema: &jsonschema.Schema{Type: "object", Required: []string{"report"}, Properties: map[string]*jsonschema.Schema{
			"report": {Type: "object", Description: "the D2D roll-up report, the JSON of the agent's report resource"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in submitReportIn
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return errorResult(fmt.Errorf("submit_report: arguments: %w", err)), nil
			}
			if err := s.authorizeSubmit(s.hostIdentity(ctx), in.Report); err != nil {
				return nil, rpcError(err) // access.go
			}
			res, out, err := s.submitReport(ctx, req, in)
			if err != nil {
				return errorResult(err), nil
			}
			res.StructuredContent = out
			return res, nil
		})
	s.srv.AddResource(&mcp.Resource{URI: D2DReportsURI, Name: "d2d-reports", MIMEType: "application/json",
		Description: "The ids of the device-to-device reports the agents pushed"}, s.readD2DReports)
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: D2DReportResourceTemplate, Name: "d2d-report", MIMEType: "application/json",
		Description: "A device-to-device report an agent pushed, as it was signed"}, s.readD2DReport)
}

func (s *Server) d2dDir() string { return D2DDir(s.store.Dir) }

// D2DDir is where a server with reports directory reportsDir keeps the D2D
// reports it accepted: one file ID.json each, as submitted.
func D2DDir(reportsDir string) string { return filepath.Join(reportsDir, d2dSubdir) }

func (s *Server) submitReport(ctx context.Context, req *mcp.CallToolRequest, in submitReportIn) (*mcp.CallToolResult, *SubmitReportOut, error) {
	s.d2d.mu.Lock()
	roots := s.d2d.roots
	s.d2d.mu.Unlock()
	if roots == nil {
		return nil, nil, errors.New("submit_report: this controller accepts no D2D reports: it has no D2D CA (controller serve --d2d-ca FILE)")
	}
	if s.store.Dir == "" {
		return nil, nil, errors.New("submit_report: this controller has no reports directory to keep D2D reports in")
	}
	rep, err := report.Parse(in.Report)
	if err != nil {
		return nil, nil, fmt.Errorf("submit_report: not a D2D report: %w", err)
	}
	if !d2dIDRE.MatchString(rep.ID) {
		return nil, nil, fmt.Errorf("submit_report: report id %q is not a valid id", rep.ID)
	}
	if rep.URI != report.URIPrefix+rep.ID {
		return nil, nil, fmt.Errorf("submit_report: report %s: URI %q is not %s%s", rep.ID, rep.URI, report.URIPrefix, rep.ID)
	}
	if _, err := time.Parse(time.RFC3339Nano, rep.Created); err != nil {
		return nil, nil, fmt.Errorf("submit_report: report %s: creation time %q: %w", rep.ID, rep.Created, err)
	}
	// Certificates are checked at receipt, not as of the report's own
	// creation time, which its signer chose.
	checks, err := report.Verify(rep, report.CAVerifier(roots, time.Now()))
	if err != nil {
		return nil, nil, fmt.Errorf("submit_report: report %s from %s refused: %w", rep.ID, rep.Creator, err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	out := &SubmitReportOut{ID: rep.ID, URI: D2DReportsURI + "/" + rep.ID, Creator: rep.Creator, Verified: len(checks)}
	dup, err := s.d2dStore().Add(rep.ID, b)
	if err != nil {
		return nil, nil, fmt.Errorf("submit_report: %w", err)
	}
	out.Duplicate = dup
	text := fmt.Sprintf("D2D report %s from %s accepted: %d signatures verified", rep.ID, rep.Creator, len(checks))
	if rep.Hypothesis != nil {
		text += "\nhypothesis: " + rep.Hypothesis.Statement
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// D2DReports returns the ids of the D2D reports held, sorted.
func (s *Server) D2DReports() ([]string, error) {
	if s.store.Dir == "" {
		return nil, errors.New("no reports directory")
	}
	return s.d2dStore().IDs()
}

func (s *Server) readD2DReports(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := s.authorizeRead(ctx, req.Params.URI); err != nil {
		return nil, err
	}
	ids, err := s.D2DReports()
	if err != nil {
		return nil, err
	}
	host := s.hostIdentity(ctx)
	visible := []string{}
	for _, id := range ids {
		if _, ok := s.loadD2DReport(host, id); ok {
			visible = append(visible, id)
		}
	}
	b, _ := json.Marshal(map[string]any{"reports": visible})
	return contentResult(req, req.Params.URI, b), nil
}

func (s *Server) readD2DReport(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := s.authorizeRead(ctx, req.Params.URI); err != nil {
		return nil, err
	}
	id := strings.TrimPrefix(req.Params.URI, D2DReportsURI+"/")
	if s.store.Dir == "" || !d2dIDRE.MatchString(id) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	// A report this host may not read is not found: it is neither shown
	// nor confirmed to exist.
	b, ok := s.loadD2DReport(s.hostIdentity(ctx), id)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return contentResult(req, req.Params.URI, b), nil
}

// loadD2DReport returns the D2D report id as held, when host reaches
// every device of the fleet it names (see d2dDevices): a host limited to
// some devices reads no report about others, as with the saved reports.
// ok is false when the report is missing, unreadable or not visible.
func (s *Server) loadD2DReport(host policy.Identity, id string) (b []byte, ok bool) {
	b, err := s.d2dStore().Get(id)
	if err != nil {
		return nil, false
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, false // unreadable: nobody's
	}
	names, ok := s.d2dDevices(&rep)
	if !ok {
		return nil, false
	}
	for _, name := range names {
		if d := s.fleetDevice(name); d != nil && !s.reaches(host, d) {
			return nil, false
		}
	}
	return b, true
}

// fleetDevice returns the fleet's device name, or nil (no fleet, or a name
// that is none of its devices: the controller holds no data of theirs).
func (s *Server) fleetDevice(name string) *client.Device {
	if s.ctl.Fleet == nil || name == "" {
		return nil
	}
	return s.ctl.Fleet.Device(name)
}

// d2dDevices returns every device a D2D report names: its creator, its
// path, its findings, the signers of its evidence, its participants, the
// peers it did not trust, the devices of its proposals and those the
// controller's report it fell back to cites. ok is false when that
// controller's report cannot be read (then no host but one reaching
// everything could be told apart: the report is shown to none).
func (s *Server) d2dDevices(rep *report.Report) (names []string, ok bool) {
	names = append([]string{rep.Creator}, rep.Path...)
	if rep.Hypothesis != nil {
		names = append(names, rep.Hypothesis.Device)
	}
	for _, f := range rep.Findings {
		names = append(names, f.Device)
	}
	for _, e := range rep.Evidence {
		names = append(names, e.Signer, e.Caller)
	}
	for n := range rep.Participants {
		names = append(names, n)
	}
	for n := range rep.Untrusted {
		names = append(names, n)
	}
	for _, p := range rep.Proposals {
		names = append(names, p.Device)
	}
	if rep.Fallback != nil && len(rep.Fallback.Report) > 0 {
		var cr controller.Report
		if json.Unmarshal(rep.Fallback.Report, &cr) != nil {
			return nil, false
		}
		names = append(names, s.reportDevices(&cr)...)
	}
	return names, true
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}
