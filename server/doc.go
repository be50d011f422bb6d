// Package server turns one device.Driver into one MCP server speaking
// MCP-NET (draft-zw-opsawg-mcp-network-mgmt): the "network" capability,
// the eight network.* tools plus the troubleshooting draft's ping and
// traceroute, the network:/// resources with pagination and
// subscriptions, the network.* prompts, resources/write and close, and the
// draft's error codes.
//
// It never names a particular driver: optional abilities (configuration,
// files, telemetry, diagnostics) are discovered with type assertions, and
// tools a driver cannot serve are listed with _meta {"available": false}.
//
// Every state-changing call passes through one Approver (approver.go).
// Where MCP and the draft disagree on the wire, MCP wins;
// docs/mcp-mapping.md lists every such mapping.
package server
