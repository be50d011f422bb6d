// Package audit is netmcp's tamper-evident audit trail (troubleshooting
// draft section 7.4): every JSON-RPC request and response is appended to a
// JSON-lines file in the state directory, each record chained to the one
// before it by SHA-256, and may be exported as RFC 5424 syslog over TCP or
// TLS.
//
// A record's hash is SHA-256 over the canonical JSON of the record without
// its "hash" member (members sorted, no insignificant white space), which
// includes "prev", the previous record's hash, and "seq", its position.
// [Verify] recomputes the chain and names the first record that was edited,
// deleted, inserted or moved. A companion file (the log's path plus ".head")
// holds the last sequence number and hash, so that records cut from the end
// are found too.
//
// The chain is not keyed: it proves that a log is internally consistent,
// not who wrote it. Exporting records to a remote syslog server as they are
// written is what anchors them outside the device.
//
// Arguments arrive already redacted (package redact); this package never
// sees secrets it would have to hide.
package audit
