package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// TestIdempotentCommitOfDeadServer: a keyed commit whose record says
// "running" while no process serves it (its server died) is resolved by
// the commit history: when the handle's owner committed after the commit
// the record names, that commit is answered as the request's result and
// nothing is committed again; when it did not, the retry commits, once.
func TestIdempotentCommitOfDeadServer(t *testing.T) {
	dir := t.TempDir()
	e := newSim(t, filepath.Join(dir, "device"), server.Options{Approver: server.AllowAll, StateDir: dir})
	c := &rawClient{t: t, url: serveHTTP(t, e.srv)}
	ctx := context.Background()
	edit := func(h, desc string) string {
		args := loopEdit(desc)
		if h != "" {
			args = args[:len(args)-1] + `,"handle":"` + h + `"}`
		}
		return c.call(netproto.ToolYangEdit, args)["handle"].(string)
	}
	// interrupted leaves the record a server that died serving the commit
	// with key would have left: running, its head the commit running then.
	interrupted := func(key, handle, head string) {
		sum := sha256.Sum256([]byte("user:tester\x00" + key))
		args, _ := json.Marshal(map[string]any{"handle": handle})
		dig := sha256.Sum256(append([]byte(netproto.ToolCommit+"\x00"), args...))
		rec, _ := json.Marshal(map[string]any{"tool": netproto.ToolCommit, "digest": hex.EncodeToString(dig[:]), "running": true,
			"server": "gone", "expires": time.Now().Add(time.Hour), "head": head})
		os.MkdirAll(filepath.Join(dir, "idempotency"), 0o700)
		if err := os.WriteFile(filepath.Join(dir, "idempotency", hex.EncodeToString(sum[:16])+".json"), rec, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(key, handle string) rawReply {
		return c.send("tools/call", `{"name":"`+netproto.ToolCommit+`","arguments":{"handle":"`+handle+`"}}`, `"netmcp/idempotencyKey":"`+key+`"`)
	}
	history := func() []device.CommitInfo {
		h, err := e.drv.History(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	// The dead server had committed: the history holds the handle's commit.
	h := edit("", "made before the crash")
	hk := sha256.Sum256([]byte(h))
	owner := device.Owner{Session: "h-" + hex.EncodeToString(hk[:16])[:12], User: "user:tester"}
	made, err := e.drv.Commit(ctx, owner, device.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	interrupted("k1", h, "")
	r := commit("k1", h)
	if r.Error != nil || r.structured()["commit-id"] != made.CommitID || r.Result["_meta"].(map[string]any)[server.MetaIdempotentReplay] != true {
		t.Fatalf("retry of a commit made by a dead server: %+v %v; want commit %s replayed", r.Error, r.Result, made.CommitID)
	}
	if n := len(history()); n != 1 {
		t.Fatalf("%d commits; want 1", n)
	}

	// The dead server had not committed: the retry commits.
	edit(h, "committed by the retry")
	interrupted("k2", h, made.CommitID)
	r = commit("k2", h)
	if r.Error != nil || r.structured()["status"] != "committed" || r.structured()["commit-id"] == made.CommitID {
		t.Fatalf("retry of a commit a dead server did not make: %+v %v", r.Error, r.Result)
	}
	if again := commit("k2", h); again.structured()["commit-id"] != r.structured()["commit-id"] {
		t.Fatalf("second retry: %v; want %v", again.Result, r.structured()["commit-id"])
	}
	if n := len(history()); n != 2 {
		t.Fatalf("%d commits; want 2", n)
	}
}
