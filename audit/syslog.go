package audit

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SDID is the structured-data id of netmcp audit records (32473 is the
// private enterprise number RFC 5612 reserves for documentation).
const SDID = "netmcp@32473"

// facilityLogAudit is RFC 5424 facility 13, "log audit".
const facilityLogAudit = 13

// FormatRFC5424 renders r as an RFC 5424 message: facility log audit,
// severity informational (warning for error outcomes), MSGID the record
// kind, structured data [netmcp@32473 session tool outcome seq hash
// identity], and the record's JSON as MSG.
func FormatRFC5424(r Record, hostname, appName string, pid int) []byte {
	sev := 6
	if r.Outcome == OutcomeError {
		sev = 4
	}
	tool := r.Tool
	if tool == "" {
		tool = r.Method
	}
	body, _ := json.Marshal(r)
	var b strings.Builder
	fmt.Fprintf(&b, "<%d>1 %s %s %s %d %s [%s session=\"%s\" tool=\"%s\" outcome=\"%s\" seq=\"%d\" hash=\"%s\" identity=\"%s\"] ",
		facilityLogAudit*8+sev,
		r.Time.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		headerField(hostname, 255), headerField(appName, 48), pid, headerField(r.Kind, 32),
		SDID, sdEscape(r.Session), sdEscape(tool), sdEscape(r.Outcome), r.Seq, r.Hash, sdEscape(r.Identity))
	b.Write(body)
	return []byte(b.String())
}

// headerField makes s a valid header field: printable US-ASCII without
// spaces, at most max characters, "-" when empty.
func headerField(s string, max int) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < max; i++ {
		if c := s[i]; c > 32 && c < 127 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// sdEscaper escapes the characters RFC 5424 section 6.3.3 reserves in a PARAM-VALUE.
var sdEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `]`, `\]`)

// sdEscape escapes a PARAM-VALUE (RFC 5424 section 6.3.3).
func sdEscape(s string) string {
	return sdEscaper.Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

// SyslogConfig configures a Syslog exporter.
type SyslogConfig struct {
	// Network is "tcp" (RFC 6587 octet counting) or "tls" (RFC 5425).
	Network string
	// Addr is host:port of the collector.
	Addr string
	// TLS is the client configuration for "tls" (roots, client certificate).
	TLS *tls.Config
	// Hostname and AppName fill the header; defaults: os.Hostname(), "netmcp".
	Hostname, AppName string
	// QueueSize bounds records waiting to be sent (default 1024); when full,
	// Export drops the record and says so.
	QueueSize int
	// DialTimeout bounds each connection attempt (default 5 s).
	DialTimeout time.Duration
	// OnError, when set, is told of connection and write failures.
	OnError func(error)
}

// Syslog exports records to a syslog collector over TCP or TLS, in order,
// from a background goroutine that reconnects after failures. It is an
// audit Sink.
type Syslog struct {
	cfg     SyslogConfig
	pid     int
	queue   chan syslogItem
	done    chan struct{}
	closeMu sync.Mutex
	closed  bool
	dropped atomic.Uint64
	conn    net.Conn
}

type syslogItem struct {
	msg   []byte
	flush chan struct{}
}

// sendAttempts is how many times one record is tried before it is dropped.
const sendAttempts = 3

// NewSyslog checks cfg and starts the exporter; it connects lazily.
func NewSyslog(cfg SyslogConfig) (*Syslog, error) {
	switch cfg.Network {
	case "tcp", "tls":
	default:
		return nil, fmt.Errorf("audit: syslog network %q (want tcp or tls)", cfg.Network)
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return nil, fmt.Errorf("audit: syslog address: %w", err)
	}
	if cfg.Hostname == "" {
		cfg.Hostname, _ = os.Hostname()
	}
	if cfg.AppName == "" {
		cfg.AppName = "netmcp"
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 1024
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	s := &Syslog{cfg: cfg, pid: os.Getpid(), queue: make(chan syslogItem, cfg.QueueSize), done: make(chan struct{})}
	go s.run()
	return s, nil
}

// Export queues r for sending. It fails, and counts a drop, when the
// queue is full or the exporter is closed.
func (s *Syslog) Export(r Record) error {
	msg := FormatRFC5424(r, s.cfg.Hostname, s.cfg.AppName, s.pid)
	frame := append([]byte(strconv.Itoa(len(msg))+" "), msg...)
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		s.dropped.Add(1)
		return errors.New("audit: syslog exporter is closed")
	}
	select {
	case s.queue <- syslogItem{msg: frame}:
		return nil
	default:
		s.dropped.Add(1)
		return fmt.Errorf("audit: syslog queue full (%d records): record %d not exported", s.cfg.QueueSize, r.Seq)
	}
}

// Dropped returns how many records were not delivered.
func (s *Syslog) Dropped() uint64 { return s.dropped.Load() }

// Flush waits until every record queued before it was sent or dropped.
func (s *Syslog) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	select {
	case s.queue <- syslogItem{flush: ch}:
	case <-ctx.Done():
		s.closeMu.Unlock()
		return ctx.Err()
	}
	s.closeMu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close sends what is queued (waiting at most 5 s) and closes the connection.
func (s *Syslog) Close() error {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return nil
	}
	s.closed = true
	close(s.queue)
	s.closeMu.Unlock()
	select {
	case <-s.done:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("audit: syslog exporter did not drain within 5s")
	}
}

func (s *Syslog) run() {
	defer close(s.done)
	defer func() {
		if s.conn != nil {
			s.conn.Close()
		}
	}()
	for it := range s.queue {
		if it.flush != nil {
			close(it.flush)
			continue
		}
		s.send(it.msg)
	}
}

// send writes one frame, reconnecting with a short backoff; after
// sendAttempts failures the record is dropped.
func (s *Syslog) send(frame []byte) {
	backoff := 100 * time.Millisecond
	for attempt := 1; attempt <= sendAttempts; attempt++ {
		if s.conn == nil {
			c, err := s.dial()
			if err != nil {
				s.report(err)
				time.Sleep(backoff)
				backoff *= 2
				continue
			}
			s.conn = c
		}
		s.conn.SetWriteDeadline(time.Now().Add(s.cfg.DialTimeout))
		if _, err := s.conn.Write(frame); err != nil {
			s.report(fmt.Errorf("audit: syslog write to %s: %w", s.cfg.Addr, err))
			s.conn.Close()
			s.conn = nil
			continue
		}
		return
	}
	s.dropped.Add(1)
}

func (s *Syslog) dial() (net.Conn, error) {
	d := &net.Dialer{Timeout: s.cfg.DialTimeout}
	if s.cfg.Network == "tcp" {
		c, err := d.Dial("tcp", s.cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("audit: syslog dial %s: %w", s.cfg.Addr, err)
		}
		return c, nil
	}
	cfg := s.cfg.TLS
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg = cfg.Clone()
	if cfg.MinVersion < tls.VersionTLS12 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(s.cfg.Addr)
	}
	c, err := tls.DialWithDialer(d, "tcp", s.cfg.Addr, cfg)
	if err != nil {
		return nil, fmt.Errorf("audit: syslog TLS dial %s: %w", s.cfg.Addr, err)
	}
	return c, nil
}

func (s *Syslog) report(err error) {
	if s.cfg.OnError != nil {
		s.cfg.OnError(err)
	}
}
