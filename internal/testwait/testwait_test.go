package testwait

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestScale(t *testing.T) {
	cpus := float64(runtime.NumCPU())
	tests := []struct {
		name    string
		env     string
		loadavg string // "" for no file
		want    float64
	}{
		{"env", "3", "0.00 0.00 0.00 1/100 1", 3},
		{"env-fraction", "1.5", "", 1.5},
		{"env-below-one-ignored", "0.5", "", 1},
		{"env-below-load", "2", fmt.Sprintf("%.2f 0.00 0.00 1/100 1", 4*cpus), 4},
		{"env-above-cap", "12", fmt.Sprintf("%.2f 0.00 0.00 1/100 1", 100*cpus), 12},
		{"env-garbage-ignored", "fast", "", 1},
		{"no-loadavg", "", "", 1},
		{"idle", "", "0.10 0.20 0.30 1/100 1", 1},
		{"loaded", "", fmt.Sprintf("%.2f 0.00 0.00 1/100 1", 4*cpus), 4},
		{"capped", "", fmt.Sprintf("%.2f 0.00 0.00 1/100 1", 100*cpus), maxScale},
		{"unreadable", "", "busy", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Env, tt.env)
			path := filepath.Join(t.TempDir(), "loadavg")
			if tt.loadavg != "" {
				if err := os.WriteFile(path, []byte(tt.loadavg+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			setLoadavg(t, path)
			if got := Scale(); got != tt.want {
				t.Errorf("Scale() = %v, want %v", got, tt.want)
			}
			if got, want := Timeout(2*time.Second), time.Duration(float64(2*time.Second)*tt.want); got != want {
				t.Errorf("Timeout(2s) = %v, want %v", got, want)
			}
		})
	}
}

// setLoadavg makes the package read the load average from path for the
// rest of the test.
func setLoadavg(t *testing.T, path string) {
	old := loadavg
	loadavg = path
	t.Cleanup(func() { loadavg = old })
}

func TestFor(t *testing.T) {
	setLoadavg(t, filepath.Join(t.TempDir(), "none"))
	t.Setenv(Env, "1")
	tests := []struct {
		name      string
		trueAfter int // calls before cond returns true; -1 never
		want      bool
	}{
		{"at-once", 0, true},
		{"third-call", 2, true},
		{"never", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			start := time.Now()
			got := For(200*time.Millisecond, func() bool {
				calls++
				return tt.trueAfter >= 0 && calls > tt.trueAfter
			})
			if got != tt.want {
				t.Fatalf("For = %v after %d calls, want %v", got, calls, tt.want)
			}
			if !tt.want && time.Since(start) < 200*time.Millisecond {
				t.Errorf("For gave up after %s, before its deadline", time.Since(start))
			}
		})
	}
}

// recorder is a testing.TB whose Fatalf ends the calling goroutine, as the
// real one does, and keeps the message.
type recorder struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.msg = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

func TestUntil(t *testing.T) {
	setLoadavg(t, filepath.Join(t.TempDir(), "none"))
	t.Setenv(Env, "2")
	tests := []struct {
		name    string
		ok      bool
		wantMsg string
	}{
		{"holds", true, ""},
		{"fails-naming-what-and-last-message", false, "route: not within 100ms (50ms scaled to the machine): still 2 hops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Until(r, 50*time.Millisecond, "route", func() (bool, string) { return tt.ok, "still 2 hops" })
			}()
			<-done
			if !strings.Contains(r.msg, tt.wantMsg) || (tt.wantMsg == "") != (r.msg == "") {
				t.Errorf("Until failed with %q, want %q", r.msg, tt.wantMsg)
			}
		})
	}
}
