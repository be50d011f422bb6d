// Package eval scores a diagnoser on a fault suite (package
// lab/gen/suite), case by case, in the measures of the NIKA benchmark
// (package lab/score).
//
// For each case the case's network is built in the simulator with its
// faults, every router and host is served as its own MCP server over
// Streamable HTTP on 127.0.0.1, and the diagnoser is asked what is wrong
// with the network: the controller's engine in this process, or any other
// agent, a command that is given the lab's inventory (the MCP endpoints)
// and prints NIKA's answer (Agent). Every case is bounded in time; a
// diagnoser that fails, crashes or overruns is recorded as the case's
// failure and the run goes on.
//
// The Report holds NIKA's three measures overall, per fault name and by
// network size, false alarms on the healthy cases, the time and the MCP
// tool calls each case took (counted on the devices' servers, so every
// diagnoser is measured alike), the failures, and each case's answer in
// NIKA's submission format (root_causes: [{resource_id, fault_type}]).
package eval
