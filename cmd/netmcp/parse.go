package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/netmcp/netmcp/diag"
	"github.com/spf13/cobra"
)

// maxParseInput bounds what "netmcp parse" reads (16 MiB).
const maxParseInput = 16 << 20

// newParseCmd builds "netmcp parse".
func newParseCmd() *cobra.Command {
	var pretty bool
	cmd := &cobra.Command{
		Use:   "parse ping|traceroute|tracepath|dig [FILE]",
		Short: "Parse diagnostic tool output (FILE or stdin) into JSON (jc's schema, enriched)",
		Args:  cobra.RangeArgs(1, 2),
		// Reads a file and prints: nothing to clean up on SIGINT.
		Annotations: map[string]string{plainSignals: "yes"},
		RunE: func(cmd *cobra.Command, args []string) error {
			var in io.Reader = cmd.InOrStdin()
			if len(args) == 2 && args[1] != "-" {
				f, err := os.Open(args[1])
				if err != nil {
					return withExit(2, err)
				}
				defer f.Close()
				in = f
			}
			data, err := io.ReadAll(io.LimitReader(in, maxParseInput+1))
			if err != nil {
				return withExit(2, err)
			}
			if len(data) > maxParseInput {
				return withExit(2, fmt.Errorf("input larger than %d bytes", maxParseInput))
			}
			res, err := diag.Parse(args[0], string(data))
			if err != nil {
				return withExit(1, err)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			if pretty {
				enc.SetIndent("", "  ")
			}
			return enc.Encode(res)
		},
	}
	cmd.Flags().BoolVar(&pretty, "pretty", false, "indent the JSON")
	return cmd
}
