package sshcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/opoptions"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/response"
	"github.com/scrapli/scrapligo/transport"
	"github.com/scrapli/scrapligo/util"

	"github.com/netmcp/netmcp/netproto"
)

// session is the one interactive CLI session of a device. Commands run one
// at a time. A session whose connection broke, timed out or was cancelled
// is closed and the next command logs in again: the device's prompt state
// after an interrupted command is unknown, so it is never reused.
type session struct {
	cfg *Config
	d   *dialect

	mu     sync.Mutex // one command at a time; guards conn, logins
	conn   *network.Driver
	logins int // successful logins so far (1 + reconnects)
	closed bool
}

// errBroken marks a failure of the connection itself (not of a command).
var errBroken = errors.New("connection lost")

// connect logs in and turns paging off. Called with s.mu held.
func (s *session) connect(ctx context.Context) error {
	if s.closed {
		return errors.New("ssh: device is closed")
	}
	levels := map[string]*network.PrivilegeLevel{}
	for k, v := range s.d.privs {
		c := *v
		levels[k] = &c
	}
	opts := []util.Option{
		options.WithTransportType(transport.StandardTransport),
		options.WithPort(s.cfg.Port),
		options.WithAuthUsername(s.cfg.User),
		options.WithTimeoutSocket(s.cfg.ConnectTimeout),
		options.WithTimeoutOps(s.cfg.Timeout),
		options.WithTermWidth(511),
		options.WithPrivilegeLevels(levels),
		options.WithDefaultDesiredPriv(s.d.execPriv),
		options.WithFailedWhenContains(s.d.failedWhen),
		options.WithNetworkOnOpen(func(nd *network.Driver) error {
			if err := nd.AcquirePriv(s.d.execPriv); err != nil {
				return err
			}
			for _, c := range s.d.onOpen {
				r, err := nd.SendCommand(c)
				if err != nil {
					return err
				}
				if r.Failed != nil {
					return fmt.Errorf("%q refused: %s", c, firstLine(r.Result))
				}
			}
			return nil
		}),
	}
	pw, err := s.cfg.password()
	if err != nil {
		return err
	}
	if pw != "" {
		opts = append(opts, options.WithAuthPassword(pw))
	}
	if s.cfg.KeyFile != "" {
		key, err := os.ReadFile(s.cfg.KeyFile)
		if err != nil {
			return fmt.Errorf("ssh: key file: %w", err)
		}
		opts = append(opts, options.WithStandardTransportPrivateKeyBytes(key, ""))
	}
	if s.cfg.InsecureIgnoreHostKey {
		opts = append(opts, options.WithAuthNoStrictKey())
	} else {
		if _, err := os.Stat(s.cfg.KnownHosts); err != nil {
			return fmt.Errorf("ssh: known-hosts file: %w", err)
		}
		opts = append(opts, options.WithSSHKnownHostsFile(s.cfg.KnownHosts))
	}
	nd, err := network.NewDriver(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("ssh: %s: %w", s.cfg.Name, err)
	}
	// The SSH handshake has no deadline of its own (a server that accepts
	// the TCP connection and then stalls would hang it): wait for it at
	// most ConnectTimeout or until ctx ends, and close a login that
	// completes after that.
	done := make(chan error, 1)
	go func() { done <- nd.Open() }()
	timer := time.NewTimer(s.cfg.ConnectTimeout)
	defer timer.Stop()
	abandon := func() {
		go func() {
			if <-done == nil {
				_ = nd.Channel.Close()
			}
		}()
	}
	select {
	case err := <-done:
		if err != nil {
			return loginError(s.cfg, err)
		}
	case <-timer.C:
		abandon()
		return netproto.Errorf(netproto.CodeUnreachable, "ssh %s: no login within %s", s.cfg.address(), s.cfg.ConnectTimeout).Retryable()
	case <-ctx.Done():
		abandon()
		return ctx.Err()
	}
	s.conn = nd
	s.logins++
	return nil
}

// loginError maps a failed login to the draft's codes, without secrets
// (the SSH library's errors carry none).
func loginError(c *Config, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unable to authenticate"), errors.Is(err, util.ErrAuthError):
		return netproto.Errorf(netproto.CodeAccessDenied, "ssh %s@%s: authentication refused (check the key or password the URL names): %v", c.User, c.address(), err)
	case strings.Contains(msg, "knownhosts"):
		return netproto.Errorf(netproto.CodeAccessDenied, "ssh %s: host key not accepted by %s: %v", c.address(), c.KnownHosts, err)
	case errors.Is(err, util.ErrPrivilegeError):
		return netproto.Errorf(netproto.CodeConfigIncompatible, "ssh %s: logged in, but the prompt does not look like %s's: %v", c.address(), c.Dialect, err)
	}
	return netproto.Errorf(netproto.CodeUnreachable, "ssh %s: cannot log in: %v", c.address(), err).Retryable()
}

// drop closes the connection. Called with s.mu held.
func (s *session) drop() {
	if s.conn != nil {
		_ = s.conn.Channel.Close()
		s.conn = nil
	}
}

// do runs op on a logged-in connection, logging in first if needed. If ctx
// ends first, the connection is closed (which ends op) and ctx's error is
// returned. A connection that broke, timed out or was cancelled is dropped.
func (s *session) do(ctx context.Context, op func(nd *network.Driver, timeout time.Duration) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.conn == nil {
		if err := s.connect(ctx); err != nil {
			return err
		}
	}
	timeout := s.cfg.Timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < timeout {
			timeout = max(left, time.Millisecond)
		}
	}
	nd := s.conn
	done := make(chan error, 1)
	go func() { done <- op(nd, timeout) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = nd.Channel.Close()
		<-done
		s.conn = nil
		return ctx.Err()
	}
	if err == nil {
		return nil
	}
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return err // the command was refused; the session is fine
	}
	s.drop()
	switch {
	case errors.Is(err, util.ErrTimeoutError):
		return netproto.Errorf(netproto.CodeTimeout, "ssh %s: no prompt within %s (the session is closed; the next call logs in again)", s.cfg.address(), timeout).Retryable()
	case errors.Is(err, util.ErrConnectionError), errors.Is(err, io.EOF), errors.Is(err, errBroken):
		return fmt.Errorf("%w: %v", errBroken, err)
	}
	return fmt.Errorf("%w: %v", errBroken, err)
}

// close ends the session for good.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop()
	s.closed = true
}

// send runs one command at the current prompt and checks its output for the
// dialect's error markers.
func send(nd *network.Driver, command string, timeout time.Duration) (string, error) {
	r, err := nd.Channel.SendInput(command, opoptions.WithTimeoutOps(timeout))
	if err != nil {
		return "", err
	}
	resp := response.NewResponse(command, nd.Transport.GetHost(), nd.Transport.GetPort(), nd.FailedWhenContains)
	resp.Record(r)
	if resp.Failed != nil {
		return resp.Result, netproto.Errorf(netproto.CodeConfigIncompatible, "the device refused %q: %s", command, firstLine(resp.Result))
	}
	return resp.Result, nil
}

// firstLine is the first non-empty line of s, at most 200 bytes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return "(no output)"
}
