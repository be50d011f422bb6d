//go:build linux

package linux

import (
	"context"
	"strings"

	"github.com/netmcp/netmcp/netproto"
)

// DialectFRR is the CLI dialect of a host or namespace where FRR runs:
// vtysh's "show" commands, besides the fixed iproute2 reads.
const DialectFRR = "frr"

// maxFRRCommand bounds the length of a vtysh command.
const maxFRRCommand = 256

// execFRR runs a vtysh "show" command when FRR runs here; ok is false
// when the command is not one (the caller then refuses it). Only letters,
// digits, spaces and . : / - _ are accepted: no pipes, no redirections,
// no second command, nothing vtysh could hand to a shell.
func (d *Driver) execFRR(ctx context.Context, command string) (out string, ok bool, err error) {
	words := strings.Fields(command)
	if len(words) < 2 || words[0] != "show" || !d.hasFRR() {
		return "", false, nil
	}
	line := strings.Join(words, " ")
	if len(line) > maxFRRCommand {
		return "", true, netproto.Errorf(netproto.CodeConfigIncompatible, "vtysh command longer than %d characters", maxFRRCommand)
	}
	for _, c := range []byte(line) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" .:/-_", c) >= 0) {
			return "", true, netproto.Errorf(netproto.CodeConfigIncompatible,
				"command %q: only letters, digits, spaces and . : / - _ are accepted in a vtysh show command", truncate(command, 80))
		}
	}
	b, err := d.vtysh(ctx, line)
	if err != nil {
		return "", true, err
	}
	s := string(b)
	if strings.HasPrefix(strings.TrimSpace(s), "% Unknown command") || strings.HasPrefix(strings.TrimSpace(s), "% Command incomplete") {
		return "", true, netproto.Errorf(netproto.CodeConfigIncompatible, "vtysh: %s: %s", line, strings.TrimSpace(s))
	}
	return s, true, nil
}

// yangModules are the models the driver's trees use.
var yangModules = []string{"openconfig-interfaces", "openconfig-network-instance", "openconfig-lldp", "ietf-routing", "openconfig-acl"}

// dialect is "frr" where FRR runs, else "linux".
func (d *Driver) dialect() string {
	if d.hasFRR() {
		return DialectFRR
	}
	return Dialect
}
