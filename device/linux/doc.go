// Package linux is the device driver of a Linux host ("linux://") or of a
// network namespace on it ("linux://NETNS"), registered under the scheme
// "linux".
//
// It runs the real diagnostic binaries (ping, traceroute, tracepath, dig)
// through diag.Run, with an argument vector and never a shell (inside a
// namespace, prefixed with "ip netns exec NETNS"), and a few read-only
// iproute2 commands chosen from fixed names (ExecCommands). It serves no
// YANG data yet: Get reports Network.ConfigIncompatible (-32084).
package linux
