package diag

import "slices"

// InputSchema returns the JSON Schema of a tool's MCP input (the Request
// fields that tool accepts), or nil for an unknown tool.
func InputSchema(tool string) map[string]any {
	if !slices.Contains(RunTools, tool) {
		return nil
	}
	integer := func(desc string, min, max int) map[string]any {
		return map[string]any{"type": "integer", "minimum": min, "maximum": max, "description": desc}
	}
	props := map[string]any{
		"destination": map[string]any{
			"type": "string", "minLength": 1, "maxLength": maxNameLen,
			"pattern":     `^[A-Za-z0-9:._%-]+$`,
			"description": "IP address or RFC 1123 host name (ASCII letters, digits, '-', '.')",
		},
		"ipv4":    map[string]any{"type": "boolean", "description": "force IPv4"},
		"ipv6":    map[string]any{"type": "boolean", "description": "force IPv6"},
		"source":  map[string]any{"type": "string", "description": "source IP address"},
		"vrf":     map[string]any{"type": "string", "pattern": `^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,31}$`, "description": "VRF (devices only)"},
		"timeout": integer("seconds to wait for each reply (default 2)", 1, MaxTimeout),
	}
	switch tool {
	case "ping":
		props["count"] = integer("number of probes (default 4)", 1, MaxCount)
		props["intervalMs"] = integer("milliseconds between probes (default 1000)", MinIntervalMs, MaxIntervalMs)
		props["packetSize"] = integer("payload bytes", 0, MaxPacketSize)
		props["dontFragment"] = map[string]any{"type": "boolean", "description": "set DF (path MTU test)"}
		props["ttl"] = integer("time to live of the echo requests (default 64)", 1, MaxTTL)
	case "traceroute", "tracepath", "mtr":
		props["maxHops"] = integer("hop limit (default 30)", 1, MaxHops)
		props["packetSize"] = integer("packet bytes", 0, MaxPacketSize)
		props["resolve"] = map[string]any{"type": "boolean", "description": "print host names (default numeric)"}
		if tool == "traceroute" {
			props["dontFragment"] = map[string]any{"type": "boolean", "description": "set DF"}
		}
		if tool == "mtr" {
			props["count"] = integer("cycles (default 4)", 1, MaxCount)
		}
	case "dig":
		props["queryType"] = map[string]any{"type": "string", "enum": QueryTypes, "description": "record type (default A; an address destination gives a reverse lookup)"}
		props["server"] = map[string]any{"type": "string", "description": "DNS server IP address"}
	}
	return map[string]any{
		"type": "object", "properties": props, "required": []string{"destination"},
		"additionalProperties": false,
	}
}

// OutputSchema returns the JSON Schema of a tool's parsed result (jc's
// schema and the extras), or nil for an unknown tool.
func OutputSchema(tool string) map[string]any {
	str := map[string]any{"type": []string{"string", "null"}}
	num := map[string]any{"type": []string{"number", "null"}}
	integer := map[string]any{"type": []string{"integer", "null"}}
	boolean := map[string]any{"type": "boolean"}
	strs := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	obj := func(props map[string]any, req ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": req}
	}
	arr := func(items any) map[string]any { return map[string]any{"type": "array", "items": items} }
	switch tool {
	case "ping":
		resp := obj(map[string]any{"type": map[string]any{"type": "string"}, "timestamp": num, "bytes": integer,
			"response_ip": str, "icmp_seq": integer, "ttl": integer, "time_ms": num, "duplicate": boolean,
			"unparsed_line": str}, "type")
		icmp := obj(map[string]any{"type": map[string]any{"type": "string"}, "timestamp": num, "response_ip": str,
			"icmp_seq": integer, "mtu": integer, "message": map[string]any{"type": "string"}}, "type")
		return obj(map[string]any{"source_ip": str, "destination_ip": str, "data_bytes": integer, "pattern": str,
			"destination": str, "packets_transmitted": integer, "packets_received": integer,
			"packet_loss_percent": num, "duplicates": integer, "errors": integer, "corrupted": integer,
			"time_ms": num, "round_trip_ms_min": num, "round_trip_ms_avg": num, "round_trip_ms_max": num,
			"round_trip_ms_stddev": num, "responses": arr(resp), "format": map[string]any{"type": "string"},
			"icmp_errors": arr(icmp), "unrecognized_lines": strs}, "destination_ip", "responses")
	case "traceroute":
		probe := obj(map[string]any{"annotation": str, "asn": integer, "ip": str, "name": str, "rtt": num})
		hop := obj(map[string]any{"hop": integer, "probes": arr(probe), "timeouts": map[string]any{"type": "integer"}}, "hop", "probes")
		return obj(map[string]any{"destination_ip": str, "destination_name": str, "hops": arr(hop),
			"source_ip": str, "max_hops": integer, "packet_bytes": integer, "warnings": strs,
			"unrecognized_lines": strs}, "hops")
	case "tracepath":
		hop := obj(map[string]any{"ttl": integer, "guess": boolean, "host": str, "reply_ms": num, "pmtu": integer,
			"asymmetric_difference": integer, "reached": boolean, "address": str, "note": str}, "ttl")
		return obj(map[string]any{"pmtu": integer, "forward_hops": integer, "return_hops": integer,
			"hops": arr(hop), "unrecognized_lines": strs}, "hops")
	case "dig":
		rr := obj(map[string]any{"name": map[string]any{"type": "string"}, "class": map[string]any{"type": "string"},
			"type": map[string]any{"type": "string"}, "ttl": integer, "data": map[string]any{"type": "string"}})
		q := obj(map[string]any{"id": integer, "opcode": str, "status": str, "flags": strs,
			"query_num": integer, "answer_num": integer, "authority_num": integer, "additional_num": integer,
			"opt_pseudosection": map[string]any{"type": "object"}, "question": map[string]any{"type": "object"},
			"answer": arr(rr), "authority": arr(rr), "additional": arr(rr), "axfr": arr(rr),
			"query_time": integer, "server": str, "when": str, "when_epoch": integer, "when_epoch_utc": integer,
			"rcvd": integer, "errors": strs, "no_servers_reached": boolean})
		return arr(q)
	case "mtr":
		return map[string]any{"type": "object", "description": "mtr --json report", "properties": map[string]any{"report": map[string]any{"type": "object"}}}
	}
	return nil
}
