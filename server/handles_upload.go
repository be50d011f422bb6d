package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/netmcp/netmcp/internal/atomicfile"
)

// On protocol 2026-07-28 over HTTP a chunked network.file.push gathers its
// chunks under a handle, as the candidate's changes are: the first chunk
// mints one (or uses the handle of the candidate it belongs with), and
// the chunks received so far are kept beside the handle's record
// (StateDir/handles/<key>.upload), so that another run of the server
// takes the next chunk. The last chunk writes the file as the handle's
// owner: a candidate-config written so is the handle's candidate, which
// network.commit with the handle commits, and which a server run that
// did not write it rebuilds from a copy (StateDir/handles/<key>.<n>.file).

// uploadPath is where the chunks of h's upload are kept.
func (s *Server) uploadPath(h *callHandle) string {
	return filepath.Join(s.handles.dir, h.key+".upload")
}

// filePushHandle serves network.file.push on a stateless call.
func (s *Server) filePushHandle(ctx context.Context, c *call, in filePushArgs) (any, error) {
	ctx, owner, h, mu, err := s.writeTarget(ctx, c, true)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	if err := s.refreshHandle(ctx, h); err != nil {
		mu.Unlock()
		return nil, err
	}
	// The chunks so far: on disk with a state directory, else in the record.
	var have []byte
	if h.rec.Upload != nil {
		if h.rec.Upload.Name != in.Name && in.Offset > 0 {
			mu.Unlock()
			return nil, invalidParams("%s: this handle's upload is of %s, not %s; send offset 0 to start over", c.tool, h.rec.Upload.Name, in.Name)
		}
		if have, err = s.uploadData(h); err != nil {
			mu.Unlock()
			return nil, err
		}
	}
	if in.Offset != len(have) {
		mu.Unlock()
		return nil, invalidParams("%s: chunk offset %d, but %d bytes of %s were received so far; send offset %d (or offset 0 to start over)",
			c.tool, in.Offset, len(have), in.Name, len(have))
	}
	if in.Offset == 0 {
		have = nil
	}
	if len(have)+len(in.Content) > MaxFileSize {
		h.rec.Upload = nil
		_ = s.saveUpload(h, nil)
		mu.Unlock()
		return nil, invalidParams("%s: %s would exceed %d bytes; upload abandoned", c.tool, in.Name, MaxFileSize)
	}
	data := append(have, in.Content...)
	if in.More {
		h.rec.Upload = &handleUpload{Name: in.Name, Size: len(data)}
		err := s.saveUpload(h, data)
		mu.Unlock()
		if err != nil {
			return nil, err
		}
		return filePushResult{Name: in.Name, Status: "staged", SHA256: sha256Hex(data), Size: len(data), NextOffset: ptr(len(data)), handleResult: h.result()}, nil
	}
	mu.Unlock()

	got := sha256Hex(data)
	if in.SHA256 == "" {
		return nil, invalidParams("%s: the last (or only) chunk of a push needs \"sha256\" of the whole file; nothing was written", c.tool)
	}
	if !strings.EqualFold(in.SHA256, got) {
		return nil, invalidParams("%s: content has sha256 %s, not the %s given; nothing was written", c.tool, got, in.SHA256)
	}
	summary := fmt.Sprintf("replace %s with %d bytes (sha256 %s)", in.Name, len(data), got)
	if cur, err := s.files.ReadFile(ctx, in.Name); err == nil {
		summary += fmt.Sprintf("; it now has %d bytes (sha256 %s)", len(cur), sha256Hex(cur))
	}
	// The chunks stay until the file is written, so that the last chunk
	// can be repeated with an approval.
	if err := s.approve(ctx, c.req.Session, c.tool, c.rawArgs(), summary); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if err := s.refreshHandle(ctx, h); err != nil {
		return nil, err
	}
	if err := rpc(s.files.WriteFile(ctx, owner, in.Name, data)); err != nil {
		return nil, err
	}
	var op *candidateOp
	if in.Name == "candidate-config" {
		// The handle's candidate is now this file: a rebuild writes it.
		n := len(h.rec.Ops)
		copyPath := filepath.Join(s.handles.dir, fmt.Sprintf("%s.%d.file", h.key, n))
		if s.handles.dir != "" {
			if err := atomicfile.WriteFile(copyPath, data, 0o600); err != nil {
				return nil, s.handleLost(ctx, h, err)
			}
		}
		op = &candidateOp{File: in.Name, Data: inMemory(s.handles.dir, data), Copy: filepath.Base(copyPath)}
	}
	h.rec.Upload = nil
	if err := s.saveUpload(h, nil); err != nil {
		s.log.Warn("upload chunks not removed", "error", err)
	}
	if err := s.saveHandle(h, op, false); err != nil {
		return nil, s.handleLost(ctx, h, err)
	}
	return filePushResult{Name: in.Name, Status: "written", SHA256: got, Size: len(data), handleResult: h.result()}, nil
}

// inMemory returns data when handles are kept in memory (no directory),
// where the record itself holds the file; nil otherwise.
func inMemory(dir string, data []byte) []byte {
	if dir == "" {
		return data
	}
	return nil
}

// handleUpload is a chunked upload in progress under a handle.
type handleUpload struct {
	Name string `json:"name"`
	Size int    `json:"size"`
	// Data holds the chunks when handles are kept in memory.
	Data []byte `json:"-"`
}

// uploadData returns the chunks of h's upload received so far.
func (s *Server) uploadData(h *callHandle) ([]byte, error) {
	if s.handles.dir == "" {
		return append([]byte(nil), h.rec.Upload.Data...), nil
	}
	b, err := os.ReadFile(s.uploadPath(h))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// The record is written after the chunks: it says how many count.
	if len(b) < h.rec.Upload.Size {
		return nil, fmt.Errorf("the upload of this handle lost chunks (%d of %d bytes); send offset 0 to start over", len(b), h.rec.Upload.Size)
	}
	return b[:h.rec.Upload.Size], nil
}

// saveUpload records h's upload with the chunks data (nil: none left).
func (s *Server) saveUpload(h *callHandle, data []byte) error {
	if s.handles.dir == "" {
		if h.rec.Upload != nil {
			h.rec.Upload.Data = append([]byte(nil), data...)
		}
		return s.handles.save(h.key, h.rec)
	}
	if data == nil {
		_ = os.Remove(s.uploadPath(h))
	} else {
		if err := os.MkdirAll(s.handles.dir, 0o700); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(s.uploadPath(h), data, 0o600); err != nil {
			return err
		}
	}
	return s.handles.save(h.key, h.rec)
}
