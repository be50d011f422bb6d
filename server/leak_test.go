package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/netproto"
	"github.com/netmcp/netmcp/redact"
)

// The tests of this file are regression tests of three leaks:
// a caller who may not read secrets must not get them in pieces, nor learn
// them through an oracle, nor teach the masker. Each runs through real MCP
// sessions over HTTP against r1 of the simulated lab.

// pullStructured calls network.file.pull and decodes its structured result.
func pullStructured(t *testing.T, cs *mcp.ClientSession, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: netproto.ToolFilePull, Arguments: args})
	if err != nil {
		t.Fatalf("pull %v: %v", args, err)
	}
	if res.IsError {
		t.Fatalf("pull %v: tool error %v", args, res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestChunkedPullNeverLeaks pulls the configuration files in small
// windows, as a viewer: joined, the chunks must hold no secret, and the
// size and SHA-256 returned must be those of what the viewer was given
// (those of the unmasked file would be an offline guessing oracle).
func TestChunkedPullNeverLeaks(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	viewer, _ := env.session(env.token("vera", "", time.Hour), nil)
	windows := map[string][]int{"running-config": {4, 9}, "candidate-config": {7}, "startup-config": {5}}
	for name, ws := range windows {
		for _, window := range ws {
			var joined strings.Builder
			var size float64
			var sum string
			for off := 0; ; {
				out := pullStructured(t, viewer, map[string]any{"name": name, "offset": off, "length": window})
				joined.WriteString(out["content"].(string))
				size, sum = out["size"].(float64), out["sha256"].(string)
				next, ok := out["nextOffset"].(float64)
				if !ok {
					break
				}
				off = int(next)
			}
			got := joined.String()
			for _, s := range r1Secrets {
				if strings.Contains(got, s) {
					t.Errorf("%s in windows of %d bytes: secret %q in the joined chunks", name, window, s)
				}
			}
			if !strings.Contains(got, redact.Mask) {
				t.Errorf("%s: nothing masked in the joined chunks", name)
			}
			h := sha256.Sum256([]byte(got))
			if int(size) != len(got) || sum != hex.EncodeToString(h[:]) {
				t.Errorf("%s: size %v and sha256 %s do not describe the %d bytes the viewer got", name, size, sum, len(got))
			}
		}
	}
}

// TestNoFilterOracle checks that "| include RE" runs on what the caller
// may see: a viewer who tries each next character of the SNMP community
// gets the same answer for the right one and a wrong one.
func TestNoFilterOracle(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	viewer, _ := env.session(env.token("vera", "", time.Hour), nil)
	full, err := callTool(viewer, netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration"})
	if err != nil || !strings.Contains(full, "snmp-agent community read") {
		t.Fatalf("display current-configuration: %v %s", err, trunc(full))
	}
	for _, prefix := range []string{"s", "s3", "s3cr3t", "s3cr3t-ro"} {
		right, err1 := callTool(viewer, netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration | include cipher " + prefix})
		wrong, err2 := callTool(viewer, netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration | include cipher " + prefix[:len(prefix)-1] + "#"})
		if err1 != nil || err2 != nil {
			t.Fatalf("include: %v, %v", err1, err2)
		}
		if strings.Contains(right, "community") {
			t.Errorf("| include cipher %s matched the community line: the filter ran on the unmasked text: %s", prefix, trunc(right))
		}
		if right != wrong {
			t.Errorf("a right and a wrong guess answer differently:\n%s\n%s", trunc(right), trunc(wrong))
		}
	}
	// The filter still works on what the viewer may see.
	out, err := callTool(viewer, netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration | include ^sysname"})
	if err != nil || !strings.Contains(out, "sysname") || strings.Contains(out, "interface") {
		t.Errorf("| include ^sysname: %v %s", err, trunc(out))
	}
	// And for a caller who may read secrets, it matches the secret.
	admin, _ := env.session(env.token("ada", "", time.Hour), nil)
	if out, err := callTool(admin, netproto.ToolCLIExec, map[string]any{"cmd": "display current-configuration | include cipher s3cr3t"}); err != nil || !strings.Contains(out, "s3cr3t-ro") {
		t.Errorf("admin's | include cipher s3cr3t: %v %s", err, trunc(out))
	}
}

// TestNoEchoOracle checks that what a caller sent comes back as it was
// sent in errors, whether or not it equals a secret, and that huge inputs
// are refused without being echoed.
func TestNoEchoOracle(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	viewer, _ := env.session(env.token("vera", "", time.Hour), nil)
	for _, guess := range append([]string{"NotASecret1"}, r1Secrets...) {
		calls := []struct {
			tool string
			args map[string]any
		}{
			{netproto.ToolCLIExec, map[string]any{"cmd": "show " + guess}},
			{netproto.ToolYangGet, map[string]any{"path": "/openconfig-interfaces:interfaces/interface[name='" + guess + "']"}},
		}
		for _, c := range calls {
			_, err := callTool(viewer, c.tool, c.args)
			if err == nil {
				t.Fatalf("%s %v: no error", c.tool, c.args)
			}
			if msg := errText(err); !strings.Contains(msg, guess) || strings.Contains(msg, redact.Mask) {
				t.Errorf("%s with %q: the echo depends on the guess: %s", c.tool, guess, msg)
			}
		}
	}
	// A 2 MB path of guesses is refused by its length and not echoed.
	huge := "/" + strings.Repeat(r1Secrets[0]+"/x", 2<<20/12)
	_, err := callTool(viewer, netproto.ToolYangGet, map[string]any{"path": huge})
	if err == nil {
		t.Fatal("a 2 MB path was accepted")
	}
	if msg := errText(err); len(msg) > 4096 || strings.Contains(msg, redact.Mask) {
		t.Errorf("error to a 2 MB path: %d bytes, masked=%v: %.300s", len(msg), strings.Contains(msg, redact.Mask), msg)
	}
	// Selecting list entries by a secret leaf is refused whatever the value.
	for _, v := range []string{r1Secrets[0], "wrong-guess"} {
		_, err := callTool(viewer, netproto.ToolYangGet, map[string]any{"path": "/openconfig-system:system/aaa/authentication/users/user[password='" + v + "']", "datastore": "running"})
		if code := rpcCode(err); code != int64(netproto.CodeAccessDenied) {
			t.Errorf("user[password=%q]: code %d (%v), want access denied whatever the guess", v, code, err)
		}
	}
}

// TestMaskerCannotBeTaught sends refused and accepted requests full of
// would-be secrets: none may become masked for anyone, and a request of
// 16,000 of them must not make the redactor know more.
func TestMaskerCannotBeTaught(t *testing.T) {
	env := newSecEnv(t, envConfig{file: matrixPolicy})
	viewer, _ := env.session(env.token("vera", "", time.Hour), nil)
	operator, _ := env.session(env.token("otto", "", time.Hour), nil)
	before := env.red.Known()
	words := []string{"GigabitEthernet0/0/0", "10.0.12.1", "description", "interface"}
	for _, w := range words {
		callTool(viewer, netproto.ToolCLIConfigure, map[string]any{"commands": []string{"local-user x password irreversible-cipher " + w}})
		callTool(viewer, netproto.ToolYangEdit, map[string]any{"edit": []any{map[string]any{"path": "/openconfig-system:system/aaa/authentication/users/user[username='x']/config/password", "value": w}}})
		callTool(viewer, netproto.ToolCLIExec, map[string]any{"cmd": "show password cipher " + w})
	}
	var many []string
	for i := range 16000 {
		many = append(many, "snmp-agent community read cipher fake"+strings.Repeat("x", i%5)+strconv.Itoa(i))
	}
	callTool(viewer, netproto.ToolCLIConfigure, map[string]any{"commands": many})
	if after := env.red.Known(); after != before {
		t.Errorf("requests taught the redactor %d secrets", after-before)
	}
	out, err := callTool(operator, netproto.ToolCLIExec, map[string]any{"cmd": "display interface brief"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"GigabitEthernet0/0/0", "Interface"} {
		if !strings.Contains(out, w) {
			t.Errorf("%q masked in an operator's output after a viewer's requests: %s", w, trunc(out))
		}
	}
}
