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

// listedHandle is one entry of network:///handles.
type listedHandle struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Device   string `json:"device"`
	Identity string `json:"identity"`
	Created  string `json:"created"`
	Expires  string `json:"expires"`
	Changes  int    `json:"changes"`
	Upload   *struct {
		Name     string `json:"name"`
		Received int    `json:"received"`
	} `json:"upload"`
}

// readHandles reads network:///handles through a real MCP session and
// returns its entries and the contents' raw text.
func readHandles(t *testing.T, cs *mcp.ClientSession) ([]listedHandle, string) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: server.URIHandles})
	if err != nil {
		t.Fatalf("read %s: %v", server.URIHandles, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents, want 1", server.URIHandles, len(res.Contents))
	}
	var v struct {
		Handles []listedHandle `json:"handles"`
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &v); err != nil || v.Handles == nil {
		t.Fatalf("read %s: %q: %v", server.URIHandles, res.Contents[0].Text, err)
	}
	return v.Handles, res.Contents[0].Text
}

// TestHandlesResource: network:///handles, read through MCP sessions of
// the official Go SDK, lists the caller's own handles (kind, device,
// identity, expiry, changes), a chunked upload as kind "upload", and
// neither another identity's handles nor any token.
func TestHandlesResource(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy, server: func(o *server.Options) {
		o.Approver, o.StateDir = server.AllowAll, t.TempDir()
	}})
	ottoTok, adaTok := env.token("otto", "", time.Hour), env.token("ada", "", time.Hour)
	otto := &rawClient{t: t, url: env.url, token: ottoTok}
	ada := &rawClient{t: t, url: env.url, token: adaTok}
	ottoS, _ := env.session(ottoTok, nil)
	adaS, _ := env.session(adaTok, nil)

	found := false
	res, err := ottoS.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Resources {
		found = found || r.URI == server.URIHandles
	}
	if !found {
		t.Fatalf("resources/list does not list %s", server.URIHandles)
	}
	if hs, _ := readHandles(t, ottoS); len(hs) != 0 {
		t.Fatalf("handles before any write: %+v", hs)
	}

	h1 := otto.call(netproto.ToolYangEdit, loopEdit("one"))["handle"].(string)
	otto.call(netproto.ToolYangEdit, withHandle(loopEdit("two"), h1))
	hUp := ada.call(netproto.ToolFilePush, `{"name":"candidate-config","content":"hostname x\n","offset":0,"more":true}`)["handle"].(string)

	hs, text := readHandles(t, ottoS)
	for _, tok := range []string{h1, hUp} {
		if strings.Contains(text, tok) || strings.Contains(text, tok[3:]) {
			t.Fatalf("network:///handles shows a token: %s", text)
		}
	}
	if len(hs) != 1 || strings.Contains(text, "ada") {
		t.Fatalf("otto sees %s, want only his handle", text)
	}
	mine := hs[0]
	if mine.Kind != server.HandleKindCandidate || mine.Identity != "jwt:otto" || mine.Device != "r1" || !strings.HasPrefix(mine.ID, "h-") || mine.Changes != 2 {
		t.Errorf("otto's handle %+v: want a candidate of 2 changes on r1, named h-...", mine)
	}
	if exp, err := time.Parse(time.RFC3339, mine.Expires); err != nil || !exp.After(time.Now()) {
		t.Errorf("handle %+v: expires %q is not in the future (%v)", mine, mine.Expires, err)
	}

	as, text := readHandles(t, adaS)
	if len(as) != 1 || strings.Contains(text, "otto") || strings.Contains(text, hUp) {
		t.Fatalf("ada sees %s, want her upload's handle only, without its token", text)
	}
	if u := as[0]; u.Kind != server.HandleKindUpload || u.Identity != "jwt:ada" || u.Upload == nil || u.Upload.Name != "candidate-config" || u.Upload.Received != len("hostname x\n") {
		t.Errorf("ada's handle %+v: want an upload of candidate-config, 11 bytes received", u)
	}

	// A committed candidate stays listed (its handle lives on) with no
	// changes.
	otto.call(netproto.ToolCommit, withHandle(`{}`, h1))
	if hs, _ = readHandles(t, ottoS); len(hs) != 1 || hs[0].ID != mine.ID || hs[0].Changes != 0 {
		t.Errorf("after commit: %+v, want otto's handle with 0 changes", hs)
	}
}
