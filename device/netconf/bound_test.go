package netconf

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/netmcp/netmcp/internal/testwait"
	"github.com/netmcp/netmcp/netproto"
)

func TestDepthScanner(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"flat", `<a/><b></b>text`, 1},
		{"nested", `<a><b><c>x</c></b></a>`, 3},
		{"self-closing does not deepen", `<a><b/><b/><b x="1"/></a>`, 1},
		{"quoted > and / in attributes", `<a t="x>y" u='/>'><b v="a/b"></b></a>`, 2},
		{"declaration and PI", `<?xml version="1.0"?><?pi a>b ?><a></a>`, 1},
		{"comment hides tags", `<a><!-- <b><c><d> --></a>`, 1},
		{"CDATA hides tags", `<a><![CDATA[<b><c><d>]]></a>`, 1},
		{"doctype", `<!DOCTYPE a><a><b></b></a>`, 2},
		{"end tags close", `<a><b></b><b></b><b><c></c></b></a>`, 3},
		{"deep", strings.Repeat("<a>", 300), 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var whole, split depthScanner
			if got := whole.scan([]byte(tt.in)); got != tt.want {
				t.Errorf("depth = %d, want %d", got, tt.want)
			}
			got := 0
			for i := range len(tt.in) { // one byte at a time: state crosses reads
				got = split.scan([]byte{tt.in[i]})
			}
			if got != tt.want {
				t.Errorf("byte by byte: depth = %d, want %d", got, tt.want)
			}
		})
	}
}

// hostileDevice is a NETCONF server over SSH, written for this test, that
// answers an RPC whose body names "huge" with a reply of hugeBytes, one
// naming "deep" with elements nested deepLevels deep, and anything else
// with a small <ok/>.
type hostileDevice struct {
	addr       string
	hugeBytes  int
	deepLevels int
	// modules (guarded by mu), when set, are advertised in <hello> with their YANG text,
	// served by <get-schema> (ietf-netconf-monitoring among them).
	modules map[string]string

	mu         sync.Mutex
	sessions   int
	getSchemas map[string]int // <get-schema> requests by identifier
}

var schemaIdentifier = regexp.MustCompile(`<identifier>([^<]+)</identifier>`)

var messageID = regexp.MustCompile(`message-id="(\d+)"`)

func startHostileDevice(t *testing.T, hugeBytes, deepLevels int) *hostileDevice {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PasswordCallback: func(ssh.ConnMetadata, []byte) (*ssh.Permissions, error) { return nil, nil }}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	d := &hostileDevice{addr: ln.Addr().String(), hugeBytes: hugeBytes, deepLevels: deepLevels}
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go d.serve(nc, cfg)
		}
	}()
	return d
}

func (d *hostileDevice) serve(nc net.Conn, cfg *ssh.ServerConfig) {
	defer nc.Close()
	_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nch := range chans {
		ch, creqs, err := nch.Accept()
		if err != nil {
			return
		}
		go func() {
			for r := range creqs {
				_ = r.Reply(r.Type == "subsystem", nil)
			}
		}()
		d.mu.Lock()
		d.sessions++
		id := d.sessions
		d.mu.Unlock()
		d.session(ch, id)
		ch.Close()
	}
}

// session speaks NETCONF 1.0 (end-of-message framing) on ch.
func (d *hostileDevice) session(ch ssh.Channel, id int) {
	const eom = "]]>]]>"
	d.mu.Lock()
	modules := maps.Clone(d.modules)
	d.mu.Unlock()
	caps := "<capability>urn:ietf:params:netconf:base:1.0</capability>"
	for name := range modules {
		caps += fmt.Sprintf("<capability>urn:test:%s?module=%s&amp;revision=2026-01-01</capability>", name, name)
	}
	fmt.Fprintf(ch, `<?xml version="1.0" encoding="UTF-8"?><hello xmlns="%s"><capabilities>%s</capabilities><session-id>%d</session-id></hello>%s`, nsBase, caps, id, eom)
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		i := bytes.Index(buf, []byte(eom))
		if i < 0 {
			n, err := ch.Read(chunk)
			if err != nil {
				return
			}
			buf = append(buf, chunk[:n]...)
			continue
		}
		msg := string(buf[:i])
		buf = buf[i+len(eom):]
		m := messageID.FindStringSubmatch(msg)
		if m == nil {
			continue // the client's <hello>
		}
		head := fmt.Sprintf(`<rpc-reply xmlns="%s" message-id="%s">`, nsBase, m[1])
		var err error
		switch {
		case strings.Contains(msg, "get-schema"):
			name := ""
			if m := schemaIdentifier.FindStringSubmatch(msg); m != nil {
				name = m[1]
			}
			d.mu.Lock()
			if d.getSchemas == nil {
				d.getSchemas = map[string]int{}
			}
			d.getSchemas[name]++
			d.mu.Unlock()
			var text bytes.Buffer
			_ = xml.EscapeText(&text, []byte(modules[name]))
			_, err = io.WriteString(ch, head+`<data xmlns="`+nsMonitoring+`">`+text.String()+"</data></rpc-reply>"+eom)
		case strings.Contains(msg, "huge"):
			_, err = io.WriteString(ch, head+"<data>")
			item := []byte("<x>" + strings.Repeat("a", 1000) + "</x>")
			for sent := 0; err == nil && sent < d.hugeBytes; sent += len(item) {
				_, err = ch.Write(item)
			}
			if err == nil {
				_, err = io.WriteString(ch, "</data></rpc-reply>"+eom)
			}
		case strings.Contains(msg, "deep"):
			_, err = io.WriteString(ch, head+"<data>"+strings.Repeat("<a>", d.deepLevels)+strings.Repeat("</a>", d.deepLevels)+"</data></rpc-reply>"+eom)
		default:
			_, err = io.WriteString(ch, head+"<ok/></rpc-reply>"+eom)
		}
		if err != nil {
			return
		}
	}
}

// TestReplyBounds: a device's reply above the size or depth bound fails
// that call with a clear error while it streams in (the session is closed,
// the reply never held whole), and the next call works on a new session.
// Before, a 384 MiB reply took the server to 2.3-2.7 GiB.
func TestReplyBounds(t *testing.T) {
	const maxBytes = 1 << 20
	dev := startHostileDevice(t, 32<<20, 100_000)
	t.Setenv("NETCONF_BOUND_TEST_PW", "pw")
	u, _ := url.Parse("netconf://op@" + dev.addr + "?password-env=NETCONF_BOUND_TEST_PW&insecure-host-key=1")
	cfg, err := ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxReplyBytes, cfg.MaxReplyDepth = maxBytes, 64
	c := newConn(cfg, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { c.close(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Timeout(60*time.Second))
	defer cancel()

	if body, _, err := c.call(ctx, "<get/>", true, 0); err != nil || !strings.Contains(string(body), "ok") {
		t.Fatalf("a small reply: %q, %v", body, err)
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	tests := []struct{ op, want string }{
		{"<get><huge/></get>", "size limit of 1048576 bytes"},
		{"<get><deep/></get>", "nesting depth limit of 64 levels"},
	}
	for _, tt := range tests {
		_, _, err := c.call(ctx, tt.op, true, 0)
		var ne *netproto.Error
		if !errors.As(err, &ne) || ne.Code != netproto.CodeUnreachable || !strings.Contains(err.Error(), tt.want) {
			t.Fatalf("%s: err = %v, want -32082 naming %q", tt.op, err, tt.want)
		}
		if body, _, err := c.call(ctx, "<get/>", true, 0); err != nil || !strings.Contains(string(body), "ok") {
			t.Fatalf("after %s, a small reply on a new session: %q, %v", tt.op, body, err)
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// The device offered 32 MiB; what was read stops near the 1 MiB bound.
	if grew := int64(after.TotalAlloc) - int64(before.TotalAlloc); grew > 24<<20 {
		t.Errorf("refusing the replies allocated %d MiB: the reply was not cut while streaming", grew>>20)
	}
}
