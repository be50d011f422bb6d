package serve

import (
	"log/slog"

	"github.com/netmcp/netmcp/lab/topology"
)

// CompareOptions configure Compare.
type CompareOptions struct {
	// Topology is built twice: simulated and real.
	Topology topology.Topology
	// Faults are applied to both labs, each alone, compared and cleared
	// (words of topology.ParseFault).
	Faults []string
	// NetnsPrefix prefixes the real lab's namespace names.
	NetnsPrefix string
	// All prints every fact, not only the differing ones.
	All bool
	// Logger receives the real lab's progress (nil: none).
	Logger *slog.Logger
}
