// Package llm is the controller's optional model-driven agent (`netmcp
// ask --llm URL --model NAME`): an OpenAI-compatible chat-completions
// model plans a free-form intent over the controller's own MCP tools
// (list_devices, call_device_tool, ask of package controller/serve),
// through an in-memory session, so the model reaches the devices only as
// any MCP host does.
//
// Every call the model asks for is checked before it runs (a known tool,
// a JSON object, a known device and device tool), a write runs only with
// the operator's consent, and the run is bounded in turns, tokens, calls
// per turn and time (Limits); the API key is redacted from everything the
// controller prints or records. Sampler answers the devices' sampling
// requests (sampling/createMessage) through the same endpoint, with
// consent. The deterministic engine (package controller) needs none of it.
//
// The files: agent.go (the run), tools.go (the checks), client.go (the
// endpoint) and sampling.go.
package llm
