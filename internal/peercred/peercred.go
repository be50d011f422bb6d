// Package peercred tells which local user is at the other end of a TCP
// connection from this host, so that callers on loopback, who present no
// credential, are still told apart by the account they run as.
//
// A server records each accepted connection in its context (WithConn, as
// http.Server.ConnContext); UID then asks the operating system once per
// connection, and only when asked: on Linux through the kernel's socket
// diagnostics (the owner of the peer's socket, as `ss -e` shows it);
// elsewhere it reports that it cannot tell.
package peercred

import (
	"context"
	"net"
	"sync"
)

// connInfo is what WithConn records of a connection, and the answer once
// it has been looked up.
type connInfo struct {
	local, remote net.Addr
	once          sync.Once
	uid           uint32
	ok            bool
}

type connKey struct{}

// WithConn returns ctx carrying c's addresses for UID. Use it as
// http.Server.ConnContext.
func WithConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &connInfo{local: c.LocalAddr(), remote: c.RemoteAddr()})
}

// UID returns the user id owning the peer's end of the connection ctx was
// made for (see WithConn). ok is false when ctx names no connection, the
// peer is not on a loopback address, or the OS does not say.
func UID(ctx context.Context) (uid uint32, ok bool) {
	ci, _ := ctx.Value(connKey{}).(*connInfo)
	if ci == nil {
		return 0, false
	}
	ci.once.Do(func() {
		remote, isTCP := ci.remote.(*net.TCPAddr)
		if !isTCP || !remote.IP.IsLoopback() {
			return
		}
		ci.uid, ci.ok = lookup(ci.local, ci.remote)
	})
	return ci.uid, ci.ok
}
