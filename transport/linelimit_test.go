package transport

import (
	"errors"
	"io"
	"testing"
)

// TestLimitLines checks the stdio line limit.
func TestLimitLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		max      int
		out      string
		tooLong  bool
	}{
		{"fits", "abc\ndef\n", 3, "abc\ndef\n", false},
		// Bytes of a line already returned stay returned: the reader
		// never passes more than max bytes of a line on.
		{"second line too long", "abc\ndefgh\nxy\n", 4, "abc\nde", true},
		{"first line too long", "abcdefgh", 4, "abc", true},
		{"no newline, fits", "abcd", 4, "abcd", false},
	} {
		var called error
		r := LimitLines(&oneByteChunks{s: tc.in, chunk: 3}, tc.max, func(err error) { called = err })
		got, err := io.ReadAll(r)
		var lt *LineTooLongError
		if string(got) != tc.out || errors.As(err, &lt) != tc.tooLong || (called != nil) != tc.tooLong {
			t.Errorf("%s: got %q, %v (callback %v)", tc.name, got, err, called)
		}
	}
}

// oneByteChunks returns s in chunks of at most chunk bytes.
type oneByteChunks struct {
	s     string
	chunk int
}

func (o *oneByteChunks) Read(p []byte) (int, error) {
	if o.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), o.chunk)], o.s)
	o.s = o.s[n:]
	return n, nil
}
