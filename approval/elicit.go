package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Elicitor asks the human operator through MCP elicitation
// (elicitation/create). The MCP server adapts its session to it.
type Elicitor interface {
	// Elicit shows message and a form described by schema (a JSON Schema
	// object), and returns the action ("accept", "decline" or "cancel")
	// and, on accept, the form's content.
	Elicit(ctx context.Context, message string, schema map[string]any) (action string, content map[string]any, err error)
}

// elicitSchema is the form: one boolean the operator must set.
var elicitSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{
			"type":        "boolean",
			"title":       "Apply this change",
			"description": "Set to true to let the device apply the change shown above.",
		},
	},
	"required": []any{"approve"},
}

// ElicitMessage is the text the operator reads: the tool, its arguments
// (Shown when set), the summary (diff) and the rollback window.
func ElicitMessage(req Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Approve %s", req.Tool)
	if req.User != "" {
		fmt.Fprintf(&b, " requested by %s", req.User)
		if req.Role != "" {
			fmt.Fprintf(&b, " (%s)", req.Role)
		}
	}
	b.WriteString("?\n\nArguments:\n")
	shown := req.Shown
	if shown == nil {
		shown = req.Arguments
	}
	b.WriteString(prettyArguments(shown))
	if req.Summary != "" {
		b.WriteString("\n\nEffect:\n")
		b.WriteString(req.Summary)
	}
	if req.RollbackWindow > 0 {
		fmt.Fprintf(&b, "\n\nRollback window: %d s; without a confirm the change is rolled back automatically.", req.RollbackWindow)
	} else if req.Write {
		b.WriteString("\n\nNo automatic rollback: the change stays until rolled back by hand.")
	}
	return b.String()
}

func prettyArguments(args json.RawMessage) string {
	canon, err := canonicalArguments(args)
	if err != nil {
		return string(args)
	}
	var v any
	_ = json.Unmarshal(canon, &v)
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

func elicit(ctx context.Context, e Elicitor, req Request) error {
	action, content, err := e.Elicit(ctx, ElicitMessage(req), elicitSchema)
	if err != nil {
		return denied("the operator could not be asked (elicitation failed: %v); nothing was changed", err)
	}
	switch action {
	case "accept":
		if ok, _ := content["approve"].(bool); ok {
			return nil
		}
		return denied("the operator did not set approve=true; nothing was changed")
	case "decline":
		return denied("the operator declined %s; nothing was changed", req.Tool)
	default:
		return denied("the operator cancelled %s; nothing was changed", req.Tool)
	}
}
