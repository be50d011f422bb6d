package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Meta keys under which Normalize passes draft-only request members to the
// server in params._meta. They are netproto.ExtensionID + "/cursor" and
// netproto.ExtensionID + "/subscriptionId"; package server reads the same keys.
const (
	MetaCursor         = "ietf.org/mcp-net/cursor"
	MetaSubscriptionID = "ietf.org/mcp-net/subscriptionId"
)

// SubscriptionIDPrefix starts every subscription id the server hands out:
// "sub-" followed by the base64url (unpadded) encoding of the resource URI,
// so that an id maps back to its URI without server state.
const SubscriptionIDPrefix = "sub-"

// SubscriptionID returns the subscription id of a resource URI.
func SubscriptionID(uri string) string {
	return SubscriptionIDPrefix + base64.RawURLEncoding.EncodeToString([]byte(uri))
}

// SubscriptionURI returns the resource URI of a subscription id made by
// SubscriptionID, and false if id is not one.
func SubscriptionURI(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, SubscriptionIDPrefix)
	if !ok {
		return "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

// Normalize rewrites one incoming JSON-RPC message (or batch) from the
// MCP-NET draft's shape into MCP's, and returns msg unchanged when there is
// nothing to rewrite or it is not valid JSON (the SDK then reports the
// parse error itself):
//
//   - resources/read {"uri", "cursor"} -> the cursor moves to
//     params._meta["ietf.org/mcp-net/cursor"] (MCP's ReadResourceParams has
//     no cursor member);
//   - resources/unsubscribe {"subscriptionId"} without "uri" -> "uri" is
//     recovered from the id, which also goes to
//     params._meta["ietf.org/mcp-net/subscriptionId"].
func Normalize(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"resources/read"`)) && !bytes.Contains(msg, []byte(`"resources/unsubscribe"`)) {
		return msg // fast path: nothing to do
	}
	if bytes.HasPrefix(bytes.TrimSpace(msg), []byte("[")) {
		var batch []json.RawMessage
		if json.Unmarshal(msg, &batch) != nil {
			return msg
		}
		changed := false
		for i, m := range batch {
			if n, ok := normalizeOne(m); ok {
				batch[i], changed = n, true
			}
		}
		if !changed {
			return msg
		}
		out, err := json.Marshal(batch)
		if err != nil {
			return msg
		}
		return out
	}
	if n, ok := normalizeOne(msg); ok {
		return n
	}
	return msg
}

func normalizeOne(msg []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, false
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil {
		return nil, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil || params == nil {
		return nil, false
	}
	var meta map[string]any
	if raw, ok := params["_meta"]; ok {
		if json.Unmarshal(raw, &meta) != nil {
			return nil, false
		}
	}
	if meta == nil {
		meta = map[string]any{}
	}
	switch method {
	case "resources/read":
		raw, ok := params["cursor"]
		if !ok {
			return nil, false
		}
		var cursor any
		if json.Unmarshal(raw, &cursor) != nil {
			return nil, false
		}
		meta[MetaCursor] = cursor
		delete(params, "cursor")
	case "resources/unsubscribe":
		raw, ok := params["subscriptionId"]
		if !ok {
			return nil, false
		}
		var id string
		if json.Unmarshal(raw, &id) != nil {
			return nil, false
		}
		if _, has := params["uri"]; !has {
			uri, ok := SubscriptionURI(id)
			if !ok {
				uri = "" // the server answers with a clear invalid-params error
			}
			params["uri"], _ = json.Marshal(uri)
		}
		meta[MetaSubscriptionID] = id
		delete(params, "subscriptionId")
	default:
		return nil, false
	}
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, false
	}
	if m["params"], err = json.Marshal(params); err != nil {
		return nil, false
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	return out, true
}
