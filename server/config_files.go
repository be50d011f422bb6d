package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of network.file.pull and network.file.push.
const (
	// MaxFileChunk is the largest chunk one pull returns or one push carries.
	MaxFileChunk = 256 << 10
	// MaxFileSize is the largest file a chunked push may assemble.
	MaxFileSize = 16 << 20
	// uploadTTL is how long a partial upload waits for its next chunk.
	uploadTTL = 10 * time.Minute
)

// filePullArgs are the arguments of network.file.pull.
type filePullArgs struct {
	Name   string `json:"name"`
	Offset int    `json:"offset,omitempty" jsonschema:"first byte to return"`
	Length int    `json:"length,omitempty" jsonschema:"most bytes to return (default and maximum 262144)"`
}

// filePullResult is the result of network.file.pull: a chunk of the file
// (the whole file when it is small). Its fields are in the order of their
// JSON names.
type filePullResult struct {
	ChunkSHA256 string `json:"chunkSha256"`
	Content     string `json:"content"`
	EOF         bool   `json:"eof"`
	Length      int    `json:"length"`
	Name        string `json:"name"`
	NextOffset  int    `json:"nextOffset,omitempty" jsonschema:"offset of the next chunk; absent at the end"`
	Offset      int    `json:"offset"`
	SHA256      string `json:"sha256" jsonschema:"SHA-256 of the whole file"`
	Size        int    `json:"size" jsonschema:"size of the whole file"`
}

// filePushArgs are the arguments of network.file.push.
type filePushArgs struct {
	handleArg
	Name    string `json:"name"`
	Content string `json:"content" jsonschema:"the file, or one chunk of at most 262144 bytes"`
	SHA256  string `json:"sha256,omitempty" jsonschema:"SHA-256 of the whole file; required on the last (or only) chunk of a push"`
	Offset  int    `json:"offset,omitempty" jsonschema:"position of this chunk; must equal the bytes received so far"`
	More    bool   `json:"more,omitempty" jsonschema:"true: more chunks follow; nothing is written until the last one"`
}

// filePushResult is the result of network.file.push: the file written, or
// the chunks staged so far (with the offset of the next chunk). Its fields
// are in the order of their JSON names.
type filePushResult struct {
	handleResult
	Name       string `json:"name"`
	NextOffset *int   `json:"nextOffset,omitempty"`
	SHA256     string `json:"sha256"`
	Size       int    `json:"size"`
	Status     string `json:"status"`
}

// Schemas of the file tools (chunked transfer, see docs/configuration.md).
var (
	filePullInput = inputSchema[filePullArgs](&jsonschema.Schema{Properties: props{
		"name":   {Enum: []any{"running-config", "startup-config", "candidate-config"}},
		"offset": {Minimum: ptr(0.0), Default: jsonValue(0)},
		"length": {Minimum: ptr(1.0), Maximum: ptr(float64(MaxFileChunk))},
	}})
	filePullOutput = outputSchema[filePullResult](&jsonschema.Schema{Required: []string{"name", "content", "sha256", "size"}})
	filePushInput  = inputSchema[filePushArgs](&jsonschema.Schema{Properties: props{
		"name":   {Enum: []any{"candidate-config", "startup-config"}},
		"sha256": {Pattern: "^[0-9a-fA-F]{64}$"},
		"offset": {Minimum: ptr(0.0), Default: jsonValue(0)},
		"more":   {Default: jsonValue(false)},
	}})
	filePushOutput = outputSchema[filePushResult](nil)
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// filePull returns a file or one chunk of it, with the SHA-256 of the whole
// file so that the client can check the assembled chunks. For a caller who
// may not read secrets the file is masked whole first, and the chunk, the
// size and both hashes describe the masked file: masking each chunk alone
// would miss a secret split across two chunks, and the hash or size of the
// unmasked file would let a caller check guesses offline.
func (s *Server) filePull(ctx context.Context, c *call) (any, error) {
	var in filePullArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	b, err := s.files.ReadFile(ctx, in.Name)
	if err != nil {
		return nil, err
	}
	if m := maskerFrom(ctx); m != nil {
		b = []byte(m.config(string(b)))
	}
	if in.Offset > len(b) {
		return nil, invalidParams("%s: offset %d is past the end of %s (%d bytes)", c.tool, in.Offset, in.Name, len(b))
	}
	n := in.Length
	if n <= 0 || n > MaxFileChunk {
		n = MaxFileChunk
	}
	end := min(in.Offset+n, len(b))
	chunk := b[in.Offset:end]
	out := filePullResult{Name: in.Name, Content: string(chunk), SHA256: sha256Hex(b), Size: len(b),
		Offset: in.Offset, Length: len(chunk), ChunkSHA256: sha256Hex(chunk), EOF: end == len(b)}
	if end < len(b) {
		out.NextOffset = end // > 0: a chunk has at least one byte
	}
	return out, nil
}

// upload is a chunked push being assembled.
type upload struct {
	data    []byte
	updated time.Time
}

// uploads holds the partial pushes of every session, by session and file.
type uploads struct {
	mu sync.Mutex
	m  map[string]*upload
}

func uploadKey(session, name string) string { return session + "\x00" + name }

// filePush replaces candidate-config or startup-config. A large file comes
// in chunks: every chunk but the last has more=true and is only staged;
// the last one (with the sha256 of the whole file) is checked, approved
// and written. The driver validates the syntax before anything changes.
func (s *Server) filePush(ctx context.Context, c *call) (any, error) {
	var in filePushArgs
	if err := c.bind(&in); err != nil {
		return nil, err
	}
	if len(in.Content) > MaxFileChunk && (in.More || in.Offset > 0) {
		return nil, invalidParams("%s: a chunk has at most %d bytes, this one %d", c.tool, MaxFileChunk, len(in.Content))
	}
	if stateless(c) {
		return s.filePushHandle(ctx, c, in)
	}
	owner := s.owner(c.req.Session)
	key := uploadKey(owner.Session, in.Name)
	now := time.Now()
	s.uploads.mu.Lock()
	if s.uploads.m == nil {
		s.uploads.m = map[string]*upload{}
	}
	for k, u := range s.uploads.m {
		if now.Sub(u.updated) > uploadTTL {
			delete(s.uploads.m, k)
		}
	}
	up := s.uploads.m[key]
	have := 0
	if up != nil {
		have = len(up.data)
	}
	if in.Offset != have {
		s.uploads.mu.Unlock()
		return nil, invalidParams("%s: chunk offset %d, but %d bytes of %s were received so far; send offset %d (or offset 0 to start over)",
			c.tool, in.Offset, have, in.Name, have)
	}
	if in.Offset == 0 {
		up = nil // offset 0 starts a new upload
	}
	if have+len(in.Content) > MaxFileSize {
		delete(s.uploads.m, key)
		s.uploads.mu.Unlock()
		return nil, invalidParams("%s: %s would exceed %d bytes; upload abandoned", c.tool, in.Name, MaxFileSize)
	}
	var data []byte
	if up != nil {
		data = append(up.data, in.Content...)
	} else {
		data = []byte(in.Content)
	}
	if in.More {
		s.uploads.m[key] = &upload{data: data, updated: now}
		s.uploads.mu.Unlock()
		return filePushResult{Name: in.Name, Status: "staged", SHA256: sha256Hex(data), Size: len(data), NextOffset: ptr(len(data))}, nil
	}
	delete(s.uploads.m, key)
	s.uploads.mu.Unlock()

	got := sha256Hex(data)
	if in.SHA256 == "" {
		// The last chunk carries the sha256 of the whole file, and a push
		// in one call is its own last chunk.
		return nil, invalidParams("%s: the last (or only) chunk of a push needs \"sha256\" of the whole file; nothing was written", c.tool)
	}
	if in.SHA256 != "" && !strings.EqualFold(in.SHA256, got) {
		return nil, invalidParams("%s: content has sha256 %s, not the %s given; nothing was written", c.tool, got, in.SHA256)
	}
	if err := s.writeFile(ctx, c.req.Session, c.tool, c.rawArgs(), in.Name, data); err != nil {
		if in.Offset > 0 {
			// Keep the chunks so that the last one can be repeated with
			// an approval token or consent.
			s.uploads.mu.Lock()
			s.uploads.m[key] = &upload{data: data[:in.Offset], updated: now}
			s.uploads.mu.Unlock()
		}
		return nil, err
	}
	return filePushResult{Name: in.Name, Status: "written", SHA256: got, Size: len(data)}, nil
}

// writeFile replaces a configuration file through the Approver. The driver
// checks the syntax before it changes anything (MCP-NET 5.3).
func (s *Server) writeFile(ctx context.Context, ss *mcp.ServerSession, tool string, args []byte, name string, data []byte) error {
	summary := fmt.Sprintf("replace %s with %d bytes (sha256 %s)", name, len(data), sha256Hex(data))
	if cur, err := s.files.ReadFile(ctx, name); err == nil {
		summary += fmt.Sprintf("; it now has %d bytes (sha256 %s)", len(cur), sha256Hex(cur))
	}
	if err := s.approve(ctx, ss, tool, args, summary); err != nil {
		return err
	}
	mu := s.candidateMu(ss)
	mu.Lock()
	defer mu.Unlock()
	return rpc(s.files.WriteFile(ctx, s.owner(ss), name, data))
}
