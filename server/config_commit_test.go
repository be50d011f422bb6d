package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/server"
)

// TestCommitDiffResource reads what each commit of the history changed,
// through network:///config/history/{commit-id}: the entry names the
// committer, the diff shows the change, a secret the commit wrote is
// masked for a caller who may not read secrets, and a bad or unknown id
// is a clear error.
func TestCommitDiffResource(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy, server: func(o *server.Options) { o.Approver = server.AllowAll }})
	admin, _ := env.session(env.token("ada", "", time.Hour), nil)
	operator, _ := env.session(env.token("otto", "", time.Hour), nil)
	const planted = "Pl4nted-Secret!77"
	for _, step := range []struct {
		tool string
		args any
	}{
		{netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": pathLo100, "value": json.RawMessage(strings.ReplaceAll(loopConfig, "%s", "uplink to the core"))}}}},
		{netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": "/openconfig-system:system/aaa/authentication/users/user[username='admin']/config/password", "value": planted}}}},
		{netproto.ToolCommit, map[string]any{"comment": "loopback and password"}},
	} {
		if out, err := callTool(admin, step.tool, step.args); err != nil || strings.Contains(out, `"isError":true`) {
			t.Fatalf("%s: %v %s", step.tool, err, out)
		}
	}
	text := readText(t, operator, server.URICommitHistory)
	var hist struct {
		Commits []struct {
			ID   string `json:"commit-id"`
			User string `json:"user"`
		} `json:"commits"`
	}
	if err := json.Unmarshal([]byte(text), &hist); err != nil || len(hist.Commits) == 0 {
		t.Fatalf("history %s: %v", text, err)
	}
	id := hist.Commits[0].ID
	{
		text := readText(t, operator, server.URICommitPrefix+id)
		var got struct {
			Commit struct {
				ID      string `json:"commit-id"`
				User    string `json:"user"`
				Comment string `json:"comment"`
			} `json:"commit"`
			Diff    string `json:"diff"`
			Changes []any  `json:"changes"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got.Commit.ID != id || got.Commit.User != "jwt:ada" || got.Commit.Comment != "loopback and password" {
			t.Errorf("commit entry %+v, want %s by jwt:ada", got.Commit, id)
		}
		if !strings.Contains(got.Diff, "+") || !strings.Contains(got.Diff, "uplink to the core") || len(got.Changes) == 0 {
			t.Errorf("diff does not show the change:\n%s", got.Diff)
		}
		if !strings.Contains(got.Diff, "password") {
			t.Errorf("diff does not show the password's change:\n%s", got.Diff)
		}
		if strings.Contains(text, planted) {
			t.Errorf("an operator without the secrets scope reads the password the commit wrote:\n%s", text)
		}
	}
	for _, bad := range []string{"1999-01-01-00-00-00", ""} {
		if _, err := readResource(operator, server.URICommitPrefix+bad, false); err == nil || !strings.Contains(errText(err), "commit id") {
			t.Errorf("commit %q: %v, want an unknown commit id error", bad, err)
		}
	}
}

// readText reads a resource's text.
func readText(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0].Text
}
