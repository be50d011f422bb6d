// Package conformance checks netmcp against the official MCP conformance
// suite (@modelcontextprotocol/conformance) and MCP Inspector.
//
// NewServer builds the fixture server the suite's server scenarios expect
// (tools such as test_simple_text, resources under test://, prompts such as
// test_simple_prompt, completion, logging, progress, sampling, elicitation
// and resource subscriptions), with netmcp's own MCP-NET capability
// middleware; the test program internal/cmd/conformance-server serves it
// through netmcp's own Streamable HTTP transport, exactly as `netmcp
// serve` serves a device.
//
// The tests (go test ./conformance) run every active server scenario of the
// suite against that program, the scenarios that need no fixtures against
// `netmcp serve --device sim://r1`, and MCP Inspector's CLI against netmcp
// over stdio and HTTP. They need Node 22 and the pinned npm packages that
// scripts/install-deps.sh puts in .tools/; without them the tests skip,
// except under CI=true, where they fail.
package conformance
