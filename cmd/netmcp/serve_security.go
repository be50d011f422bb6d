package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/redact"
	"github.com/netmcp/netmcp/server"
	"github.com/netmcp/netmcp/transport"
)

// defaultAuditMaxSize is the size at which `netmcp serve` rotates the
// audit log by default.
const defaultAuditMaxSize = 64 << 20

// securityFlags are the security flags of `netmcp serve` (who may do
// what): TLS and mutual TLS, the TLS stream, the local role, limits and
// the audit trail's export. The policy file is serve's --policy.
type securityFlags struct {
	tlsCert, tlsKey, clientCA string
	tlsStreamListen           string
	localRole                 string
	stdioRole                 string
	maxRequestBytes           int
	rate                      float64
	burst                     int
	rateExplicit              bool // --rate or --burst given: the limit applies on stdio too
	maxConcurrent             int
	maxConnsPerSource         int
	auditSyslog               string
	auditSyslogCA             string
	auditFsync                string
	auditMaxSize              int64
	auditKeep                 int
	maxSessions               int
	maxSessionsPerIdentity    int

	redactor *redact.Redactor // shared by the log handler and the server
}

// bindSecurityFlags adds the security flags to serve's flag set.
func bindSecurityFlags(fl *pflag.FlagSet, sf *securityFlags) {
	fl.StringVar(&sf.tlsCert, "tls-cert", "", "server certificate (PEM) for HTTPS (--listen) and the TLS stream (--tls-stream-listen); TLS 1.3 only")
	fl.StringVar(&sf.tlsKey, "tls-key", "", "private key (PEM) of --tls-cert")
	fl.StringVar(&sf.clientCA, "client-ca", "", "CA bundle (PEM): require client certificates it signed (mutual TLS); the certificate's CN names the caller")
	fl.StringVar(&sf.tlsStreamListen, "tls-stream-listen", "", "serve the MCP-NET TLS stream (ALPN \"mcp\", length-prefixed JSON-RPC) on this address; needs --tls-cert")
	fl.StringVar(&sf.localRole, "local-role", policy.RoleViewer, "role of HTTP peers on loopback that no certificate or token authenticates and the policy does not map (\"none\": no role)")
	fl.StringVar(&sf.stdioRole, "stdio-role", policy.RoleOperator, "role of the stdio user when the policy does not map it; changes still need approval (\"none\": no role)")
	fl.IntVar(&sf.maxRequestBytes, "max-request-bytes", transport.DefaultMaxBodyBytes, "largest JSON-RPC message accepted (HTTP body, stdio line, TLS stream frame)")
	fl.Float64Var(&sf.rate, "rate", server.DefaultRatePerSecond, "calls per second per identity, sustained, on HTTP and the TLS stream; stdio (one local user) has no limit unless --rate or --burst is given (0: no limit; the policy's rateLimit wins)")
	fl.IntVar(&sf.burst, "burst", server.DefaultRateBurst, "burst of calls per identity (see --rate)")
	fl.IntVar(&sf.maxConcurrent, "max-concurrent", server.DefaultMaxConcurrentPerSession, "calls in progress per session (0: no limit; the policy's maxConcurrentPerSession wins)")
	fl.IntVar(&sf.maxConnsPerSource, "max-conns-per-source", transport.DefaultMaxConnsPerSource, "open connections one source IP may hold on each listener (HTTP, TLS stream); more are closed at once (-1: no limit)")
	fl.StringVar(&sf.auditSyslog, "audit-syslog", "", "also export audit records as RFC 5424 syslog to tcp://HOST:PORT or tls://HOST:PORT")
	fl.StringVar(&sf.auditSyslogCA, "audit-syslog-ca", "", "CA bundle (PEM) trusted for tls:// syslog (default: the system roots)")
	fl.Int64Var(&sf.auditMaxSize, "audit-max-size", defaultAuditMaxSize, "rotate the audit log when it would exceed this many bytes (0: never); segments stay hash-chained and `netmcp audit verify` checks them all")
	fl.IntVar(&sf.auditKeep, "audit-keep", 0, "rotated audit segments to keep, newest first (0: all)")
	fl.IntVar(&sf.maxSessions, "max-sessions", server.DefaultMaxSessions, "most sessions open at once; more are refused (retryable -32083)")
	fl.IntVar(&sf.maxSessionsPerIdentity, "max-sessions-per-identity", server.DefaultMaxSessionsPerIdentity, "most sessions open at once per caller identity")
	fl.StringVar(&sf.auditFsync, "audit-fsync", "writes", "when audit records reach the disk: writes (records of changes and approvals at once, others every second), always (every record), interval (every second) or never")
}

// sharedRedactor returns the redactor of the log handler and the server,
// made on first use.
func (sf *securityFlags) sharedRedactor() *redact.Redactor {
	if sf.redactor == nil {
		sf.redactor = redact.New(redact.Options{})
	}
	return sf.redactor
}

// wrapLogger returns logger with secrets masked in every record.
func (sf *securityFlags) wrapLogger(logger *slog.Logger) *slog.Logger {
	return slog.New(server.RedactingLogHandler(logger.Handler(), sf.sharedRedactor(), ""))
}

// serveArgs is what serveSecure needs from runServe.
type serveArgs struct {
	listen    string
	policy    *policy.Policy // the --policy file: access control and approval modes; nil = built-in
	stateDir  string
	httpOpts  transport.HTTPOptions
	logger    *slog.Logger
	stderr    io.Writer
	deviceURL string
	dialect   string
}

// serveSecure secures srv (policy, identities, audit, limits, redaction)
// and serves it: on stdio, or over HTTP/HTTPS (--listen) and/or the TLS
// stream (--tls-stream-listen) until ctx is done.
func serveSecure(ctx context.Context, sf *securityFlags, srv *server.Server, a serveArgs) error {
	if a.policy == nil {
		a.policy = policy.Default()
	}
	var err error
	var tlsCfg *tls.Config
	if sf.tlsCert != "" || sf.tlsKey != "" || sf.clientCA != "" {
		if tlsCfg, err = transport.LoadServerTLS(sf.tlsCert, sf.tlsKey, sf.clientCA); err != nil {
			return withExit(2, err)
		}
		if a.listen == "" && sf.tlsStreamListen == "" {
			return withExit(2, errors.New("--tls-cert, --tls-key and --client-ca need --listen or --tls-stream-listen"))
		}
	}
	if sf.tlsStreamListen != "" && tlsCfg == nil {
		return withExit(2, errors.New("--tls-stream-listen needs --tls-cert and --tls-key"))
	}
	opts, closeAudit, err := sf.securityOptions(a)
	if err != nil {
		return withExit(2, err)
	}
	defer closeAudit()
	sec, err := srv.Secure(opts)
	if err != nil {
		return withExit(2, err)
	}
	if sf.stdioOnly(a) {
		return serveStdioLimited(ctx, srv.MCP(), sf.maxRequestBytes, a.logger)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	if a.listen != "" {
		ln, err := net.Listen("tcp", a.listen)
		if err != nil {
			return withExit(2, err)
		}
		ln = transport.GuardListener(ln, transport.ListenerOptions{MaxConnsPerSource: sf.maxConnsPerSource, Logger: a.logger, Name: "http"})
		scheme := "http"
		if tlsCfg != nil {
			ln, scheme = transport.TLSListener(ln, tlsCfg), "https"
		}
		fmt.Fprintf(a.stderr, "netmcp: serving %s (%s) at %s://%s%s\n", a.deviceURL, a.dialect, scheme, ln.Addr(), transport.Path)
		a.httpOpts.MaxBodyBytes = int64(sf.maxRequestBytes)
		a.httpOpts.Logger = a.logger
		h := sec.HTTPHandler(transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, a.httpOpts))
		wg.Add(1)
		go func() { defer wg.Done(); errc <- serveHTTP(ctx, ln, h) }()
	}
	if sf.tlsStreamListen != "" {
		ln, err := net.Listen("tcp", sf.tlsStreamListen)
		if err != nil {
			cancel()
			wg.Wait()
			return withExit(2, err)
		}
		ln = transport.GuardListener(ln, transport.ListenerOptions{MaxConnsPerSource: sf.maxConnsPerSource, Logger: a.logger, Name: "tls-stream"})
		fmt.Fprintf(a.stderr, "netmcp: serving %s (%s) on the TLS stream at %s (ALPN mcp)\n", a.deviceURL, a.dialect, ln.Addr())
		wg.Add(1)
		go func() {
			defer wg.Done()
			errc <- transport.ServeTLSStream(ctx, ln, tlsCfg, srv.MCP(), transport.TLSStreamOptions{
				MaxFrameSize: sf.maxRequestBytes,
				Connected: func(sessionID string, st tls.ConnectionState) (func(), error) {
					return sec.BindConn(sessionID, a.policy.IdentityFromTLS(st)), nil
				},
				OnRefused: func(remote net.Addr, err error) {
					a.logger.Info("TLS stream connection refused", "remote", remote.String(), "error", err)
				},
			})
		}()
	}
	err = <-errc
	cancel()
	wg.Wait()
	return err
}

// securityOptions builds the server's security options from the flags and
// the policy a.policy: limits, audit log (with its syslog export) and redactor.
func (sf *securityFlags) securityOptions(a serveArgs) (server.SecurityOptions, func(), error) {
	pol := a.policy
	opts := server.SecurityOptions{Policy: pol, LocalUser: osUser(), LocalRole: sf.localRole, StdioRole: sf.stdioRole, Redactor: sf.sharedRedactor()}
	f := pol.File()
	if f.JWT != nil {
		v, err := pol.Verifier()
		if err != nil {
			return opts, nil, err
		}
		opts.Verifier = v
	}
	switch {
	case f.RateLimit != nil:
		opts.RateLimiter = policy.NewRateLimiter(f.RateLimit.PerSecond, f.RateLimit.Burst)
	case sf.stdioOnly(a) && !sf.rateExplicit:
		// One local user, who started the process: a per-identity rate
		// limit only refuses its scripts. Configured
		// explicitly (flags or policy), it applies.
	case sf.rate > 0:
		if sf.burst < 1 {
			return opts, nil, fmt.Errorf("--burst must be at least 1 with --rate %g", sf.rate)
		}
		opts.RateLimiter = policy.NewRateLimiter(sf.rate, sf.burst)
	}
	switch {
	case f.MaxConcurrentPerSession > 0:
		opts.SessionLimiter = policy.NewSessionLimiter(f.MaxConcurrentPerSession)
	case sf.maxConcurrent > 0:
		opts.SessionLimiter = policy.NewSessionLimiter(sf.maxConcurrent)
	}
	if sf.maxRequestBytes < 1024 {
		return opts, nil, fmt.Errorf("--max-request-bytes %d is too small (at least 1024)", sf.maxRequestBytes)
	}
	if a.stateDir == "" {
		if sf.auditSyslog != "" {
			return opts, nil, errors.New("--audit-syslog needs the audit log: drop --no-state")
		}
		fmt.Fprintln(a.stderr, "netmcp: warning: --no-state: no audit log is kept")
		return opts, func() {}, nil
	}
	sync, err := audit.ParseSyncPolicy(sf.auditFsync)
	if err != nil {
		return opts, nil, err
	}
	if sf.auditMaxSize < 0 || sf.auditKeep < 0 {
		return opts, nil, errors.New("--audit-max-size and --audit-keep must not be negative")
	}
	aopts := audit.Options{Sync: sync, MaxSize: sf.auditMaxSize, MaxSegments: sf.auditKeep,
		OnSinkError: func(err error) { a.logger.Warn("audit export failed", "error", err) }}
	var sink *audit.Syslog
	if sf.auditSyslog != "" {
		if sink, err = sf.syslogSink(a.logger); err != nil {
			return opts, nil, err
		}
		aopts.Sinks = []audit.Sink{sink}
	}
	log, err := audit.Open(audit.PathIn(a.stateDir), aopts)
	if err != nil {
		if sink != nil {
			sink.Close()
		}
		return opts, nil, err
	}
	opts.Audit = log
	return opts, func() {
		log.Close()
		if sink != nil {
			fctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_ = sink.Flush(fctx)
			cancel()
			sink.Close()
		}
	}, nil
}

// stdioOnly reports whether serve runs one stdio session and no listener.
func (sf *securityFlags) stdioOnly(a serveArgs) bool {
	return a.listen == "" && sf.tlsStreamListen == ""
}

// syslogSink parses --audit-syslog (tcp://HOST:PORT or tls://HOST:PORT).
func (sf *securityFlags) syslogSink(logger *slog.Logger) (*audit.Syslog, error) {
	u, err := url.Parse(sf.auditSyslog)
	if err != nil || (u.Scheme != "tcp" && u.Scheme != "tls") || u.Host == "" {
		return nil, fmt.Errorf("--audit-syslog %q: want tcp://HOST:PORT or tls://HOST:PORT", sf.auditSyslog)
	}
	cfg := audit.SyslogConfig{Network: u.Scheme, Addr: u.Host,
		OnError: func(err error) { logger.Warn("audit syslog", "error", err) }}
	// audit.Syslog sets TLS 1.2 as the floor and the system roots by default.
	if u.Scheme == "tls" && sf.auditSyslogCA != "" {
		b, err := os.ReadFile(sf.auditSyslogCA)
		if err != nil {
			return nil, fmt.Errorf("--audit-syslog-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("--audit-syslog-ca %s: no PEM certificate", sf.auditSyslogCA)
		}
		cfg.TLS = &tls.Config{RootCAs: pool}
	}
	return audit.NewSyslog(cfg)
}

// loadPolicy reads the --policy file with package policy ("" = the
// built-in roles). The same file configures the approval gate
// (approval modes and trustedKeys, see policy.Policy.Approval).
func loadPolicy(path string) (*policy.Policy, error) {
	if path == "" {
		return policy.Default(), nil
	}
	return policy.Load(path) // its errors name the file
}

// serveStdioLimited serves one stdio session whose lines are at most max
// bytes; a longer line gets a JSON-RPC error (-32600, id null) on stdout
// and ends the session.
func serveStdioLimited(ctx context.Context, s *mcp.Server, max int, logger *slog.Logger) error {
	out := &lockedWriter{w: os.Stdout}
	in := transport.LimitLines(os.Stdin, max, func(err error) {
		logger.Error("stdio message too large", "error", err)
		// json.Marshal, not %q: Go quoting is not JSON for every string.
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": err.Error()}})
		_, _ = out.Write(append(msg, '\n'))
	})
	err := transport.ServeIO(ctx, s, in, out)
	var lt *transport.LineTooLongError
	if errors.As(err, &lt) {
		return withExit(1, lt)
	}
	return err
}

// lockedWriter serialises writes, so that a message written beside the
// SDK's never interleaves with one of its own.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
