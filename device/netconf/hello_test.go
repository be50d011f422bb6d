package netconf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"sync"
	"testing"
	"time"

	nc "github.com/nemith/netconf"
	"github.com/nemith/netconf/transport"
	"golang.org/x/crypto/ssh"

	"github.com/netmcp/netmcp/internal/testwait"
)

// coalescingTransport is a NETCONF transport over an SSH channel that
// holds the client's <hello> back and writes it in one piece with the
// next message, as a slow reader on the device side would read them.
type coalescingTransport struct {
	*transport.Framer
	cl *ssh.Client
}

func (t *coalescingTransport) Close() error { return t.cl.Close() }

// holdHello passes writes through, except that the bytes up to the end of
// the first (end-of-message framed) message are held and prefixed to the
// next write.
type holdHello struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
	done bool
}

func (h *holdHello) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return h.w.Write(p)
	}
	if h.held != nil && bytes.Contains(h.held, []byte("]]>]]>")) {
		h.done = true
		if _, err := h.w.Write(append(h.held, p...)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	h.held = append(h.held, p...)
	return len(p), nil
}

// openCoalesced opens a NETCONF session on the lab device whose <hello>
// reaches netconfd together with the first RPC.
func openCoalesced(t *testing.T, l *lab) *nc.Session {
	t.Helper()
	u, err := url.Parse(l.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := ssh.Dial("tcp", cfg.Address(), cfg.sshConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	ss, err := cl.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	w, err := ss.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ss.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.RequestSubsystem("netconf"); err != nil {
		t.Fatal(err)
	}
	s, err := nc.Open(&coalescingTransport{Framer: transport.NewFramer(r, &holdHello{w: w}), cl: cl})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNetconfdDropsRPCWithHello shows the netconfd quirk that
// sendFirst works around, and that it does: an RPC that netconfd
// reads together with the client's <hello> is never answered (the driver
// used to wait for it until its deadline: Get "context deadline exceeded",
// close-session timing out), and through sendFirst the session answers
// reads and writes, and a close before any call still ends the session.
func TestNetconfdDropsRPCWithHello(t *testing.T) {
	l := startLab(t)
	const get = `<get-config><source><running/></source></get-config>`

	t.Run("without-sync", func(t *testing.T) {
		s := openCoalesced(t, l)
		// Not a speed assertion: the quirk is that no reply ever comes;
		// this only bounds how long the test looks for one.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := s.Do(ctx, get); err == nil {
			t.Log("netconfd answered an RPC sent with the <hello>: the quirk is gone in this netconfd")
		} else if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("first RPC: %v", err)
		}
	})

	for _, tc := range []struct {
		name       string
		idempotent bool
	}{{"read-resent", true}, {"write-after-read", false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := openCoalesced(t, l)
			ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(60*time.Second))
			defer cancel()
			// get-config stands for the first RPC; as a "write" it is
			// sent once, after a read the session answered.
			reply, err := sendFirst(ctx, s, get, tc.idempotent)
			if err != nil {
				t.Fatalf("first RPC through sendFirst: %v", err)
			}
			if !bytes.Contains(reply.Body, []byte("eth0")) {
				t.Errorf("get-config reply has no eth0: %s", reply.Body)
			}
			if err := s.Close(ctx); err != nil {
				t.Errorf("close-session: %v", err)
			}
		})
	}

	// A driver closed before any call: close-session is the session's
	// first RPC, and the driver's Close (10 s) must still end it.
	t.Run("close-first", func(t *testing.T) {
		c := newConn(&Config{}, nil)
		c.sess, c.yuma = openCoalesced(t, l), true
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.close(ctx); err != nil {
			t.Errorf("close of a session that answered nothing yet: %v", err)
		}
	})
}
