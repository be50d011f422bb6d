// Package diag turns the text output of network diagnostic tools (ping,
// traceroute, tracepath, dig) into structured results, and runs those tools
// safely.
//
// The parsers are native Go. Their JSON is the schema of the jc project
// (https://github.com/kellyjonbrazil/jc) for the same command, enriched
// never poorer: every key jc emits is present with the same value, and
// information jc drops (ICMP error replies on Linux, unrecognised lines,
// source addresses, dig connection errors) is kept in extra fields.
//
// The runner (Run) executes the real binaries from a validated Request with
// an argument vector, never a shell, under a time limit, an output limit and
// concurrency limits.
package diag
