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
// the intent and on what the devices report; the rules that map symptoms
// to causes are listed in docs/controller.md. Every call of one intent
// carries one correlation id (client.WithCorrelationID), so the devices'
// audit logs can be joined on it.
//
// The layers, one file each: intent.go (grammar), tree.go and view.go
// (reading devices' YANG trees into a view of the network), engine.go
// (calls, steps, progress), reach.go (reachability and path MTU),
// routing.go (BGP and OSPF), sweep.go (the whole-network check), acl.go
// (what an ACL drops, from package remedy), remedy.go (consented changes),
// report.go (the report and its text form) and store.go (the reports
// directory). Scoring a report against an injected fault is package
// lab/score.
package controller
