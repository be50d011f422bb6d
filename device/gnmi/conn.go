package gnmi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/device/gnmi/internal/wire"
	"github.com/netmcp/netmcp/netproto"
)

// maxMessage bounds one message from the target (a Get of a large tree).
const maxMessage = 64 << 20

// metadataCreds sends the user and password as the "username" and
// "password" metadata of every RPC (the gNMI authentication convention).
type metadataCreds struct {
	user, password string
	secure         bool
}

func (m metadataCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	md := map[string]string{"username": m.user}
	if m.password != "" {
		md["password"] = m.password
	}
	return md, nil
}

// RequireTransportSecurity refuses to send a password without TLS, except
// with insecure=1 (logged as a warning when the driver opens).
func (m metadataCreds) RequireTransportSecurity() bool { return m.secure }

// dial makes the gRPC channel to the target. It connects lazily: the
// first RPC reports an unreachable target or a refused certificate.
func dial(c *Config) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage)),
		// A target that restarts is found again within a few seconds.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 3 * time.Second},
			MinConnectTimeout: min(c.Timeout, 20*time.Second),
		}),
	}
	if c.Insecure {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(c.TLS.Clone())))
	}
	if c.User != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(metadataCreds{user: c.User, password: c.password, secure: !c.Insecure}))
	}
	conn, err := grpc.NewClient("passthrough:///"+c.Address(), opts...)
	if err != nil {
		return nil, fmt.Errorf("gnmi: %s: %v", c.Address(), err)
	}
	return conn, nil
}

// diagnoseTLS explains a target that drops the connection: it makes a TLS
// connection of its own and reads from it, which brings the server's
// alert when it refused the client certificate after the handshake (TLS
// 1.3 checks it there, and gRPC then sees only a broken connection). It
// returns the handshake's or the alert's error, or nil when TLS is not
// the problem.
func diagnoseTLS(ctx context.Context, c *Config) error {
	if c.Insecure {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cfg := c.TLS.Clone()
	cfg.NextProtos = []string{"h2"}
	conn, err := (&tls.Dialer{Config: cfg}).DialContext(ctx, "tcp", c.Address())
	if err != nil {
		var netErr *net.OpError
		if errors.As(err, &netErr) && netErr.Op == "dial" {
			return nil // not reachable at all: not a TLS problem
		}
		return err
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != nil && strings.Contains(err.Error(), "remote error: tls:") {
		return err
	}
	return nil
}

// tlsFailure reports whether a status says the TLS handshake failed (an
// unknown or mismatched certificate on either side).
func tlsFailure(st *status.Status) bool {
	if st.Code() != codes.Unavailable {
		return false
	}
	m := st.Message()
	for _, s := range []string{"authentication handshake failed", "x509:", "tls:", "certificate"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// fail turns an RPC's error into the driver's: the context's own error
// when ctx ended; the draft's code a netmcp target sent in the status
// details; device.ErrNotFound for NotFound; otherwise the nearest code
// of the draft, with the target's words in the detail.
func (d *Driver) fail(ctx context.Context, what string, err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctxDone(ctx, err); cerr != nil {
		return cerr
	}
	st, ok := status.FromError(err)
	if !ok {
		var ne *netproto.Error
		if errors.As(err, &ne) || errors.Is(err, device.ErrNotFound) {
			return err
		}
		return netproto.Errorf(netproto.CodeUnreachable, "gnmi %s: %s: %v", d.cfg.Address(), what, err).Retryable()
	}
	where := fmt.Sprintf("gnmi %s: %s", d.cfg.Address(), what)
	if st.Code() == codes.NotFound {
		return fmt.Errorf("%w: %s: %s", device.ErrNotFound, where, st.Message())
	}
	if ne := wire.NetprotoOf(st); ne != nil {
		ne.Detail = where + ": " + ne.Detail
		return ne
	}
	msg := fmt.Sprintf("%s: %s (gRPC %s)", where, st.Message(), st.Code())
	switch c := st.Code(); {
	case tlsFailure(st):
		return netproto.Errorf(netproto.CodeAccessDenied, "%s: TLS with the target failed: %s (check ?ca-file=, ?server-name= and the client certificate)", where, st.Message())
	case c == codes.Unavailable, c == codes.ResourceExhausted:
		return netproto.Errorf(netproto.CodeUnreachable, "%s", msg).Retryable()
	case c == codes.DeadlineExceeded:
		return netproto.Errorf(netproto.CodeTimeout, "%s", msg).Retryable()
	case c == codes.Canceled:
		return netproto.Errorf(netproto.CodeUnreachable, "%s", msg).Retryable()
	case c == codes.Unauthenticated, c == codes.PermissionDenied:
		return netproto.Errorf(netproto.CodeAccessDenied, "%s", msg)
	case c == codes.Aborted:
		return netproto.Errorf(netproto.CodeAccessDenied, "%s", msg).Retryable()
	}
	// InvalidArgument, Unimplemented, FailedPrecondition, Internal...: the
	// target refused what it was asked.
	return netproto.Errorf(netproto.CodeConfigIncompatible, "%s", msg)
}

// ctxDone returns ctx's error when ctx ended, or is ending: the target
// enforces the deadline it was sent, and its DeadlineExceeded can arrive
// a moment before ctx's own timer fires.
func ctxDone(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if status.Code(err) != codes.DeadlineExceeded {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < 250*time.Millisecond {
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// callCtx bounds a unary call by the URL's timeout when ctx has no
// deadline of its own.
func (d *Driver) callCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d.cfg.Timeout)
}
