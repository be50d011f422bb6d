// Package netproto is the vocabulary of the documents netmcp implements:
// the MCP-NET capability object, tool, prompt and resource names, URI
// templates, MIME types, the JSON-RPC error codes -32081..-32090 and the
// approval-required result of a call refused pending approval.
//
// It has no dependencies beyond the standard library so that every layer,
// drivers included, can speak the same words without importing the MCP layer.
package netproto
