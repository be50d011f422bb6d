package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/netmcp/netmcp/audit"
	"github.com/spf13/cobra"
)

// auditDefaultStateDir is the state directory when neither --state-dir nor
// a FILE is given.
func auditDefaultStateDir() string {
	if d := os.Getenv("NETMCP_STATE_DIR"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".netmcp")
	}
	return "."
}

func init() {
	var stateDir string
	auditCmd := &cobra.Command{
		Use:   "audit",
		Short: "Inspect the tamper-evident audit log",
	}
	verifyCmd := &cobra.Command{
		Use:   "verify [FILE]",
		Short: "Check the audit log's hash chain; exit 1 naming the first bad record",
		Long: "Recompute every record's SHA-256 hash and its link to the previous record, and compare\n" +
			"the end of the chain with the head file. Prints OK and the record count, or the line of the\n" +
			"first record that was edited, deleted, inserted or moved, and exits 1.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := audit.PathIn(stateDir)
			if len(args) == 1 {
				if cmd.Flags().Changed("state-dir") {
					return errors.New("give either --state-dir or FILE, not both")
				}
				path = args[0]
			}
			rep, err := audit.Verify(path)
			var te *audit.TamperError
			if errors.As(err, &te) {
				fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: line %d: %s (%d good records before it)\n", path, te.Line, te.Reason, rep.Records)
				return withExit(1, fmt.Errorf("audit log %s is not intact", path))
			}
			if err != nil {
				return err
			}
			head := "no head file"
			if rep.HeadChecked {
				head = "head file matches"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "OK %s: %d records, last hash %s (%s)\n", path, rep.Records, rep.LastHash, head)
			return nil
		},
	}
	verifyCmd.Flags().StringVar(&stateDir, "state-dir", auditDefaultStateDir(), "state directory holding "+audit.FileName)
	auditCmd.AddCommand(verifyCmd)
	rootCmd.AddCommand(auditCmd)
}
