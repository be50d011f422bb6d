package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/client"
	"github.com/netmcp/netmcp/controller"
	"github.com/netmcp/netmcp/device/clipipe"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/policy"
	"github.com/netmcp/netmcp/redact"
	"github.com/netmcp/netmcp/server"
)

// The devices answer the controller with its own credentials, which
// usually read secrets: the controller masks what it relays for a host
// without the secrets scope on that device, as a device's server masks
// for its own callers, with the same machinery (server.Masker): by
// configuration syntax, by leaf name and schema path, and by the values
// the devices' configurations hold.

// secretsState is what the controller masks with: one redactor taught the
// configuration of every device it masked for (read by the controller
// itself, never from what a host sent), and which devices it has learnt.
type secretsState struct {
	red *redact.Redactor

	mu   sync.Mutex
	devs map[string]*learnt
}

// learnt is whether a device's configuration was learnt (mu held while it
// is being read, so that a call waits for it).
type learnt struct {
	mu   sync.Mutex
	done bool
}

// learnTimeout bounds the reading of one device's configuration.
const learnTimeout = 30 * time.Second

func newSecretsState() secretsState {
	return secretsState{red: redact.New(redact.Options{}), devs: map[string]*learnt{}}
}

// of returns the learning state of device name.
func (st *secretsState) of(name string) *learnt {
	st.mu.Lock()
	defer st.mu.Unlock()
	l := st.devs[name]
	if l == nil {
		l = &learnt{}
		st.devs[name] = l
	}
	return l
}

// forget makes the device's configuration learnt again before its next
// masked answer: it changed through the controller.
func (st *secretsState) forget(name string) {
	l := st.of(name)
	l.mu.Lock()
	l.done = false
	l.mu.Unlock()
}

// maySeeSecrets reports whether the host may see d's secrets: one of its
// roles has the secrets scope and reaches d (and, for a token, its scopes
// hold secrets and reach d).
func (s *Server) maySeeSecrets(id policy.Identity, d *client.Device) bool {
	if !s.acc.pol.MayReadSecrets(id) {
		return false
	}
	dev := deviceOf(d)
	for _, r := range id.Roles {
		one := id
		one.Roles = []string{r}
		if s.acc.pol.MayReadSecrets(one) && s.acc.pol.Reaches(one, dev) {
			return true
		}
	}
	return false
}

// masker returns the masker of d's answers, once the redactor has learnt
// d's configuration.
func (s *Server) masker(ctx context.Context, d *client.Device) *server.Masker {
	s.learn(ctx, d)
	return server.NewMasker(s.secrets.red, dialectOf(d))
}

// dialectOf is d's CLI dialect, for masking configuration text.
func dialectOf(d *client.Device) string {
	if nc, ok := d.Network(); ok && nc.CLIDialect != "" {
		return nc.CLIDialect
	}
	return d.Inventory().Dialect
}

// learn teaches the redactor the secrets of d's running configuration, as
// a tree and as text, once (and again after a change made through the
// controller), so that a secret a device echoes where no syntax or leaf
// name shows it is masked too. A device that cannot be read now is read
// again at the next masked call.
func (s *Server) learn(ctx context.Context, d *client.Device) {
	l := s.secrets.of(d.Name())
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	ctx, cancel := context.WithTimeout(client.WithCorrelationID(context.WithoutCancel(ctx), client.NewCorrelationID()), learnTimeout)
	defer cancel()
	m := server.NewMasker(s.secrets.red, dialectOf(d))
	ok := true
	tools := map[string]bool{}
	for _, t := range d.Tools() {
		tools[netproto.CanonicalName(t.Name)] = true
	}
	if tools[netproto.ToolYangGet] {
		res, err := d.CallTool(ctx, netproto.ToolYangGet, map[string]any{"path": "/", "datastore": "running"})
		if sc, isMap := structured(res); err == nil && isMap {
			m.Learn(sc["data"])
		}
		ok = ok && !failed(err)
	}
	if tools[netproto.ToolFilePull] {
		b, _, err := pullFile(ctx, d, netproto.ToolFilePull, map[string]any{"name": "running-config"})
		if err == nil {
			m.Learn(string(b))
		}
		ok = ok && !failed(err)
	}
	l.done = ok
}

// failed reports whether err is a failure to reach the device (a refusal
// or a tool error is an answer: the device has nothing to teach there).
func failed(err error) bool {
	var te *client.ToolError
	var je *jsonrpc.Error
	return err != nil && !errors.As(err, &te) && !errors.As(err, &je)
}

// structured returns a tool result's structured content as a JSON object.
func structured(res *mcp.CallToolResult) (map[string]any, bool) {
	if res == nil || res.StructuredContent == nil {
		return nil, false
	}
	if m, ok := res.StructuredContent.(map[string]any); ok {
		return m, true
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// callMasked calls tool on d for a host that may not see d's secrets and
// returns the answer masked. A YANG read that selects by a secret is
// refused; a CLI command runs without its output filter, which then
// applies to the masked output; a file is pulled whole and masked before
// the chunk the host asked for is cut from it. Otherwise the device's
// result, tool error or error is masked as it comes.
func (s *Server) callMasked(ctx context.Context, d *client.Device, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	raw, _ := json.Marshal(args)
	m := s.masker(ctx, d).Keeping(raw)
	switch netproto.CanonicalName(tool) {
	case netproto.ToolYangGet:
		if p, ok := args["path"].(string); ok {
			if err := m.SelectsBySecret(p); err != nil {
				return nil, rpcError(err)
			}
		}
	case netproto.ToolCLIExec:
		return execMasked(ctx, d, m, tool, args)
	case netproto.ToolFilePull:
		return pullMasked(ctx, d, m, tool, args)
	}
	res, err := d.CallTool(ctx, tool, args)
	return maskedAnswer(m, res, err)
}

// maskedAnswer masks a device's answer: its result or tool error result,
// or its error.
func maskedAnswer(m *server.Masker, res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	var te *client.ToolError
	if res != nil && (err == nil || errors.As(err, &te)) {
		m.ToolResult(res)
		return res, nil
	}
	if err != nil {
		return nil, m.Error(err)
	}
	return res, nil
}

// execMasked runs a CLI command without its output filter ("| include
// RE"), masks the output and applies the filter to what the host may see:
// run by the device on its unmasked output, the filter would answer, line
// by line, whether a secret matches RE.
func execMasked(ctx context.Context, d *client.Device, m *server.Masker, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	cmdline, _ := args["cmd"].(string)
	cmd, filter, err := clipipe.Split(cmdline)
	if err != nil {
		return nil, rpcError(netproto.Errorf(netproto.CodeConfigIncompatible, "%s: %v", tool, err))
	}
	bare := maps.Clone(args)
	bare["cmd"] = cmd
	res, err := d.CallTool(ctx, tool, bare)
	sc, ok := structured(res)
	out, isText := sc["stdout"].(string)
	if err != nil || !ok || !isText {
		return maskedAnswer(m, res, err)
	}
	out = filter.Apply(m.Text(out))
	return &mcp.CallToolResult{StructuredContent: map[string]any{"stdout": out}, Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
}

// pullMasked answers network.file.pull as a device's server does for a
// caller who may not read secrets: the file is masked whole, then the
// chunk asked for is cut from the masked file, and the size and both
// hashes describe the masked file. Masking each chunk alone would miss a
// secret split across two chunks, and the hash or size of the unmasked
// file would let the host check guesses offline.
func pullMasked(ctx context.Context, d *client.Device, m *server.Masker, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	b, res, err := pullFile(ctx, d, tool, args)
	if err != nil {
		return maskedAnswer(m, res, err)
	}
	b = []byte(m.Text(string(b)))
	name, _ := args["name"].(string)
	off, n := intArg(args["offset"]), intArg(args["length"])
	if off < 0 || off > len(b) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: offset %d is past the end of %s (%d bytes)", tool, off, name, len(b))}
	}
	if n <= 0 || n > server.MaxFileChunk {
		n = server.MaxFileChunk
	}
	end := min(off+n, len(b))
	chunk := b[off:end]
	out := map[string]any{"name": name, "content": string(chunk), "sha256": sha256Hex(b), "size": len(b),
		"offset": off, "length": len(chunk), "chunkSha256": sha256Hex(chunk), "eof": end == len(b)}
	if end < len(b) {
		out["nextOffset"] = end
	}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{StructuredContent: out, Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
}

// pullFile pulls a whole file with network.file.pull, chunk after chunk
// from offset 0 (args name it; their offset and length are replaced). On
// a failure it returns the device's answer and error. A file larger than
// server.MaxFileSize is refused.
func pullFile(ctx context.Context, d *client.Device, tool string, args map[string]any) ([]byte, *mcp.CallToolResult, error) {
	var file []byte
	a := maps.Clone(args)
	delete(a, "length")
	for next := 0; ; {
		a["offset"] = next
		res, err := d.CallTool(ctx, tool, a)
		if err != nil {
			return nil, res, err
		}
		var out struct {
			Content    string `json:"content"`
			NextOffset *int   `json:"nextOffset"`
			EOF        bool   `json:"eof"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, nil, fmt.Errorf("%s: %s answered no file chunk: %w", tool, d.Name(), err)
		}
		file = append(file, out.Content...)
		if len(file) > server.MaxFileSize {
			return nil, nil, rpcError(netproto.Errorf(netproto.CodeConfigIncompatible, "%s: the file is larger than %d bytes", tool, server.MaxFileSize))
		}
		if out.EOF || out.NextOffset == nil || *out.NextOffset <= next {
			return file, nil, nil
		}
		next = *out.NextOffset
	}
}

// intArg reads an integer argument as JSON decodes it (0 when absent).
func intArg(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// maskReport returns rep as the host id may see it: masked, with the
// known secrets of the devices it cites, unless id may see the secrets of
// every one of them. args are the host's own input, left as sent.
func (s *Server) maskReport(ctx context.Context, id policy.Identity, rep *controller.Report, args json.RawMessage) (*controller.Report, error) {
	var devs []*client.Device
	clear := true
	for _, name := range s.reportDevices(rep) {
		d := s.ctl.Fleet.Device(name)
		devs = append(devs, d)
		clear = clear && s.maySeeSecrets(id, d)
	}
	if clear {
		return rep, nil
	}
	for _, d := range devs {
		s.learn(ctx, d)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	var out controller.Report
	if err := json.Unmarshal(server.NewMasker(s.secrets.red, "").Keeping(args).JSON(b), &out); err != nil {
		return nil, fmt.Errorf("report %s: it cannot be shown masked: %w", rep.ID, err)
	}
	return &out, nil
}
