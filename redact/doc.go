// Package redact masks passwords, secrets, keys and SNMP communities
// before data leaves netmcp in a log, an audit record or an MCP trace
// (MCP-NET section 9): in RFC 7951 JSON trees (by leaf name and by schema
// path), in configuration text of the huawei-vrp and cisco-iosxr dialects,
// and in any string, given the secret values already seen.
//
// Every mask is [Mask]. A [Redactor] remembers the secret values it masks
// (those of at least [MinKnownSecretLen] characters), so a secret found in
// a configuration is also masked when it is echoed later in CLI output or
// an error message.
package redact
