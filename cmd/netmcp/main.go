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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := rootCmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "netmcp:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
