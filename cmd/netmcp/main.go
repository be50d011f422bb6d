// Command netmcp makes network equipment speak the Model Context Protocol.
//
// Each subcommand lives in its own file and registers itself with the root
// command in an init function; flags are bound in that same file.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
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

var rootCmd = &cobra.Command{
	Use:           "netmcp",
	Short:         "Network equipment over the Model Context Protocol (MCP-NET), safely",
	SilenceUsage:  true,
	SilenceErrors: true,
}

// plainSignals marks a command, in its Annotations, that keeps the default
// handling of SIGINT and SIGTERM (the process ends at once). Such a command
// holds no state that needs cleaning up, and starts faster without the
// signal-handling thread: "netmcp parse" is run once per file by scripts.
const plainSignals = "netmcp/plain-signals"

func main() {
	ctx := context.Background()
	if cmd, _, err := rootCmd.Find(os.Args[1:]); err != nil || cmd.Annotations[plainSignals] == "" {
		// Every other command gets a context cancelled by SIGINT or
		// SIGTERM, so that it stops its children and flushes its logs.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if err := rootCmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "netmcp:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
