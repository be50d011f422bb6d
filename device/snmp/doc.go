// Package snmp is the driver of a device read through its SNMP agent:
// snmp://[community@]host[:port]?version=2c|3&...
//
// It is read-only. It implements device.Driver and device.Telemetry, not
// device.Configurer (SNMP SET is not used), so the MCP server reports the
// configuration tools as unavailable. Get serves the operational
// datastore only, polling the agent on every call (no cache) with numeric
// OIDs (Debian ships no MIB text, and the driver needs none):
//
//   - IF-MIB ifTable and ifXTable (names, type, admin and oper status,
//     MTU, speed, MAC, 64-bit counters) into openconfig-interfaces (config,
//     state, counters) and ietf-interfaces (statistics; Counter32 leaves
//     as JSON numbers, counter64 and gauge64 as strings, per RFC 7951);
//   - IP-MIB ipAddressTable (or ipAddrTable) into the addresses of
//     subinterface 0 and ietf-ip;
//   - IP-FORWARD-MIB inetCidrRouteTable (or ipCidrRouteTable) into the
//     ietf-routing RIBs ipv4-master and ipv6-master;
//   - sysName, boot time and HOST-RESOURCES-MIB memory and CPUs into
//     openconfig-system; sysName, sysDescr and sysObjectID into Info.
//
// Exec takes read-only commands of its own: "show version", "show
// interfaces", "show ip route", "get OID..." and "walk OID" (numeric).
// Subscribe polls every ?poll= (default 30s) while someone listens and
// sends an interface event when an interface's counters or status change,
// and CPU and memory events where HOST-RESOURCES-MIB has them.
//
// Credentials are given by reference only, never in the URL in clear:
// ?community-file=PATH or ?community-env=NAME for SNMPv2c; for SNMPv3 the
// user name (snmp://USER@host?version=3 or ?user=) and the keys in
// ?auth-file=/?auth-env= and ?priv-file=/?priv-env=, with ?auth=
// (SHA, the default; MD5, SHA224..SHA512) and ?priv= (AES, the default;
// DES, AES192, AES256, AES192C, AES256C); the security level follows from
// the keys given (authPriv with both). A community written inline is
// accepted only if it is the well-known read-only "public" (also the
// default when none is given); any other is refused without being echoed.
// Errors name files and variables, never their contents.
//
// A wrong community (or v3 key the agent cannot decrypt with) is a silent
// timeout in SNMP: the driver says so, -32081 with "no answer in Ns: wrong
// community or v3 credentials, ACL, or agent down". A wrong v3 user or auth
// key that the agent reports gives -32083; a closed port -32082; an
// error-status in a response -32090.
//
// gosnmp's session is not safe for concurrent use: each device has one,
// behind a mutex whose wait honours the caller's context, and a cancelled
// context ends a request waiting for its answer at once.
package snmp
