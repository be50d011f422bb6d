// Command netmcp makes network equipment speak the Model Context Protocol.
//
// Each subcommand lives in its own file, built by one function listed in
// commands (main.go); its flags are bound in that same function. Commands
// are nouns first (lab, controller, agent, serve, ...); an older spelling
// is kept as a hidden alias (alias).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExit wraps err so that main exits with code.
func withExit(code int, err error) error { return &exitError{code: code, err: err} }

// commands are the top-level commands, each built by a function in its own
// file. A process builds only the one it runs (their flags and
// subcommands are a tenth of a millisecond of start-up, and
// "netmcp parse" runs once per file in scripts); help, completion and
// unknown names get them all.
var commands = []struct {
	name  string
	build func() *cobra.Command
}{
	{"agent", newAgentCmd},
	{"approve", newApproveCmd},
	{"ask", func() *cobra.Command { return alias("ask", "controller ask", newAskCmd()) }},
	{"audit", newAuditCmd},
	{"bench", newBenchCmd},
	{"controller", newControllerCmd},
	{"diag", newDiagCmd},
	{"eval", newEvalCmd},
	{"lab", newLabCmd},
	{"parse", newParseCmd},
	{"pki", newPKICmd},
	{"report", func() *cobra.Command { return alias("report", "agent report", newReportCmd()) }},
	{"serve", newServeCmd},
	{"version", newVersionCmd},
}

// alias returns cmd as name, the hidden older spelling of `netmcp
// canonical`: it runs the same, and help lists only the canonical one.
func alias(name, canonical string, cmd *cobra.Command) *cobra.Command {
	cmd.Use = name + strings.TrimPrefix(cmd.Use, cmd.Name())
	cmd.Hidden = true
	cmd.Short = "Older spelling of `netmcp " + canonical + "`"
	return cmd
}

// newRootCmd returns the root command for the arguments args (without the
// program name), with args set.
func newRootCmd(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "netmcp",
		Short:         "Network equipment over the Model Context Protocol (MCP-NET), safely",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] {
				root.AddCommand(c.build())
				return root
			}
		}
	}
	for _, c := range commands {
		root.AddCommand(c.build())
	}
	return root
}

// plainSignals marks a command, in its Annotations, that keeps the default
// handling of SIGINT and SIGTERM (the process ends at once). Such a command
// holds no state that needs cleaning up, and starts faster without the
// signal-handling thread: "netmcp parse" is run once per file by scripts.
const plainSignals = "netmcp/plain-signals"

func main() {
	root := newRootCmd(os.Args[1:])
	ctx := context.Background()
	if cmd, _, err := root.Find(os.Args[1:]); err != nil || cmd.Annotations[plainSignals] == "" {
		// Every other command gets a context cancelled by SIGINT or
		// SIGTERM, so that it stops its children and flushes its logs.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "netmcp:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
