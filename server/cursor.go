package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// cursor is the position in a paginated resource. On the wire it is
// opaque: base64url(JSON) "." base64url(HMAC-SHA256 with the server's
// random key), so a client cannot forge or alter one, and a cursor of
// another server (or an earlier run) is refused.
type cursor struct {
	URI    string `json:"u"`
	Offset int    `json:"o"`
}

// errCursor is the message of every refused cursor.
const errCursor = "cursor was altered or is not from this server"

func (s *Server) encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// decodeCursor verifies and decodes a cursor of uri.
func (s *Server) decodeCursor(uri, tok string) (cursor, error) {
	payload, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return cursor{}, invalidParams(errCursor)
	}
	b, err1 := base64.RawURLEncoding.DecodeString(payload)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return cursor{}, invalidParams(errCursor)
	}
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(b)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return cursor{}, invalidParams(errCursor)
	}
	var c cursor
	if json.Unmarshal(b, &c) != nil || c.Offset < 0 {
		return cursor{}, invalidParams(errCursor)
	}
	if c.URI != uri {
		return cursor{}, invalidParams("cursor belongs to %s, not %s", c.URI, uri)
	}
	return c, nil
}
