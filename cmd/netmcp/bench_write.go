package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/netmcp/netmcp/internal/benchkit"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// benchWriteIf is the interface whose description the write benchmark
// changes: a loopback the first edit creates.
const benchWriteIf = "LoopBack100"

// benchWritePolicy approves every write: the benchmark measures the write
// path, not an operator.
const benchWritePolicy = "approval:\n  default: never\n"

// benchWrites starts netmcp serve with its state directory stateDir over
// HTTP, makes f.writes timed edit+commit pairs on protocol w.Protocol
// (after untimed ones: the first creates the interface and mints the
// handle the others pass), with a new idempotency key on each call or
// none (w.Key), adds their latencies to w and returns the figures of this
// run.
func benchWrites(ctx context.Context, w *benchWrite, self, tmp, stateDir string, run int, f benchFlags) (benchkit.Stats, error) {
	policy := filepath.Join(tmp, "write-policy.yaml")
	if err := os.WriteFile(policy, []byte(benchWritePolicy), 0o600); err != nil {
		return benchkit.Stats{}, err
	}
	argv := append([]string{self, "serve", "--device", f.device, "--state-dir", stateDir, "--listen", "127.0.0.1:0", "--rate", "0",
		"--policy", policy, "--local-role", "operator"}, f.serveArgs...)
	w.Argv = tmpless(argv[1:], tmp)
	opts := benchkit.Options{Argv: argv, Env: []string{"XDG_STATE_HOME=" + filepath.Join(tmp, "xdg")}, Stderr: &stderrTail{}, Protocol: w.Protocol}
	c, err := benchkit.StartHTTP(opts)
	if err != nil {
		return benchkit.Stats{}, fmt.Errorf("bench: writes (key: %s): %w\n%s", w.Key, err, opts.Stderr)
	}
	defer c.Close()
	ifPath := "/openconfig-interfaces:interfaces/interface[name='" + benchWriteIf + "']"
	handle := ""
	n := 0
	// op edits the interface's description (creating the interface first)
	// and commits the candidate, both under the handle.
	op := func() error {
		n++
		var meta, commitMeta map[string]any
		if w.Key == benchNewKey {
			key := "bench-" + strconv.Itoa(run) + "-" + strconv.Itoa(n)
			meta = map[string]any{server.MetaIdempotencyKey: key + "-edit"}
			commitMeta = map[string]any{server.MetaIdempotencyKey: key + "-commit"}
		}
		desc := "bench " + strconv.Itoa(n)
		edit := map[string]any{"path": ifPath + "/config/description", "value": desc}
		if handle == "" {
			edit = map[string]any{"path": ifPath, "value": map[string]any{"config": map[string]any{
				"name": benchWriteIf, "type": "iana-if-type:softwareLoopback", "description": desc}}}
		}
		args := map[string]any{"edit": []any{edit}}
		if handle != "" {
			args["handle"] = handle
		}
		sc, err := c.Call(ctx, netproto.ToolYangEdit, args, meta)
		if err != nil {
			return fmt.Errorf("%s: %w", netproto.ToolYangEdit, err)
		}
		if handle == "" {
			var out struct {
				Handle string `json:"handle"`
			}
			if json.Unmarshal(sc, &out) != nil || out.Handle == "" {
				return fmt.Errorf("%s minted no handle: %s", netproto.ToolYangEdit, sc)
			}
			handle = out.Handle
		}
		sc, err = c.Call(ctx, netproto.ToolCommit, map[string]any{"handle": handle, "comment": "netmcp bench"}, commitMeta)
		if err != nil {
			return fmt.Errorf("%s: %w", netproto.ToolCommit, err)
		}
		var out struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(sc, &out) != nil || out.Status != "committed" {
			return fmt.Errorf("%s: status %q, want committed: %.300s", netproto.ToolCommit, out.Status, sc)
		}
		return nil
	}
	if err := op(); err != nil { // the interface and the handle: nothing works without them
		return benchkit.Stats{}, fmt.Errorf("bench: writes (key: %s): %w\n%s", w.Key, err, opts.Stderr)
	}
	var lat []time.Duration
	failed := 0
	var first error
	warm := min(f.warmup, 20)
	for i := 0; i < warm+f.writes && ctx.Err() == nil; i++ {
		t0 := time.Now()
		err := op()
		d := time.Since(t0)
		switch {
		case err != nil:
			failed++
			if first == nil {
				first = fmt.Errorf("write %d: %w", i+1, err)
			}
		case i >= warm:
			lat = append(lat, d)
		}
	}
	w.lat = append(w.lat, lat...)
	w.Errors += failed
	if w.FirstError == "" && first != nil {
		w.FirstError = first.Error()
	}
	if ctx.Err() != nil {
		return benchkit.Stats{}, ctx.Err()
	}
	return benchkit.Summarize(append([]time.Duration(nil), lat...), failed), nil
}
