package snmp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/netmcp/netmcp/netproto"
)

// client is the device's one SNMP session. gosnmp.GoSNMP is not safe for
// concurrent use, so every request holds sem (a mutex whose wait honours
// the caller's context).
type client struct {
	cfg *Config
	sem chan struct{}
	g   *gosnmp.GoSNMP
}

func newClient(cfg *Config) (*client, error) {
	g := &gosnmp.GoSNMP{
		Target:         cfg.Host,
		Port:           cfg.Port,
		Transport:      "udp",
		Version:        cfg.Version,
		Timeout:        cfg.Timeout,
		Retries:        cfg.Retries,
		MaxOids:        gosnmp.MaxOids,
		MaxRepetitions: 25,
		Context:        context.Background(),
	}
	if cfg.Version == gosnmp.Version3 {
		g.SecurityModel = gosnmp.UserSecurityModel
		g.ContextName = cfg.Context
		switch cfg.SecurityLevel() {
		case "authPriv":
			g.MsgFlags = gosnmp.AuthPriv
		case "authNoPriv":
			g.MsgFlags = gosnmp.AuthNoPriv
		default:
			g.MsgFlags = gosnmp.NoAuthNoPriv
		}
		g.SecurityParameters = &gosnmp.UsmSecurityParameters{
			UserName:                 cfg.User,
			AuthenticationProtocol:   cfg.AuthProto,
			AuthenticationPassphrase: cfg.authKey,
			PrivacyProtocol:          cfg.PrivProto,
			PrivacyPassphrase:        cfg.privKey,
		}
	} else {
		g.Community = cfg.community
	}
	if err := g.Connect(); err != nil {
		return nil, netproto.Errorf(netproto.CodeUnreachable, "snmp: %s: %v", cfg.Address(), err)
	}
	c := &client{cfg: cfg, sem: make(chan struct{}, 1), g: g}
	return c, nil
}

// do runs f with the session held and the context wired in: cancelling
// ctx ends a request waiting for its answer at once.
func (c *client) do(ctx context.Context, what string, f func(g *gosnmp.GoSNMP) error) error {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.sem }()
	if c.g == nil {
		return fmt.Errorf("snmp: %s: the device is closed", c.cfg.Address())
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.g.Context = ctx
	conn := c.g.Conn
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	err := f(c.g)
	stop()
	c.g.Context = context.Background()
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		// The caller's deadline cut the wait short: report it as such, with
		// the hint (the server maps context.DeadlineExceeded to -32081).
		return fmt.Errorf("snmp: %s: %s: no answer before the call's deadline (%w): wrong community or v3 credentials, ACL, or agent down",
			c.cfg.Address(), what, context.DeadlineExceeded)
	}
	return c.mapError(what, err)
}

// mapError turns gosnmp's errors into MCP-NET errors with a hint.
func (c *client) mapError(what string, err error) error {
	addr := c.cfg.Address()
	switch {
	case errors.Is(err, gosnmp.ErrWrongDigest), errors.Is(err, gosnmp.ErrDecryption):
		return netproto.Errorf(netproto.CodeAccessDenied, "snmp: %s: %s: the agent rejected the SNMPv3 credentials of user %q (%v): check auth/priv pass phrases and protocols", addr, what, c.cfg.User, err)
	case strings.Contains(err.Error(), "not authentic"):
		// gosnmp has no sentinel for it: the answer (typically the agent's
		// usmStatsWrongDigests report) does not verify with our key.
		return netproto.Errorf(netproto.CodeAccessDenied, "snmp: %s: %s: the agent's answer does not authenticate with the auth pass phrase of user %q: wrong user name, auth pass phrase or auth protocol", addr, what, c.cfg.User)
	case errors.Is(err, gosnmp.ErrUnknownUsername):
		return netproto.Errorf(netproto.CodeAccessDenied, "snmp: %s: %s: the agent knows no SNMPv3 user %q", addr, what, c.cfg.User)
	case errors.Is(err, gosnmp.ErrUnknownSecurityLevel):
		return netproto.Errorf(netproto.CodeAccessDenied, "snmp: %s: %s: the agent does not accept security level %s for user %q", addr, what, c.cfg.SecurityLevel(), c.cfg.User)
	case strings.Contains(err.Error(), "connection refused"):
		return netproto.Errorf(netproto.CodeUnreachable, "snmp: %s: %s: no SNMP agent listens there (ICMP port unreachable): agent down or wrong port", addr, what).Retryable()
	case isTimeout(err):
		total := c.cfg.Timeout * time.Duration(c.cfg.Retries+1)
		return netproto.Errorf(netproto.CodeTimeout, "snmp: %s: %s: no answer in %s: wrong community or v3 credentials, ACL, or agent down (SNMP agents drop requests they do not accept without replying)", addr, what, total).Retryable()
	}
	return netproto.Errorf(netproto.CodeSnmpFailure, "snmp: %s: %s: %v", addr, what, err)
}

func isTimeout(err error) bool {
	if errors.Is(err, gosnmp.ErrMaxRetriesExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return true
	}
	return strings.Contains(err.Error(), "timeout")
}

// get fetches scalar OIDs. Missing objects (noSuchObject/noSuchInstance)
// come back with Type NoSuchObject/NoSuchInstance.
func (c *client) get(ctx context.Context, oids ...string) ([]gosnmp.SnmpPDU, error) {
	var out []gosnmp.SnmpPDU
	err := c.do(ctx, "get", func(g *gosnmp.GoSNMP) error {
		p, err := g.Get(oids)
		if err != nil {
			return err
		}
		if p.Error != gosnmp.NoError {
			return fmt.Errorf("error-status %s (index %d)", p.Error, p.ErrorIndex)
		}
		out = p.Variables
		return nil
	})
	return out, err
}

// walk returns every object under root (GETBULK).
func (c *client) walk(ctx context.Context, root string) ([]gosnmp.SnmpPDU, error) {
	var out []gosnmp.SnmpPDU
	err := c.do(ctx, "walk "+root, func(g *gosnmp.GoSNMP) error {
		var err error
		out, err = g.BulkWalkAll(root)
		return err
	})
	return out, err
}

// close releases the socket; later requests fail. Idempotent.
func (c *client) close() error {
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	if c.g == nil {
		return nil
	}
	err := c.g.Conn.Close()
	c.g = nil
	return err
}

// errTooMany stops a walk that exceeds its limit.
var errTooMany = errors.New("too many objects")

// walkLimit is walk with at most limit objects (errTooMany beyond).
func (c *client) walkLimit(ctx context.Context, root string, limit int) ([]gosnmp.SnmpPDU, error) {
	var out []gosnmp.SnmpPDU
	var over bool
	err := c.do(ctx, "walk "+root, func(g *gosnmp.GoSNMP) error {
		return g.BulkWalk(root, func(v gosnmp.SnmpPDU) error {
			if len(out) >= limit {
				over = true
				return errTooMany
			}
			out = append(out, v)
			return nil
		})
	})
	if over {
		return nil, errTooMany
	}
	return out, err
}
