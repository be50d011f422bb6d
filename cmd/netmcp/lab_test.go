package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/inventory"
	"github.com/netmcp/netmcp/lab/serve"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	ch  chan struct{}
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	b.mu.Unlock()
	select {
	case b.ch <- struct{}{}:
	default:
	}
	return n, err
}

// runningLabCmd is `netmcp lab up ...` running in this process.
type runningLabCmd struct {
	out, errw *syncBuffer
	done      chan error // receives lab up's result
	cancel    context.CancelFunc
	stopped   bool
}

// startLabUp runs `netmcp lab up ARGS...` until stop (or ctx ends) and
// waits for its first n device lines, which it returns (split in fields);
// the other lines it prints (console: URL) are left in out.
func startLabUp(ctx context.Context, t *testing.T, n int, within time.Duration, args ...string) (*runningLabCmd, [][]string) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	r := &runningLabCmd{out: &syncBuffer{ch: make(chan struct{}, 1)}, errw: &syncBuffer{ch: make(chan struct{}, 1)}, done: make(chan error, 1), cancel: cancel}
	cmd := newLabCmd()
	cmd.SetOut(r.out)
	cmd.SetErr(r.errw)
	cmd.SetArgs(append([]string{"up"}, args...))
	go func() { r.done <- cmd.ExecuteContext(ctx) }()
	deadline := time.After(within)
	var lines []string
	for len(lines) < n {
		select {
		case <-r.out.ch:
			lines = deviceLines(r.out.String())
		case err := <-r.done:
			r.stopped = true
			t.Fatalf("lab up %v ended early: %v\n%s", args, err, r.errw.String())
		case <-deadline:
			r.stop(t)
			t.Fatalf("lab up %v printed %q\n%s", args, r.out.String(), r.errw.String())
		}
	}
	var fields [][]string
	for _, l := range lines {
		fields = append(fields, strings.Split(l, "\t"))
	}
	return r, fields
}

// deviceLines are the device lines of lab up's output: those with tabs.
func deviceLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "\t") {
			lines = append(lines, l)
		}
	}
	return lines
}

// stop interrupts lab up and checks it stops cleanly; a second call does
// nothing.
func (r *runningLabCmd) stop(t *testing.T) {
	t.Helper()
	if r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("lab up stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("lab up did not stop after cancel")
	}
}

// labToken is an http.RoundTripper that sends a lab's bearer token.
type labToken struct{ token string }

func (l labToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+l.token)
	return http.DefaultTransport.RoundTrip(r)
}

// labClient returns an HTTP client that sends the token of the lab whose
// state directory is dir (STATE-DIR/token), as every client of a lab's
// devices must.
func labClient(t testing.TB, dir string) *http.Client {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, serve.TokenFile))
	if err != nil {
		t.Fatalf("the lab's token: %v", err)
	}
	return &http.Client{Transport: labToken{strings.TrimSpace(string(b))}}
}

// TestLabUp runs `netmcp lab up`, checks it prints device, dialect and URL
// for every device, calls network.cli.exec on one of them with the lab's
// token (and is refused without it), and stops it; no output names the
// token.
func TestLabUp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r, lines := startLabUp(ctx, t, 5, 10*time.Second, "--state-dir", dir)
	defer r.stop(t)
	want := map[string]string{"r1": "huawei-vrp", "r2": "cisco-iosxr", "r3": "huawei-vrp", "h1": "linux", "h3": "linux"}
	urls := map[string]string{}
	for _, f := range lines {
		if len(f) != 3 || want[f[0]] != f[1] || !strings.HasPrefix(f[2], "http://127.0.0.1:") || !strings.HasSuffix(f[2], "/mcp") {
			t.Fatalf("line %q: want device<TAB>dialect<TAB>http://127.0.0.1:PORT/mcp", f)
		}
		urls[f[0]] = f[2]
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "lab-test", Version: "1"}, nil)
	if cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls["r2"], MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Fatal("r2 accepted a session without the lab's token")
	}
	hc := labClient(t, dir)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: urls["r2"], HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "network.cli.exec", Arguments: map[string]any{"cmd": "show version"}})
	if err != nil || res.IsError {
		t.Fatalf("cli.exec on r2: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(strings.ToLower(text), "ios xr") && !strings.Contains(text, "r2") {
		t.Fatalf("show version on r2 says %q", text)
	}
	cs.Close()
	token := hc.Transport.(labToken).token
	r.stop(t)
	if out := r.out.String(); strings.Contains(out, token) {
		t.Errorf("lab up's output holds the token:\n%s", out)
	}
}

// TestLabUpConsole checks that `netmcp lab up` serves the web console and
// prints its login URL after the devices, that the URL logs a browser in
// and the session cookie then opens the map, that its ask box finds an
// injected fault and applies the approved fix, and that --no-console and
// --console=off print none.
func TestLabUpConsole(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	r, _ := startLabUp(ctx, t, 5, 10*time.Second, "--state-dir", state, "--reports", t.TempDir(),
		"--fault", "icmp_acl_block r3:GigabitEthernet0/0/0", "--console-viewer", "victor")
	defer r.stop(t)
	var login string
	eventually(t, 5*time.Second, "lab up prints console: URL", func() bool {
		for _, l := range strings.Split(r.out.String(), "\n") {
			if u, ok := strings.CutPrefix(l, "console: "); ok {
				login = u
				return true
			}
		}
		return false
	})
	if !strings.HasPrefix(login, "http://127.0.0.1:") || !strings.Contains(login, "/login?token=") {
		t.Fatalf("console URL %q: want http://127.0.0.1:PORT/login?token=...", login)
	}
	eventually(t, 5*time.Second, "lab up prints the viewer's login", func() bool {
		return strings.Contains(r.out.String(), "console (viewer victor): http://127.0.0.1:")
	})
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	get := func(u string) (int, string) {
		t.Helper()
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := get(login); code != http.StatusOK {
		t.Fatalf("GET login URL: %d, want 200", code)
	}
	base, _, _ := strings.Cut(login, "/login")
	if u, _ := url.Parse(base); len(jar.Cookies(u)) == 0 {
		t.Fatal("the login URL set no session cookie")
	}
	if code, body := get(base + "/"); code != http.StatusOK || !strings.Contains(body, "<svg") || !strings.Contains(body, "r1") {
		t.Fatalf("GET / with the session: %d, want 200 and the map of r1..:\n%.500s", code, body)
	}
	// The ask box: the intent finds the ACL on r3, the fix is applied
	// once approved, and the console's audit log records the decision.
	jar2, _ := cookiejar.New(nil)
	s := &webSession{t: t, hc: &http.Client{Jar: jar2}, base: base}
	s.hc.Jar.SetCookies(mustURL(t, base), jar.Cookies(mustURL(t, base)))
	s.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	_, home, _ := s.do(http.MethodGet, base+"/", nil)
	if m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindStringSubmatch(home); m != nil {
		s.csrf = m[1]
	}
	if page := s.askAndFix("verify reachability between r1 and h3"); !strings.Contains(page, "confirmed") {
		t.Errorf("the fix was not confirmed:\n%.3000s", page)
	}
	recs, err := audit.ReadFile(filepath.Join(state, consoleAuditFile))
	if err != nil || len(recs) == 0 {
		t.Errorf("console audit log: %v, %d records", err, len(recs))
	}
	r.stop(t)

	for _, off := range []string{"--no-console", "--console=off"} {
		r, _ := startLabUp(ctx, t, 5, 10*time.Second, "--state-dir", t.TempDir(), off)
		out := r.out.String()
		r.stop(t)
		if strings.Contains(out, "console") {
			t.Errorf("lab up %s printed a console:\n%s", off, out)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// eventually waits until cond holds, within a deadline scaled to the
// machine's load (testwait).
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, within, what, func() (bool, string) { return cond(), "" })
}

// TestLabUpGNMI checks that `netmcp lab up --gnmi` writes each router's
// gnmi:// URL into the inventory, that the inventory still loads, that
// the gNMI driver reads r1's interfaces through it with the lab's CA and
// client certificate, and that without that certificate r1 is refused.
func TestLabUpGNMI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	r, _ := startLabUp(ctx, t, 5, 10*time.Second, "--state-dir", dir, "--gnmi", "--no-console")
	defer r.stop(t)
	inv, err := inventory.Load(filepath.Join(dir, serve.InventoryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range inv.Devices {
		if want := d.Role != "host"; (d.GNMI != "") != want {
			t.Errorf("inventory entry of %s has gnmi %q; want one for a router only", d.Name, d.GNMI)
		}
	}
	r1, _ := inv.Device("r1")
	ca := filepath.Join(dir, "gnmi", "ca.pem")
	if !strings.HasPrefix(r1.GNMI, "gnmi://127.0.0.1:") || !strings.Contains(r1.GNMI, url.QueryEscape(ca)) {
		t.Fatalf("r1's gnmi URL is %q: want gnmi://127.0.0.1:PORT?ca-file=%s", r1.GNMI, ca)
	}
	u, err := url.Parse(r1.GNMI)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if key := q.Get("key-file"); key != filepath.Join(dir, "gnmi", "client.key") {
		t.Errorf("r1's gnmi URL names the key %q", key)
	} else if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the lab's gNMI client key: %v %v, want mode 0600", err, st)
	}
	q.Del("cert-file")
	q.Del("key-file")
	u.RawQuery = q.Encode()
	if anon, err := device.Open(ctx, u.String(), device.Options{}); err == nil {
		_, err = anon.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces")
		anon.Close()
		if err == nil {
			t.Error("r1 answers gNMI without the lab's client certificate")
		}
	}
	drv, err := device.Open(ctx, r1.GNMI, device.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	got, err := drv.Get(ctx, device.Operational, "/openconfig-interfaces:interfaces")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), "GigabitEthernet") {
		t.Fatalf("r1's interfaces over gNMI: %.300s", b)
	}
	r.stop(t)
}
