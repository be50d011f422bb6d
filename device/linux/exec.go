//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/netmcp/netmcp/diag"
	"github.com/netmcp/netmcp/netproto"
)

// execCommands maps the command names Exec accepts to the argument
// vectors it runs. User text never reaches an argument vector: it only
// selects one of these.
var execCommands = map[string][]string{
	"ip -j addr":     {"ip", "-j", "address", "show"},
	"ip -j route":    {"ip", "-j", "route", "show"},
	"ip -j -6 route": {"ip", "-j", "-6", "route", "show"},
	"ip -j link":     {"ip", "-j", "link", "show"},
	"ip -j neigh":    {"ip", "-j", "neighbour", "show"},
	// The resolvers (in a namespace, ip netns exec shows /etc/netns/NS/resolv.conf).
	"cat /etc/resolv.conf": {"cat", "/etc/resolv.conf"},
}

// ExecTimeout bounds one Exec command; ExecMaxOutput bounds its output.
const (
	ExecTimeout   = 10 * time.Second
	ExecMaxOutput = 4 << 20
)

// ExecCommands lists the commands Exec accepts, sorted.
func ExecCommands() []string {
	out := make([]string, 0, len(execCommands))
	for c := range execCommands {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Exec runs one of the read-only commands of ExecCommands (words separated
// by any white space) in the host or namespace and returns its output
// (iproute2's JSON, or the resolv.conf text). Any other command is refused with -32084.
func (d *Driver) Exec(ctx context.Context, command string) (string, error) {
	argv, ok := execCommands[strings.Join(strings.Fields(command), " ")]
	if out, isFRR, err := d.execFRR(ctx, command); !ok && isFRR {
		return out, err
	}
	if !ok {
		return "", netproto.Errorf(netproto.CodeConfigIncompatible,
			"command %q is not supported by the linux driver (read-only commands: %s)", truncate(command, 80), strings.Join(ExecCommands(), ", "))
	}
	full := append(d.prefix(), argv...)
	ctx, cancel := context.WithTimeout(ctx, ExecTimeout)
	defer cancel()
	cmd := diag.Command(ctx, full)
	stdout, stderr := diag.LimitedBuffer{Max: ExecMaxOutput}, diag.LimitedBuffer{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", netproto.Errorf(netproto.CodeTimeout, "%s did not finish within %s", command, ExecTimeout).Retryable()
	case ctx.Err() != nil:
		return "", ctx.Err()
	case stdout.Over:
		return "", fmt.Errorf("linux: %s: output larger than %d bytes", command, ExecMaxOutput)
	case err != nil:
		return "", fmt.Errorf("linux: %s: %v: %s", strings.Join(full, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
