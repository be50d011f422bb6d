package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/audit"
)

// AuditFile is an audit log the console searches.
type AuditFile struct {
	// Name says whose log it is ("controller", "console", "r1").
	Name string
	// Path is the log's file; its rotated segments are read too.
	Path string
	// Device, for a device's own log, is the device's name: every record
	// of it is about that device.
	Device string
}

// Limits of an audit search.
const (
	maxAuditHits  = 500 // records shown, newest first
	auditTimeForm = "2006-01-02T15:04"
)

// auditQuery is a search of the audit logs; empty members match all.
type auditQuery struct {
	Device, User, Tool, Correlation string
	From, To                        string // auditTimeForm, UTC
	from, to                        time.Time
}

// parseAuditQuery reads a query from the URL; a time that does not parse
// is an error naming it.
func parseAuditQuery(r *http.Request) (auditQuery, error) {
	v := r.URL.Query()
	q := auditQuery{Device: strings.TrimSpace(v.Get("device")), User: strings.TrimSpace(v.Get("user")), Tool: strings.TrimSpace(v.Get("tool")),
		Correlation: strings.TrimSpace(v.Get("correlation")), From: strings.TrimSpace(v.Get("from")), To: strings.TrimSpace(v.Get("to"))}
	for _, s := range []string{q.Device, q.User, q.Tool, q.Correlation} {
		if len(s) > 200 {
			return q, errors.New("a search term is longer than 200 bytes")
		}
	}
	var err error
	if q.From != "" {
		if q.from, err = time.Parse(auditTimeForm, q.From); err != nil {
			return q, fmt.Errorf("from %q: want a time as YYYY-MM-DDTHH:MM (UTC)", q.From)
		}
	}
	if q.To != "" {
		if q.to, err = time.Parse(auditTimeForm, q.To); err != nil {
			return q, fmt.Errorf("to %q: want a time as YYYY-MM-DDTHH:MM (UTC)", q.To)
		}
		q.to = q.to.Add(time.Minute) // the whole minute named
	}
	if !q.from.IsZero() && !q.to.IsZero() && q.to.Before(q.from) {
		return q, errors.New("the time range ends before it starts")
	}
	return q, nil
}

// auditHit is a record found, with the log it is in.
type auditHit struct {
	Log string
	audit.Record
	Args string
}

// fold tells whether s contains sub, ignoring case.
func fold(s, sub string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(sub)) }

// match tells whether a record of file f answers q.
func (q auditQuery) match(f AuditFile, r audit.Record) bool {
	if !q.from.IsZero() && r.Time.Before(q.from) || !q.to.IsZero() && !r.Time.Before(q.to) {
		return false
	}
	if q.User != "" && !fold(r.Identity, q.User) {
		return false
	}
	if q.Correlation != "" && r.Correlation != q.Correlation {
		return false
	}
	var args map[string]any
	if (q.Device != "" && f.Device == "") || q.Tool != "" {
		_ = json.Unmarshal(r.Arguments, &args)
	}
	if q.Tool != "" {
		t, _ := args["tool"].(string)
		if !fold(r.Tool, q.Tool) && !fold(t, q.Tool) && !fold(r.Method, q.Tool) {
			return false
		}
	}
	if q.Device != "" && f.Device != q.Device {
		if f.Device != "" {
			return false
		}
		d, _ := args["device"].(string)
		var list []string
		if ds, ok := args["devices"].([]any); ok {
			for _, x := range ds {
				if s, ok := x.(string); ok {
					list = append(list, s)
				}
			}
		}
		if d != q.Device && !slices.Contains(list, q.Device) {
			return false
		}
	}
	return true
}

// auditLogState is a log's chain verification, as the page shows it.
type auditLogState struct {
	Name, Path string
	Records    int
	OK         bool
	Problem    string
}

// searchAudit reads every log, verifies its chain, and returns the
// records that answer q, newest first (at most maxAuditHits), and how
// many answered.
func searchAudit(files []AuditFile, q auditQuery) (hits []auditHit, total int, logs []auditLogState) {
	for _, f := range files {
		st := auditLogState{Name: f.Name, Path: f.Path}
		rep, err := audit.Verify(f.Path)
		st.Records, st.OK = rep.Records, err == nil
		if err != nil {
			st.Problem = err.Error()
		}
		logs = append(logs, st)
		segs, _ := audit.Segments(f.Path)
		for _, p := range append(segs, f.Path) {
			recs, err := audit.ReadFile(p)
			if err != nil && len(recs) == 0 {
				continue
			}
			for _, r := range recs {
				if q.match(f, r) {
					total++
					hits = append(hits, auditHit{Log: f.Name, Record: r, Args: string(r.Arguments)})
				}
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b auditHit) int { return b.Time.Compare(a.Time) })
	if len(hits) > maxAuditHits {
		hits = hits[:maxAuditHits]
	}
	return hits, total, logs
}

// auditFiles are the logs the console searches: Options.AuditFiles, else
// the log it writes.
func (c *Console) auditFiles() []AuditFile {
	if len(c.opts.AuditFiles) > 0 || c.opts.Audit == nil {
		return c.opts.AuditFiles
	}
	return []AuditFile{{Name: "console", Path: c.opts.Audit.Path()}}
}

// serveAudit is the audit search page: read-only.
func (c *Console) serveAudit(w http.ResponseWriter, r *http.Request) {
	files := c.auditFiles()
	if len(files) == 0 {
		c.badRequest(w, r, http.StatusNotFound, "This console was given no audit log to search.")
		return
	}
	q, err := parseAuditQuery(r)
	if err != nil {
		c.badRequest(w, r, http.StatusBadRequest, "Audit search: "+err.Error())
		return
	}
	hits, total, logs := searchAudit(files, q)
	c.render(w, http.StatusOK, "audit.html", struct {
		page
		Q     auditQuery
		Hits  []auditHit
		Total int
		Logs  []auditLogState
	}{c.basePage(r, "Audit"), q, hits, total, logs})
}
