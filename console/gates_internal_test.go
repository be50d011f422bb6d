package console

import (
	"encoding/json"
	"testing"

	gatepkg "github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

// TestParseQuestion: the parts of a device's approval question, as the
// approval gate writes it (gatepkg.ElicitMessage), are read back; a
// question in another form is shown whole, for network.commit.
func TestParseQuestion(t *testing.T) {
	diff := "--- running\n+++ candidate\n@@ -1 +1 @@\n-description a\n+description b"
	for _, c := range []struct {
		name              string
		req               gatepkg.Request
		tool, effect, arg string
		window            int
	}{
		{"confirmed commit", gatepkg.Request{Tool: netproto.ToolCommit, User: "jwt:ctl", Role: "operator", Write: true,
			Arguments: json.RawMessage(`{"confirmed":120}`), Summary: "commit the candidate to running:\n" + diff, RollbackWindow: 120},
			netproto.ToolCommit, "commit the candidate to running:\n" + diff, "{\n  \"confirmed\": 120\n}", 120},
		{"edit, no rollback", gatepkg.Request{Tool: netproto.ToolYangEdit, Write: true, Arguments: json.RawMessage(`{"edit":[]}`),
			Summary: "edit the candidate"}, netproto.ToolYangEdit, "edit the candidate", "{\n  \"edit\": []\n}", 0},
		{"no summary", gatepkg.Request{Tool: "network_rollback", Write: true, Arguments: json.RawMessage(`{}`)},
			netproto.ToolRollback, "", "{}", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := parseQuestion(gatepkg.ElicitMessage(c.req))
			if g.Tool != c.tool || g.Effect != c.effect || g.Window != c.window || g.Arguments != c.arg {
				t.Errorf("got tool %q effect %q window %d arguments %q\nwant %q %q %d %q", g.Tool, g.Effect, g.Window, g.Arguments,
					c.tool, c.effect, c.window, c.arg)
			}
		})
	}
	if g := parseQuestion("May I?"); g.Tool != netproto.ToolCommit || g.Effect != "May I?" {
		t.Errorf("a question in another form: %+v", g)
	}
}
