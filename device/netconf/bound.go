package netconf

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/nemith/netconf/transport"
)

// Bounds of one message from the device. A reply above either is refused
// while it is being read: the session is closed at once, so neither the
// rest of the message nor its decoded form is ever held in memory.
const (
	// DefaultMaxReplyBytes bounds the size of one message (a <get-config>
	// of a large router is a few MiB).
	DefaultMaxReplyBytes = 64 << 20
	// DefaultMaxReplyDepth bounds the nesting of elements in one message
	// (the deepest YANG data trees are a few dozen levels).
	DefaultMaxReplyDepth = 256
)

// ReplyLimitError reports a device message above a bound; the session that
// carried it has been closed.
type ReplyLimitError struct {
	// What names the bound: "size" or "nesting depth".
	What string
	// Limit is the bound in force (bytes or levels).
	Limit int64
}

// Error implements the error interface.
func (e *ReplyLimitError) Error() string {
	unit := "bytes"
	if e.What == "nesting depth" {
		unit = "levels"
	}
	return fmt.Sprintf("a NETCONF message from the device exceeds the %s limit of %d %s; the session was closed", e.What, e.Limit, unit)
}

// boundedTransport wraps a NETCONF transport so that every message read
// from it is bounded in size and nesting depth (see limitReader).
type boundedTransport struct {
	transport.Transport
	maxBytes int64
	maxDepth int

	mu    sync.Mutex
	cause *ReplyLimitError // the first bound exceeded, nil before
}

func newBoundedTransport(t transport.Transport, maxBytes int64, maxDepth int) *boundedTransport {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxReplyBytes
	}
	if maxDepth <= 0 {
		maxDepth = DefaultMaxReplyDepth
	}
	return &boundedTransport{Transport: t, maxBytes: maxBytes, maxDepth: maxDepth}
}

// MsgReader implements transport.Transport.
func (t *boundedTransport) MsgReader() (io.ReadCloser, error) {
	r, err := t.Transport.MsgReader()
	if err != nil {
		return nil, err
	}
	lr := &limitReader{rc: r, t: t, left: t.maxBytes}
	if br, ok := r.(io.ByteReader); ok {
		// The session's XML decoder reads byte by byte from a
		// ByteReader and stops right after a message's root element; given
		// a plain Reader it would read ahead through the end-of-message
		// marker, and the reader's Close would then wait inside the next
		// message. Keep the framing reader's ReadByte visible.
		return &byteLimitReader{limitReader: lr, br: br}, nil
	}
	return lr, nil
}

// Upgrade implements the optional upgrade to chunked framing that the
// session calls after <hello> when both sides speak base:1.1.
func (t *boundedTransport) Upgrade() {
	if u, ok := t.Transport.(interface{ Upgrade() }); ok {
		u.Upgrade()
	}
}

// exceeded records why the session is being closed, closes it, and
// returns the error a read gives: it wraps io.ErrUnexpectedEOF, which ends
// the session's receive loop (any other error is logged and the loop reads
// on) and fails every call waiting for a reply.
func (t *boundedTransport) exceeded(e *ReplyLimitError) error {
	t.mu.Lock()
	if t.cause == nil {
		t.cause = e
	}
	t.mu.Unlock()
	_ = t.Transport.Close()
	return fmt.Errorf("%w: %w", e, io.ErrUnexpectedEOF)
}

// limitCause returns the bound that closed the session, if one did.
func (t *boundedTransport) limitCause() *ReplyLimitError {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cause
}

// limitReader counts the bytes of one message and follows its element
// nesting as they stream by.
type limitReader struct {
	rc   io.ReadCloser
	t    *boundedTransport
	left int64
	xml  depthScanner
	err  error
}

func (r *limitReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.rc.Read(p)
	if int64(n) > r.left {
		r.err = r.t.exceeded(&ReplyLimitError{What: "size", Limit: r.t.maxBytes})
		return 0, r.err
	}
	r.left -= int64(n)
	if d := r.xml.scan(p[:n]); d > r.t.maxDepth {
		r.err = r.t.exceeded(&ReplyLimitError{What: "nesting depth", Limit: int64(r.t.maxDepth)})
		return 0, r.err
	}
	return n, err
}

func (r *limitReader) Close() error { return r.rc.Close() }

// byteLimitReader is a limitReader over a framing reader that reads byte
// by byte.
type byteLimitReader struct {
	*limitReader
	br  io.ByteReader
	one [1]byte
}

// ReadByte implements io.ByteReader with the same bounds as Read.
func (r *byteLimitReader) ReadByte() (byte, error) {
	if r.err != nil {
		return 0, r.err
	}
	b, err := r.br.ReadByte()
	if err != nil {
		return b, err
	}
	if r.left == 0 {
		r.err = r.t.exceeded(&ReplyLimitError{What: "size", Limit: r.t.maxBytes})
		return 0, r.err
	}
	r.left--
	r.one[0] = b
	if r.xml.scan(r.one[:]) > r.t.maxDepth {
		r.err = r.t.exceeded(&ReplyLimitError{What: "nesting depth", Limit: int64(r.t.maxDepth)})
		return 0, r.err
	}
	return b, nil
}

// depthScanner follows the element depth of an XML stream without
// decoding it: start tags deepen, end tags and self-closing tags do not,
// and comments, CDATA sections, processing instructions and declarations
// are skipped, as are '>' and '/' inside quoted attribute values. It is
// deliberately lenient: the XML decoder after it judges well-formedness.
type depthScanner struct {
	state    scanState
	depth    int
	maxDepth int
	quote    byte    // the quote that opened the current attribute value
	tail     [2]byte // the last two bytes of a comment, CDATA or PI, for its terminator
	lastByte byte    // the previous byte inside a tag, to see "/>"
	bang     []byte  // the bytes after "<!" while it is not yet known which construct it opens
}

type scanState uint8

const (
	stText     scanState = iota
	stOpen               // after '<'
	stStartTag           // inside a start tag
	stEndTag             // inside an end tag
	stBang               // after "<!", deciding
	stComment            // inside <!-- ... -->
	stCDATA              // inside <![CDATA[ ... ]]>
	stDecl               // inside another <! ... > declaration
	stPI                 // inside <? ... ?>
)

// terminators are the closing bytes of a comment ("-->"), a CDATA
// section ("]]>") and a processing instruction ("?>", 0 for no byte).
var terminators = [...][3]byte{stComment: {'-', '-', '>'}, stCDATA: {']', ']', '>'}, stPI: {0, '?', '>'}}

// scan consumes b and returns the deepest nesting reached so far.
func (s *depthScanner) scan(b []byte) int {
	for _, c := range b {
		switch s.state {
		case stText:
			if c == '<' {
				s.state = stOpen
			}
		case stOpen:
			switch c {
			case '/':
				s.state = stEndTag
			case '!':
				s.state, s.bang = stBang, s.bang[:0]
			case '?':
				s.state, s.tail = stPI, [2]byte{}
			default:
				s.state, s.quote, s.lastByte = stStartTag, 0, c
			}
		case stStartTag:
			s.startTag(c)
		case stEndTag:
			if c == '>' {
				if s.depth > 0 {
					s.depth--
				}
				s.state = stText
			}
		case stBang:
			s.afterBang(c)
		case stComment, stCDATA, stPI:
			end := terminators[s.state]
			if c == end[2] && s.tail[1] == end[1] && (end[0] == 0 || s.tail[0] == end[0]) {
				s.state = stText
			}
			s.tail = [2]byte{s.tail[1], c}
		case stDecl:
			if c == '>' {
				s.state = stText
			}
		}
	}
	return s.maxDepth
}

// startTag consumes byte c inside a start tag: quoted attribute values
// are skipped, and '>' ends the tag, one level deeper unless it closed
// itself ("/>").
func (s *depthScanner) startTag(c byte) {
	switch {
	case s.quote != 0:
		if c == s.quote {
			s.quote = 0
		}
	case c == '"' || c == '\'':
		s.quote = c
	case c == '>':
		if s.lastByte != '/' {
			s.depth++
			s.maxDepth = max(s.maxDepth, s.depth)
		}
		s.state = stText
	}
	s.lastByte = c
}

// afterBang consumes byte c after "<!" until it is known whether a
// comment, a CDATA section or another declaration opened.
func (s *depthScanner) afterBang(c byte) {
	s.bang = append(s.bang, c)
	switch {
	case string(s.bang) == "--":
		s.state, s.tail = stComment, [2]byte{}
	case string(s.bang) == "[CDATA[":
		s.state, s.tail = stCDATA, [2]byte{}
	case c == '>':
		s.state = stText
	case !isPrefix(s.bang, "--") && !isPrefix(s.bang, "[CDATA["):
		s.state = stDecl
	}
}

// isPrefix reports whether b is a prefix of s.
func isPrefix(b []byte, s string) bool {
	return len(b) <= len(s) && string(b) == s[:len(b)]
}

// errLimit returns the bound that closed the session when err came from
// it, for a clearer error than "session lost".
func errLimit(t *boundedTransport, err error) (*ReplyLimitError, bool) {
	if t == nil || err == nil {
		return nil, false
	}
	if e := t.limitCause(); e != nil {
		return e, true
	}
	var e *ReplyLimitError
	return e, errors.As(err, &e)
}
