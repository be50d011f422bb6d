package tlsstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"
	"testing/iotest"
)

func TestFrameReader(t *testing.T) {
	frame := func(n uint32, body string) []byte {
		return append(binary.BigEndian.AppendUint32(nil, n), body...)
	}
	tests := []struct {
		name    string
		in      []byte
		max     int
		want    []string
		wantErr func(error) bool
	}{
		{"two frames then EOF", append(frame(2, "{}"), frame(3, "[1]")...), 0, []string{"{}", "[1]"},
			func(err error) bool { return err == io.EOF }},
		{"clean EOF", nil, 0, nil, func(err error) bool { return err == io.EOF }},
		{"partial header", []byte{0, 0}, 0, nil, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"truncated body", frame(10, "abc"), 0, nil, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"empty frame", frame(0, ""), 0, nil, func(err error) bool { return errors.Is(err, ErrEmptyFrame) }},
		{"oversize vs limit", frame(11, "01234567890"), 10, nil, func(err error) bool {
			var e *FrameTooLargeError
			return errors.As(err, &e) && e.Size == 11 && e.Max == 10
		}},
		{"at limit", frame(10, "0123456789"), 10, []string{"0123456789"}, func(err error) bool { return err == io.EOF }},
		{"huge header default limit", frame(0xFFFFFFFF, ""), 0, nil, func(err error) bool {
			var e *FrameTooLargeError
			return errors.As(err, &e) && e.Max == DefaultMaxFrameSize
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fr := NewFrameReader(bytes.NewReader(tt.in), tt.max)
			var got []string
			for {
				b, err := fr.ReadFrame()
				if err != nil {
					if !tt.wantErr(err) {
						t.Fatalf("unexpected error %v", err)
					}
					break
				}
				got = append(got, string(b))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("frames %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("frame %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestAppendFrame(t *testing.T) {
	b, err := AppendFrame(nil, []byte(`{"a":1}`), 0)
	if err != nil || !bytes.Equal(b, append([]byte{0, 0, 0, 7}, `{"a":1}`...)) {
		t.Fatalf("AppendFrame = %v, %v", b, err)
	}
	var e *FrameTooLargeError
	if _, err := AppendFrame(nil, make([]byte, 11), 10); !errors.As(err, &e) || e.Size != 11 {
		t.Fatalf("oversize: %v", err)
	}
	if _, err := AppendFrame(nil, nil, 0); !errors.Is(err, ErrEmptyFrame) {
		t.Fatalf("empty: %v", err)
	}
}

// FuzzFrameReader feeds arbitrary bytes to the frame reader: it must never
// panic, never return a frame above the limit, and every frame it returns
// must re-encode to exactly the bytes consumed.
func FuzzFrameReader(f *testing.F) {
	f.Add(append([]byte{0, 0, 0, 2}, "{}"...), 16)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, 0)
	f.Add([]byte{0, 0, 0, 0}, 4)
	f.Add([]byte{0, 0, 0, 5, 'a'}, 8)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max > 1<<20 || max < 0 {
			max = 64
		}
		// The same bytes read one at a time give the same frames: the
		// body buffer's growth loop sees every short read.
		byByte := NewFrameReader(iotest.OneByteReader(bytes.NewReader(data)), max)
		fr := NewFrameReader(bytes.NewReader(data), max)
		limit := max
		if limit <= 0 {
			limit = DefaultMaxFrameSize
		}
		var consumed []byte
		for {
			b, err := fr.ReadFrame()
			b1, err1 := byByte.ReadFrame()
			if (err == nil) != (err1 == nil) || !bytes.Equal(b, b1) {
				t.Fatalf("one-byte reads differ: %q, %v; whole: %q, %v", b1, err1, b, err)
			}
			if err != nil {
				break
			}
			if len(b) == 0 || len(b) > limit {
				t.Fatalf("frame of %d bytes with limit %d", len(b), limit)
			}
			enc, err := AppendFrame(nil, b, max)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			consumed = append(consumed, enc...)
			if !bytes.HasPrefix(data, consumed) {
				t.Fatalf("frames do not re-encode to the input prefix")
			}
		}
	})
}

// TestStalledFrameAllocation: a header announcing a large frame whose body
// never comes costs a bounded buffer, not the announced size.
func TestStalledFrameAllocation(t *testing.T) {
	in := append(binary.BigEndian.AppendUint32(nil, 4<<20), "only ten b"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewFrameReader(bytes.NewReader(in), 0).ReadFrame()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want a truncated frame", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*initialFrameBuffer {
		t.Fatalf("a stalled 4 MiB frame allocated %d bytes, want at most %d", got, 2*initialFrameBuffer)
	}
}

// TestFrameStart: OnFrameStart runs once per frame, after its first byte
// and before the rest, and not at a clean end of stream.
func TestFrameStart(t *testing.T) {
	in := append(append(binary.BigEndian.AppendUint32(nil, 2), "{}"...), binary.BigEndian.AppendUint32(nil, 2)...)
	in = append(in, "[]"...)
	fr := NewFrameReader(bytes.NewReader(in), 0)
	starts := 0
	fr.OnFrameStart = func() { starts++ }
	for {
		if _, err := fr.ReadFrame(); err != nil {
			break
		}
	}
	if starts != 2 {
		t.Fatalf("OnFrameStart ran %d times for 2 frames", starts)
	}
}
