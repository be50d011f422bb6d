package audit

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netmcp/netmcp/internal/syncbuf"
	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/pki"
)

func TestFormatRFC5424(t *testing.T) {
	r := Record{Seq: 7, Time: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC), Session: `s"1]`,
		Identity: `alice\x`, Kind: KindResponse, Method: "tools/call", Tool: "network.yang.get",
		Outcome: OutcomeError, ErrorCode: -32083, Prev: Genesis, Hash: "abc"}
	got := string(FormatRFC5424(r, "r 1", "netmcp", 42))
	want := `<108>1 2026-01-02T03:04:05.123456Z r1 netmcp 42 response [netmcp@32473 session="s\"1\]" tool="network.yang.get" outcome="error" seq="7" hash="abc" identity="alice\\x"] {"seq":7,`
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got  %s\nwant %s…", got, want)
	}
	r.Outcome, r.Tool, r.Kind = OutcomeOK, "", ""
	if got := string(FormatRFC5424(r, "", "", 1)); !strings.HasPrefix(got, `<110>1 2026-01-02T03:04:05.123456Z - - 1 - [netmcp@32473 session="s\"1\]" tool="tools/call" outcome="ok"`) {
		t.Fatalf("defaults: %s", got)
	}
}

// rsyslogd runs a real rsyslogd in the foreground, listening with imtcp
// on a free loopback port (TLS with the ossl driver when tlsDir is set),
// and returns the port and the file it writes messages to.
func rsyslogd(t *testing.T, certFiles []string) (port int, out string) {
	t.Helper()
	bin, err := exec.LookPath("rsyslogd")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("rsyslogd is not installed (apt-get install rsyslog rsyslog-openssl); it is required when CI=true")
		}
		t.Skip("rsyslogd not installed (apt-get install rsyslog rsyslog-openssl): skipping the real-syslog test")
	}
	if certFiles != nil {
		if matches, _ := filepath.Glob("/usr/lib/*/rsyslog/lmnsd_ossl.so"); len(matches) == 0 {
			if os.Getenv("CI") == "true" {
				t.Fatal("rsyslog's OpenSSL stream driver is not installed (apt-get install rsyslog-openssl); it is required when CI=true")
			}
			t.Skip("rsyslog-openssl not installed: skipping syslog over TLS")
		}
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	out = filepath.Join(dir, "messages.log")
	global := fmt.Sprintf(`global(workDirectory=%q`, dir)
	module := `module(load="imtcp")`
	if certFiles != nil {
		global += fmt.Sprintf(` defaultNetstreamDriver="ossl" defaultNetstreamDriverCAFile=%q defaultNetstreamDriverCertFile=%q defaultNetstreamDriverKeyFile=%q`,
			certFiles[0], certFiles[1], certFiles[2])
		module = `module(load="imtcp" streamDriver.name="ossl" streamDriver.mode="1" streamDriver.authMode="anon")`
	}
	conf := global + ")\n" + module + "\n" + fmt.Sprintf(`
template(name="audit" type="string" string="%%msgid%%|%%app-name%%|%%structured-data%%|%%msg%%\n")
ruleset(name="audit") { action(type="omfile" file=%q template="audit") }
input(type="imtcp" address="127.0.0.1" port="%d" ruleset="audit")
`, out, port)
	confPath := filepath.Join(dir, "rsyslog.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-n", "-f", confPath, "-i", filepath.Join(dir, "rsyslogd.pid"))
	var stderr syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(testwait.Timeout(5 * time.Second)):
			cmd.Process.Kill()
			<-exited
		}
	})
	testwait.Until(t, 10*time.Second, fmt.Sprintf("rsyslogd listening on %d", port), func() (bool, string) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return true, ""
		}
		select {
		case err := <-exited:
			t.Fatalf("rsyslogd exited: %v\n%s", err, stderr.String())
		default:
		}
		return false, fmt.Sprintf("%v\n%s", err, stderr.String())
	})
	return port, out
}

// waitLines waits until file has n lines and returns them.
func waitLines(t *testing.T, file string, n int) []string {
	t.Helper()
	var lines []string
	testwait.Until(t, 10*time.Second, fmt.Sprintf("%s has %d lines", file, n), func() (bool, string) {
		lines = nil
		if f, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			f.Close()
		}
		return len(lines) >= n, fmt.Sprintf("%d lines", len(lines))
	})
	return lines
}

func TestSyslogExportToRsyslog(t *testing.T) {
	ca, err := pki.NewCA("syslog CA")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.Issue("localhost", pki.KindServer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certDir := t.TempDir()
	certPath, keyPath, err := pki.WriteKeyPair(certDir, "rsyslog", certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	caPath := filepath.Join(certDir, "ca.pem")
	if err := os.WriteFile(caPath, ca.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, network := range []string{"tcp", "tls"} {
		t.Run(network, func(t *testing.T) {
			var files []string
			if network == "tls" {
				files = []string{caPath, certPath, keyPath}
			}
			port, out := rsyslogd(t, files)
			cfg := SyslogConfig{Network: network, Addr: fmt.Sprintf("127.0.0.1:%d", port), Hostname: "r1"}
			if network == "tls" {
				cfg.TLS, err = pki.ClientTLSConfig(ca.CertPEM, nil, nil, "localhost")
				if err != nil {
					t.Fatal(err)
				}
			}
			var exportErrs []error
			cfg.OnError = func(err error) { exportErrs = append(exportErrs, err) }
			sl, err := NewSyslog(cfg)
			if err != nil {
				t.Fatal(err)
			}
			log, err := Open(filepath.Join(t.TempDir(), FileName), Options{Sinks: []Sink{sl}})
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			recs := []Record{
				{Session: "sess-1", Identity: "alice", Kind: KindRequest, ID: "1", Method: "tools/call", Tool: "network.yang.get",
					Arguments: []byte(`{"path":"/ietf-interfaces:interfaces","note":"multi\nline ] \" quote"}`)},
				{Session: "sess-1", Identity: "alice", Kind: KindResponse, ID: "1", Method: "tools/call", Tool: "network.yang.get",
					Outcome: OutcomeOK, DurationMS: 12.5},
				{Session: "sess-1", Identity: "alice", Kind: KindResponse, ID: "2", Method: "tools/call", Tool: "network.commit",
					Outcome: OutcomeError, ErrorCode: -32083},
			}
			var written []Record
			for _, r := range recs {
				w, err := log.Append(r)
				if err != nil {
					t.Fatal(err)
				}
				written = append(written, w)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(10*time.Second))
			defer cancel()
			if err := sl.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			lines := waitLines(t, out, len(recs))
			if err := sl.Close(); err != nil {
				t.Fatal(err)
			}
			for i, w := range written {
				wantSD := fmt.Sprintf(`[netmcp@32473 session="sess-1" tool="%s" outcome="%s" seq="%d" hash="%s" identity="alice"]`,
					w.Tool, w.Outcome, w.Seq, w.Hash)
				wantPrefix := w.Kind + "|netmcp|" + wantSD + "|"
				if !strings.HasPrefix(lines[i], wantPrefix) {
					t.Errorf("line %d:\n got %s\nwant %s…", i+1, lines[i], wantPrefix)
				}
				if !strings.Contains(lines[i], `"hash":"`+w.Hash+`"`) {
					t.Errorf("line %d lacks the record JSON: %s", i+1, lines[i])
				}
			}
			if sl.Dropped() != 0 || len(exportErrs) != 0 {
				t.Errorf("dropped %d, errors %v", sl.Dropped(), exportErrs)
			}
		})
	}
}

func TestSyslogUnreachableDrops(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	var errs []error
	sl, err := NewSyslog(SyslogConfig{Network: "tcp", Addr: addr, DialTimeout: 200 * time.Millisecond,
		OnError: func(err error) { errs = append(errs, err) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := sl.Export(Record{Seq: 1, Kind: KindRequest}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(10*time.Second))
	defer cancel()
	if err := sl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	sl.Close()
	if sl.Dropped() != 1 || len(errs) != sendAttempts || !strings.Contains(errs[0].Error(), "syslog dial") {
		t.Fatalf("dropped %d, errors %v", sl.Dropped(), errs)
	}
	if err := sl.Export(Record{}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("export after close: %v", err)
	}
	if _, err := NewSyslog(SyslogConfig{Network: "udp", Addr: addr}); err == nil {
		t.Fatal("udp accepted")
	}
}
