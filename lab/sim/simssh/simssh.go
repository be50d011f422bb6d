// Package simssh serves a simulated device's CLI over real SSH (a
// golang.org/x/crypto/ssh server), so the SSH CLI driver is tested against
// the simulator's dialects through a real SSH session: login, a pty, the
// dialect's prompts ("<r1>" and "[~r1]" for huawei-vrp,
// "RP/0/RP0/CPU0:r1#" and "(config)#" for cisco-iosxr), paging at 24 lines
// until "screen-length 0 temporary" or "terminal length 0", configuration
// mode and "commit". Nothing reaches a shell: every line goes to the
// sim.Driver's Exec or Configure.
package simssh

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/lab/sim"
	"github.com/netmcp/netmcp/netproto"
)

// Server is an SSH server for one simulated device.
type Server struct {
	ln      net.Listener
	cfg     *ssh.ServerConfig
	drv     *sim.Driver
	dialect string
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]bool
}

// Start listens on 127.0.0.1 (a free port) and serves drv to clients that
// log in with the authorized key.
func Start(drv *sim.Driver, hostKey ssh.Signer, authorized ssh.PublicKey) (*Server, error) {
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(authorized.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("key not authorized")
	}}
	cfg.AddHostKey(hostKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, cfg: cfg, drv: drv, dialect: drv.Info().CLIDialect, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the listening address.
func (s *Server) Addr() *net.TCPAddr { return s.ln.Addr().(*net.TCPAddr) }

// DropAll closes every client connection (the listener stays open).
func (s *Server) DropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
}

// Close stops listening, drops every connection and waits for them.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.DropAll()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { s.mu.Lock(); delete(s.conns, c); s.mu.Unlock(); c.Close() }()
			s.serveConn(c)
		}()
	}
}

func (s *Server) serveConn(c net.Conn) {
	sc, chans, reqs, err := ssh.NewServerConn(c, s.cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		shell := make(chan bool, 1)
		go func() {
			for r := range creqs {
				ok := r.Type == "pty-req" || r.Type == "shell" || r.Type == "window-change"
				if r.WantReply {
					r.Reply(ok, nil)
				}
				if r.Type == "shell" {
					shell <- true
				}
			}
		}()
		if <-shell {
			owner := device.Owner{Session: "ssh-" + c.RemoteAddr().String(), User: sc.User()}
			(&cli{s: s, ch: ch, owner: owner, paging: 24}).run()
		}
		ch.Close()
		return
	}
}

// cli is one interactive session.
type cli struct {
	s       *Server
	ch      ssh.Channel
	owner   device.Owner
	paging  int // lines per page, 0 = off
	config  bool
	sub     string   // sub-mode prompt suffix
	pending []string // configuration lines not yet committed
}

func (c *cli) vrp() bool { return c.s.dialect == sim.DialectVRP }

func (c *cli) prompt() string {
	name := c.s.drv.Name()
	switch {
	case c.vrp() && c.config:
		return "[~" + name + c.sub + "]"
	case c.vrp():
		return "<" + name + ">"
	case c.config:
		return "RP/0/RP0/CPU0:" + name + "(config" + c.sub + ")#"
	}
	return "RP/0/RP0/CPU0:" + name + "#"
}

func (c *cli) write(s string) { io.WriteString(c.ch, strings.ReplaceAll(s, "\n", "\r\n")) }

func (c *cli) errorf(format string, a ...any) {
	marker := "% Invalid input detected at '^' marker."
	if c.vrp() {
		marker = "Error: Unrecognized command found at '^' position."
	}
	c.write(marker + " " + fmt.Sprintf(format, a...) + "\n")
}

func (c *cli) run() {
	r := bufio.NewReader(c.ch)
	c.write("\n" + c.prompt())
	var line []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return
		}
		switch b {
		case '\r', '\n':
			c.write("\n")
			if !c.exec(strings.TrimSpace(string(line)), r) {
				return
			}
			line = line[:0]
			c.write(c.prompt())
		case 0x7f, 0x08:
			if len(line) > 0 {
				line = line[:len(line)-1]
				c.write("\b \b")
			}
		default:
			line = append(line, b)
			c.ch.Write([]byte{b}) // echo
		}
	}
}

// page writes out, pausing every c.paging lines until a key is pressed.
func (c *cli) page(out string, r *bufio.Reader) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	more := "  ---- More ----"
	if !c.vrp() {
		more = " --More-- "
	}
	for i, l := range lines {
		if c.paging > 0 && i > 0 && i%c.paging == 0 {
			c.write(more)
			k, err := r.ReadByte()
			c.write("\r" + strings.Repeat(" ", len(more)) + "\r")
			if err != nil || k == 'q' {
				return
			}
		}
		c.write(l + "\n")
	}
}

// exec handles one line; false ends the session.
func (c *cli) exec(line string, r *bufio.Reader) bool {
	ctx := context.Background()
	w := strings.Fields(strings.ToLower(line))
	if len(w) == 0 {
		return true
	}
	joined := strings.Join(w, " ")
	if !c.config {
		switch {
		case joined == "screen-length 0 temporary" || joined == "terminal length 0":
			c.paging = 0
			return true
		case strings.HasPrefix(joined, "terminal width"):
			return true
		case joined == "quit" || joined == "exit" || joined == "logout":
			return false
		case joined == "system-view" && c.vrp(), (joined == "configure terminal" || joined == "configure") && !c.vrp():
			c.config, c.sub, c.pending = true, "", nil
			return true
		}
		out, err := c.s.drv.Exec(ctx, line)
		if err != nil {
			c.errorf("%s", message(err))
			return true
		}
		c.page(out, r)
		return true
	}
	switch {
	case joined == "end" || joined == "return":
		c.config, c.sub, c.pending = false, "", nil
		return true
	case joined == "abort":
		c.config, c.sub, c.pending = false, "", nil
		return true
	case joined == "clear configuration candidate":
		c.pending = nil
		return true
	case joined == "exit" || joined == "quit":
		if c.sub == "" {
			c.config, c.pending = false, nil
			return true
		}
		c.sub = ""
		c.pending = append(c.pending, line)
		return true
	case w[0] == "commit":
		c.commit(ctx, w)
		return true
	}
	if _, err := c.s.drv.PlanConfigure(ctx, c.owner, append(append([]string(nil), c.pending...), line)); err != nil {
		c.errorf("%s", message(err))
		return true
	}
	c.pending = append(c.pending, line)
	if w[0] == "interface" && len(w) > 1 {
		c.sub = "-if"
		if c.vrp() {
			c.sub = "-" + strings.Fields(line)[1]
		}
	}
	return true
}

// commit applies the pending lines: "commit", "commit confirmed N"
// (seconds); a plain commit with nothing pending confirms a pending
// confirmed commit.
func (c *cli) commit(ctx context.Context, w []string) {
	opts := device.CommitOptions{}
	if len(w) >= 2 && w[1] == "confirmed" {
		opts.Confirmed = 600
		if len(w) >= 3 {
			n, err := strconv.Atoi(w[2])
			if err != nil || n <= 0 {
				c.errorf("commit confirmed SECONDS")
				return
			}
			opts.Confirmed = n
		}
	}
	if len(c.pending) == 0 {
		if _, err := c.s.drv.Confirm(ctx, c.owner); err != nil {
			c.write("% No configuration changes to commit.\n")
		}
		return
	}
	if err := c.s.drv.Configure(ctx, c.owner, c.pending); err != nil {
		c.commitFailed(err)
		return
	}
	if _, err := c.s.drv.Commit(ctx, c.owner, opts); err != nil {
		_ = c.s.drv.Discard(ctx, c.owner)
		c.commitFailed(err)
		return
	}
	c.pending = nil
}

func (c *cli) commitFailed(err error) {
	if c.vrp() {
		c.write("Error: Failed to commit. " + message(err) + "\n")
		return
	}
	c.write("% Failed to commit one or more configuration items. " + message(err) + "\n")
}

func message(err error) string {
	var ne *netproto.Error
	if errors.As(err, &ne) {
		return ne.Message()
	}
	return err.Error()
}
