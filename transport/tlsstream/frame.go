package tlsstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// DefaultMaxFrameSize is the largest frame accepted when no limit is set: 4 MiB.
const DefaultMaxFrameSize = 4 << 20

// headerSize is the length of the big-endian length prefix.
const headerSize = 4

// FrameTooLargeError reports a frame whose announced (or encoded) length is
// above the limit. The frame's body is never read.
type FrameTooLargeError struct {
	// Size is the frame length announced by the header (or of the message to send).
	Size uint64
	// Max is the limit in force.
	Max int
}

// Error implements the error interface.
func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("tlsstream: frame of %d bytes exceeds the maximum frame size of %d bytes", e.Size, e.Max)
}

// ErrEmptyFrame reports a frame of length zero, which carries no JSON-RPC message.
var ErrEmptyFrame = errors.New("tlsstream: empty frame (length 0)")

// initialFrameBuffer is the most a frame's body buffer holds before its
// bytes arrive: a larger frame's buffer grows with what is received, so a
// header announcing 4 MiB followed by silence costs this much, not 4 MiB.
const initialFrameBuffer = 64 << 10

// FrameReader reads length-prefixed frames from a stream.
type FrameReader struct {
	// OnFrameStart, when set, is called as soon as the first byte of a
	// frame has arrived, before the rest of its header and its body are
	// read: the moment a per-frame deadline starts.
	OnFrameStart func()

	r   io.Reader
	max int
	hdr [headerSize]byte
}

// NewFrameReader returns a FrameReader over r accepting frames up to max
// bytes (max <= 0 selects DefaultMaxFrameSize).
func NewFrameReader(r io.Reader, max int) *FrameReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &FrameReader{r: r, max: max}
}

// ReadFrame returns the next frame's payload. It returns io.EOF at a clean
// end of stream (no partial header), io.ErrUnexpectedEOF for a truncated
// frame, *FrameTooLargeError for an oversize header and ErrEmptyFrame for a
// zero length. The body's buffer grows with the bytes received, never
// straight to the announced length.
func (fr *FrameReader) ReadFrame() ([]byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:1]); err != nil {
		return nil, err // io.EOF: clean end between frames
	}
	if fr.OnFrameStart != nil {
		fr.OnFrameStart()
	}
	if _, err := io.ReadFull(fr.r, fr.hdr[1:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("tlsstream: truncated frame header: %w", err)
	}
	n := binary.BigEndian.Uint32(fr.hdr[:])
	if n == 0 {
		return nil, ErrEmptyFrame
	}
	if uint64(n) > uint64(fr.max) {
		return nil, &FrameTooLargeError{Size: uint64(n), Max: fr.max}
	}
	buf, err := readBody(fr.r, int(n))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("tlsstream: truncated frame (want %d bytes, got %d): %w", n, len(buf), err)
	}
	return buf, nil
}

// readBody reads exactly n bytes from r into a buffer that starts at most
// initialFrameBuffer long and doubles, up to n, only as bytes arrive. On
// error it returns what was read.
func readBody(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, initialFrameBuffer))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), n-len(buf)))
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			return buf, err
		}
	}
	return buf, nil
}

// AppendFrame appends the frame for payload (header then payload) to dst.
// It fails with *FrameTooLargeError when payload exceeds max (max <= 0
// selects DefaultMaxFrameSize) and with ErrEmptyFrame when it is empty.
func AppendFrame(dst, payload []byte, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	if len(payload) == 0 {
		return dst, ErrEmptyFrame
	}
	if len(payload) > max {
		return dst, &FrameTooLargeError{Size: uint64(len(payload)), Max: max}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...), nil
}
