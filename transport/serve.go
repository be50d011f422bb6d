package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// shutdownGrace bounds Serve's graceful shutdown: requests still running
// after it are cut.
const shutdownGrace = 5 * time.Second

// Serve serves hs on ln until ctx is done, then shuts hs down gracefully
// (open requests get shutdownGrace to finish, then their connections are
// closed). hs is typically made by NewHTTPServer and ln guarded by
// GuardListener. The caller may also Close hs (a device that loses
// power): Serve then returns http.ErrServerClosed.
func Serve(ctx context.Context, ln net.Listener, hs *http.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		err := hs.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			return hs.Close()
		}
		return err
	}
}
