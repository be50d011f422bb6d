package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/netproto"
)

// The device's resources a device page reads besides its YANG trees: the
// commit history, each commit's diff, and the syslog tail.
const (
	uriCommitHistory = "network:///config/history"
	uriCommitPrefix  = "network:///config/history/"
	syslogTail       = 50
	// historyShown is how many of the newest commits a page shows, each
	// with its diff (one read each).
	historyShown = 20
)

// commitRow is one commit of a device's configuration history, as its
// page shows it.
type commitRow struct {
	ID      string    `json:"commit-id"`
	Time    time.Time `json:"time"`
	User    string    `json:"user"`
	Comment string    `json:"comment"`
	Status  string    `json:"status"`
	// Diff is what the commit changed, from the configuration before it
	// (empty when the device does not tell: DiffErr says why).
	Diff    string `json:"-"`
	DiffErr string `json:"-"`
}

// readHistory reads the newest commits of d's configuration history, and
// what each changed, through MCP: as masked as any MCP result the
// console's identity gets. A device that keeps no history gives an error.
func readHistory(ctx context.Context, d *client.Device) ([]commitRow, int, error) {
	res, err := d.ReadResource(ctx, uriCommitHistory)
	if err != nil {
		return nil, 0, err
	}
	if len(res.Contents) == 0 {
		return nil, 0, fmt.Errorf("%s: empty answer", uriCommitHistory)
	}
	var h struct {
		Commits []commitRow `json:"commits"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &h); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", uriCommitHistory, err)
	}
	total := len(h.Commits)
	rows := h.Commits[:min(total, historyShown)]
	for i := range rows {
		rows[i].Diff, rows[i].DiffErr = readCommitDiff(ctx, d, rows[i].ID)
	}
	return rows, total, nil
}

// readCommitDiff reads what commit id changed.
func readCommitDiff(ctx context.Context, d *client.Device, id string) (diff, why string) {
	res, err := d.ReadResource(ctx, uriCommitPrefix+url.PathEscape(id))
	if err != nil {
		return "", shortErr(err)
	}
	if len(res.Contents) == 0 {
		return "", "empty answer"
	}
	var c struct {
		Diff string `json:"diff"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &c); err != nil {
		return "", err.Error()
	}
	if c.Diff == "" {
		return "", "no change"
	}
	return c.Diff, ""
}

// readSyslog reads the last syslogTail lines of d's log.
func readSyslog(ctx context.Context, d *client.Device) ([]string, error) {
	res, err := d.ReadResource(ctx, netproto.URISyslogPrefix+fmt.Sprint(syslogTail))
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, rc := range res.Contents {
		if t := strings.TrimRight(rc.Text, "\n"); t != "" {
			lines = append(lines, strings.Split(t, "\n")...)
		}
	}
	return lines, nil
}

// serveDeviceEvents streams a device's syslog tail to its open page: the
// last lines whenever they change (event "syslog", a JSON array of
// lines), read through MCP every Interval while the page is open. An
// error reading it is sent as event "syslog-error".
func (c *Console) serveDeviceEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	d := c.fleetDevice(r.PathValue("name"))
	if d == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	send := func(name string, v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return
	}
	fl.Flush()
	// The stream ends with the request or with the console.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	t := time.NewTicker(c.opts.Interval)
	defer t.Stop()
	var last []string
	lastErr := ""
	for first := true; ; first = false {
		rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
		lines, err := readSyslog(rctx, d)
		rcancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if msg := shortErr(err); msg != lastErr {
				lastErr = msg
				if !send("syslog-error", msg) {
					return
				}
			}
		case first || !slices.Equal(lines, last):
			last, lastErr = lines, ""
			if lines == nil {
				lines = []string{}
			}
			if !send("syslog", lines) {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
