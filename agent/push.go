package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/d2d/report"
)

// ControllerToolSubmitReport is the controller's tool a report is pushed
// to (serve.ToolSubmitReport of `netmcp controller serve`).
const ControllerToolSubmitReport = "submit_report"

// OutboxDir is the folder of an agent's state directory holding the
// reports not yet accepted by the controller.
const OutboxDir = "outbox"

// ReportPusher pushes finished reports to the controller. Each report is first written to the outbox (Dir), so a report the
// controller could not take stays on the device, across restarts, until a
// later Flush (the next run, the agent's next start, or `netmcp agent
// sync`) delivers it.
type ReportPusher struct {
	// Endpoint is the controller's MCP URL, e.g. http://ctl:8080/mcp.
	Endpoint string
	// HTTPClient carries the calls; nil is http.DefaultClient.
	HTTPClient *http.Client
	// Dir is the outbox, e.g. <state-dir>/outbox.
	Dir string

	flushMu sync.Mutex // one Flush at a time (a run's and the start's)
}

// ErrControllerUnreachable wraps a push that did not reach the controller.
var ErrControllerUnreachable = errors.New("controller unreachable")

// PushResult is what one Flush did.
type PushResult struct {
	// Pushed are the ids the controller accepted (and the outbox dropped).
	Pushed []string
	// Refused are the ids the controller refused, with its reason; they
	// stay in the outbox.
	Refused map[string]string
	// Queued are the ids still in the outbox.
	Queued []string
}

// Enqueue writes r to the outbox.
func (p *ReportPusher) Enqueue(r report.Report) error {
	if p.Dir == "" {
		return errors.New("report push: no outbox directory")
	}
	if r.ID == "" || strings.ContainsAny(r.ID, `/\`) || strings.HasPrefix(r.ID, ".") {
		return fmt.Errorf("report push: report id %q cannot name a file", r.ID)
	}
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	path := filepath.Join(p.Dir, r.ID+".json")
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// Queued returns the reports in the outbox, oldest first.
func (p *ReportPusher) Queued() ([]report.Report, error) {
	ents, err := os.ReadDir(p.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []report.Report
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.Dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var r report.Report
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("report push: outbox %s: %w", e.Name(), err)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created < out[j].Created || out[i].Created == out[j].Created && out[i].ID < out[j].ID
	})
	return out, nil
}

// Flush pushes every queued report, oldest first, over one session. An
// unreachable controller stops it (err wraps ErrControllerUnreachable) and
// leaves the rest queued; a refused report stays queued and the others
// are still pushed.
func (p *ReportPusher) Flush(ctx context.Context) (res PushResult, err error) {
	p.flushMu.Lock()
	defer p.flushMu.Unlock()
	res = PushResult{Refused: map[string]string{}}
	queued, err := p.Queued()
	if err != nil {
		return res, err
	}
	defer func() { // what is left, however Flush ended
		q, _ := p.Queued()
		for _, r := range q {
			res.Queued = append(res.Queued, r.ID)
		}
	}()
	if len(queued) == 0 {
		return res, nil
	}
	hc := p.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "netmcp-agent-push", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: p.Endpoint, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return res, fmt.Errorf("%w: %s: %v", ErrControllerUnreachable, p.Endpoint, err)
	}
	defer cs.Close()
	for _, r := range queued {
		b, err := json.Marshal(r)
		if err != nil {
			return res, err
		}
		out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ControllerToolSubmitReport, Arguments: map[string]any{"report": json.RawMessage(b)}})
		if err != nil {
			return res, fmt.Errorf("%w: %s: %v", ErrControllerUnreachable, p.Endpoint, err)
		}
		if out.IsError {
			res.Refused[r.ID] = toolText(out)
			continue
		}
		if err := os.Remove(filepath.Join(p.Dir, r.ID+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
		res.Pushed = append(res.Pushed, r.ID)
	}
	return res, nil
}

func toolText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

// SyncReports loads the outbox's reports into the agent's store (they
// stay listed on the device) and pushes them to the controller; it does
// nothing without a Push configured.
func (a *Agent) SyncReports(ctx context.Context) (PushResult, error) {
	p := a.cfg.Push
	if p == nil {
		return PushResult{}, nil
	}
	if q, err := p.Queued(); err == nil {
		for _, r := range q {
			if _, err := a.reports.Get(r.ID); errors.Is(err, report.ErrNotFound) {
				a.reports.Put(r)
			}
		}
	}
	cctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout*3)
	defer cancel()
	res, err := p.Flush(cctx)
	for id, why := range res.Refused {
		a.log.Warn("controller refused a report; kept in the outbox", "report", id, "controller", p.Endpoint, "why", why)
	}
	if err != nil {
		a.log.Warn("reports kept on the device until the next sync", "controller", p.Endpoint, "queued", len(res.Queued), "err", err)
	} else if len(res.Pushed) > 0 {
		a.log.Info("reports pushed to the controller", "controller", p.Endpoint, "reports", res.Pushed)
	}
	return res, err
}

// pushReport queues a finished report and pushes the outbox (any report an
// earlier run could not push goes first). A failure only keeps the report
// queued: the run's report stands.
func (a *Agent) pushReport(ctx context.Context, r report.Report) {
	if a.cfg.Push == nil {
		return
	}
	if err := a.cfg.Push.Enqueue(r); err != nil {
		a.log.Warn("report not queued for the controller", "report", r.ID, "err", err)
		return
	}
	_, _ = a.SyncReports(ctx)
}
