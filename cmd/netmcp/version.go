package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// version is the netmcp release, set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// newVersionCmd builds "netmcp version".
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the netmcp version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "netmcp", version)
			return err
		},
	}
}
