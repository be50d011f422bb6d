package console

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dig walks a decoded YANG JSON tree; a member is found by its name with
// or without its module prefix.
func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		next, ok := m[p]
		if !ok {
			for k, x := range m {
				if _, local, found := strings.Cut(k, ":"); found && local == p {
					next, ok = x, true
					break
				}
			}
		}
		if !ok {
			return nil
		}
		v = next
	}
	return v
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// identity strips the module prefix of an identityref value.
func identity(v any) string {
	s := str(v)
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// leaf is the member key of node's state, else of its config, else of node.
func leaf(v any, key string) any {
	if x := dig(v, "state", key); x != nil {
		return x
	}
	if x := dig(v, "config", key); x != nil {
		return x
	}
	return dig(v, key)
}

// resultData is the "data" member of a network.yang.get result, decoded.
func resultData(res *mcp.CallToolResult) any {
	if res == nil {
		return nil
	}
	var out any
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			_ = json.Unmarshal(b, &out)
		}
	}
	if out == nil {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				_ = json.Unmarshal([]byte(t.Text), &out)
				break
			}
		}
	}
	if d := dig(out, "data"); d != nil {
		return d
	}
	return out
}
