package server

// diagTools returns the troubleshooting draft's diagnostics tools (ping,
// traceroute). They need package diag's parsers; see diag.go.
func (s *Server) diagTools() []toolDef { return nil }
