package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Limits of the runs (asks and applies) the console keeps.
const (
	maxActiveRuns = 4                // runs in progress at once
	maxKeptRuns   = 64               // finished runs kept for their pages
	runTimeout    = 5 * time.Minute  // bound on one run
	maxRunLines   = 2000             // progress lines kept per run
	maxIntentLen  = 500              // bytes of an intent
	runKeepAlive  = 15 * time.Second // SSE comment period
)

// run is one ask or apply: its progress lines as they come, then the
// report it made or its error.
type run struct {
	ID    string
	Kind  string // "ask" or "apply"
	Title string // the intent, or what is applied
	User  string
	Start time.Time

	mu      sync.Mutex
	lines   []string
	partial string
	done    bool
	report  string // the report's id when done
	err     string
	changed chan struct{} // closed and replaced at each change
}

// Write takes progress text; each complete line is a progress line.
func (r *run) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.partial + string(p)
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok {
			break
		}
		if len(r.lines) < maxRunLines {
			r.lines = append(r.lines, line)
		}
		s = rest
	}
	r.partial = s
	r.notifyLocked()
	return len(p), nil
}

func (r *run) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// finish records the run's end.
func (r *run) finish(report string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.partial != "" {
		r.lines = append(r.lines, r.partial)
		r.partial = ""
	}
	r.done, r.report = true, report
	if err != nil {
		r.err = err.Error()
	}
	r.notifyLocked()
}

// snapshot returns the lines from index from on, whether the run is done,
// and the channel closed at its next change.
func (r *run) snapshot(from int) (lines []string, done bool, report, err string, changed <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from < len(r.lines) {
		lines = append(lines, r.lines[from:]...)
	}
	return lines, r.done, r.report, r.err, r.changed
}

// runs are the console's runs, by id.
type runs struct {
	mu     sync.Mutex
	byID   map[string]*run
	order  []string // oldest first
	active int
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newRuns() *runs {
	ctx, cancel := context.WithCancel(context.Background())
	return &runs{byID: map[string]*run{}, ctx: ctx, cancel: cancel}
}

// start runs fn in the background as a new run; it refuses when too many
// runs are in progress.
func (rs *runs) start(kind, title, user string, fn func(ctx context.Context, r *run) (string, error)) (*run, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ctx.Err() != nil {
		return nil, fmt.Errorf("the console is closing")
	}
	if rs.active >= maxActiveRuns {
		return nil, fmt.Errorf("%d runs are in progress already: wait for one to end", rs.active)
	}
	r := &run{ID: randomToken()[:16], Kind: kind, Title: title, User: user, Start: time.Now(), changed: make(chan struct{})}
	rs.byID[r.ID] = r
	rs.order = append(rs.order, r.ID)
	rs.active++
	for len(rs.order) > maxKeptRuns {
		old := rs.byID[rs.order[0]]
		if !old.finished() {
			break
		}
		delete(rs.byID, rs.order[0])
		rs.order = rs.order[1:]
	}
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		ctx, cancel := context.WithTimeout(rs.ctx, runTimeout)
		defer cancel()
		id, err := fn(ctx, r)
		r.finish(id, err)
		rs.mu.Lock()
		rs.active--
		rs.mu.Unlock()
	}()
	return r, nil
}

func (r *run) finished() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

func (rs *runs) get(id string) *run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.byID[id]
}

// close cancels the runs in progress and waits for them.
func (rs *runs) close() {
	rs.mu.Lock()
	rs.cancel()
	rs.mu.Unlock()
	rs.wg.Wait()
}

// serveRunEvents streams a run: a "line" event per progress line, then
// "done" with the report's id or the error.
func (c *Console) serveRunEvents(w http.ResponseWriter, r *http.Request) {
	rn := c.runs.get(r.PathValue("id"))
	if rn == nil {
		http.NotFound(w, r)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return
	}
	fl.Flush()
	keep := time.NewTicker(runKeepAlive)
	defer keep.Stop()
	sent := 0
	for {
		lines, done, report, errText, changed := rn.snapshot(sent)
		for _, l := range lines {
			b, _ := json.Marshal(l)
			if _, err := fmt.Fprintf(w, "event: line\ndata: %s\n\n", b); err != nil {
				return
			}
		}
		sent += len(lines)
		if done {
			b, _ := json.Marshal(map[string]string{"report": report, "error": errText})
			_, _ = fmt.Fprintf(w, "event: done\ndata: %s\n\n", b)
			fl.Flush()
			return
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-c.runs.ctx.Done():
			return
		case <-changed:
		case <-keep.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		}
	}
}
