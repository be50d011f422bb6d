// Package device defines the Driver interface that every backend
// (simulated, Linux/FRR, NETCONF, SSH CLI) implements, the types they share,
// and a registry that opens a driver from a device URL such as sim://r1.
//
// The core interface is small: identity, datastore reads and operational CLI.
// Further abilities are optional interfaces (Configurer, FileStore, Telemetry,
// Diagnoser), discovered with a type assertion as database/sql does for its
// drivers, so a backend implements what its device can do and the MCP layer
// reports the rest as unavailable. A driver never imports the MCP layer.
//
// A driver that reaches a remote device parses its URL with ParseURL
// (host, port, user, and a query of known parameters whose credentials are
// given by reference: NAME-file or NAME-env, read by Secret.Read), so that
// every scheme refuses the same mistakes with the same words and no error
// shows a password or an SNMP community.
package device
