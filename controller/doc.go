// Package controller is netmcp's intent engine: it turns an operator's
// intent ("verify reachability between r1 and h3", "why is BGP neighbor
// 10.0.12.2 down on r1", "what is wrong with the network?") into MCP calls
// across a fleet of devices (package client), correlates what the devices
// answer, names the root causes with their evidence in the terms of the
// NIKA benchmark of network incidents (arXiv 2512.16381: is_anomaly,
// faulty_devices, root_cause_name), and proposes a remediation that is
// applied only with the operator's consent, as a confirmed commit that is
// confirmed only when the intent verifies afterwards.
//
// The engine is deterministic: an intent is matched by a small grammar
// (ParseIntent) or given as structured YAML/JSON; the plan depends only on
// the intent and on what the devices report. The sweep's diagnosis rules
// are one table (sweepRules in rules.go), each rule a name, the step of
// the plan it opens, when it applies and its check, run in order; the
// symptoms they map to causes are listed in docs/controller.md. Every call
// of one intent carries one correlation id (client.WithCorrelationID), so
// the devices' audit logs can be joined on it.
//
// The layers, one file each: intent.go (grammar), tree.go and view.go
// (reading devices' YANG trees into a view of the network), engine.go
// (calls, steps, progress), rules.go (the sweep's rules), reach.go
// (reachability and path MTU), routing.go (BGP and OSPF), sweep.go (the
// link and host checks of the sweep), pingmesh.go (the reachability
// and latency matrix, the sweep's first look), acl.go (what an ACL drops, from
// package remedy), remedy.go (consented changes), report.go (the report
// and its text form) and store.go (the reports directory).
//
// The engine's MCP facade (`netmcp controller serve`) is package
// controller/serve, the optional model-driven agent package controller/llm,
// and scoring a report against an injected fault package lab/score.
package controller
