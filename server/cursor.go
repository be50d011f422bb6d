package server

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

func (s *Server) encodeCursor(c cursor) string { return signJSON(s.cursorKey, c) }

// decodeCursor verifies and decodes a cursor of uri.
func (s *Server) decodeCursor(uri, tok string) (cursor, error) {
	var c cursor
	if !openJSON(s.cursorKey, tok, &c) || c.Offset < 0 {
		return cursor{}, invalidParams(errCursor)
	}
	if c.URI != uri {
		return cursor{}, invalidParams("cursor belongs to %s, not %s", c.URI, uri)
	}
	return c, nil
}
