// Package gnmi is the gnmi:// driver: a device reached over gNMI
// (github.com/openconfig/gnmi), as Arista EOS, Nokia SR Linux, Cisco IOS
// XR and NX-OS, Juniper and SONiC serve it, or as netmcp's own gNMI server
// (package gnmiserver) serves any driver.
//
//	gnmi://admin@192.0.2.1:9339?ca-file=/etc/netmcp/ca.pem&password-file=/etc/netmcp/r1.pw
//	gnmi://192.0.2.1?ca-file=ca.pem&cert-file=netmcp.pem&key-file=netmcp.key
//
// TLS is always on unless the URL says ?insecure=1 (plaintext, logged as a
// warning); the server is checked against ?ca-file= or the system's roots,
// ?cert-file= and ?key-file= present a client certificate (mutual TLS). A
// user and a password given by reference (?password-file=, ?password-env=)
// go as the "username" and "password" metadata of every RPC.
//
// Reads: Capabilities fills Info (YANG modules; gNMI version and encodings
// in Platform). Get reads the target with JSON_IETF (JSON where the target
// lacks it): running is a Get of type CONFIG, operational of type ALL,
// candidate netmcp's own. Paths are the YANG paths of the other drivers;
// an OpenConfig module goes as origin "openconfig" with bare names, any
// other as the origin of its name.
//
// Writes go through netmcp's candidate (device/configstore: one locked
// candidate, diff, history, rollback); a new candidate starts from the
// target's configuration, and a configuration changed on the target
// outside netmcp is first recorded as a commit of its own. Commit sends
// one Set: deletes, replaces and updates that turn the target's
// configuration into the candidate; the target applies it whole or not at
// all, and its refusal comes back as -32084 with its words. A confirmed
// commit uses the target's Commit extension (gnmi_ext.proto) when it has
// one (probed when the driver opens, or ?commit-confirmed=extension):
// commit with a rollback duration, confirm, cancel, set_rollback_duration,
// one at a time as the extension says. Otherwise netmcp keeps the
// configuration from before and sets it back when the timer fires, as the
// ssh:// driver does for devices without a commit of their own.
//
// Streams: Watch subscribes (ON_CHANGE, SAMPLE, ONCE) and, asked to,
// reconnects to a target that dropped the stream, delivering only what
// changed meanwhile. The driver's device.Telemetry events come from such
// an ON_CHANGE subscription to the interfaces' status and the BGP
// sessions' state.
package gnmi
