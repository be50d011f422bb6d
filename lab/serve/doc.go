// Package serve runs a lab: every device of a topology, simulated
// (lab/sim) or real (lab/real, FRR in network namespaces), served as its
// own MCP server over Streamable HTTP on 127.0.0.1, as `netmcp lab up`
// does. A lab with a state directory also writes the inventory of its
// devices there (inventory.yaml) and serves a control endpoint on
// loopback, its address and bearer token in control.json, through which
// `netmcp lab fault` injects and clears faults (Dial).
//
// Up starts a lab and returns at once; Lab.Wait serves it until the
// context ends; Lab.Close stops it. The package also holds what runs on a
// lab in-process: the walk-through of MCP-NET section 8 (Demo), the twin
// check of the simulated lab against the real one (Compare), and the
// unserved routers that `netmcp lab agents` puts agents on (OpenRouters).
// The real lab and the twin check are built on Linux only; elsewhere they
// refuse with ErrNoRealLab.
//
// Importing the package registers the sim:// device driver (lab/sim), so
// that `netmcp serve --device sim://r1` serves a router of the simulated
// lab.
package serve
