package main

import (
	"errors"
	"fmt"

	"github.com/netmcp/netmcp/audit"
	"github.com/spf13/cobra"
)

// newAuditCmd builds "netmcp audit" and its verify subcommand.
func newAuditCmd() *cobra.Command {
	var stateDir, deviceURL, topology string
	auditCmd := &cobra.Command{
		Use:   "audit",
		Short: "Inspect the tamper-evident audit log",
	}
	verifyCmd := &cobra.Command{
		Use:   "verify FILE | --state-dir DIR | --device URL [--topology FILE]",
		Short: "Check the audit log's hash chain; exit 1 naming the first bad record",
		Long: "Recompute every record's SHA-256 hash and its link to the previous record, across the rotated\n" +
			"segments (FILE.<seq>, oldest first) and the log as one chain, and compare\n" +
			"the end of the chain with the head file. Prints OK and the record count, or the line of the\n" +
			"first record that was edited, deleted, inserted or moved, and exits 1. Name the log by its file,\n" +
			"by the state directory of `netmcp serve --state-dir`, or by the device URL (and topology) given\n" +
			"to `netmcp serve`, whose default state directory holds it.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var path string
			switch given := len(args) + btoi(stateDir != "") + btoi(deviceURL != ""); {
			case given == 0:
				return errors.New("name the audit log: FILE, --state-dir DIR, or --device URL as given to netmcp serve")
			case given > 1:
				return errors.New("give one of FILE, --state-dir and --device, not both")
			case len(args) == 1:
				path = args[0]
			case stateDir != "":
				path = audit.PathIn(stateDir)
			default:
				dir, err := defaultStateDir(deviceURL, topology)
				if err != nil {
					return err
				}
				path = audit.PathIn(dir)
			}
			rep, err := audit.Verify(path)
			var te *audit.TamperError
			if errors.As(err, &te) {
				file := path
				if te.File != "" {
					file = te.File
				}
				fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s: line %d: %s (%d good records before it)\n", file, te.Line, te.Reason, rep.Records)
				return withExit(1, fmt.Errorf("audit log %s is not intact", path))
			}
			if err != nil {
				return err
			}
			head := "no head file"
			if rep.HeadChecked {
				head = "head file matches"
			}
			if rep.Segments > 0 {
				head += fmt.Sprintf("; %d rotated segments", rep.Segments)
				if rep.FirstSeq > 1 {
					head += fmt.Sprintf(", chain starts at record %d (older segments removed)", rep.FirstSeq)
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "OK %s: %d records, last hash %s (%s)\n", path, rep.Records, rep.LastHash, head)
			return nil
		},
	}
	verifyCmd.Flags().StringVar(&stateDir, "state-dir", "", "state directory holding "+audit.FileName+" (netmcp serve --state-dir)")
	verifyCmd.Flags().StringVar(&deviceURL, "device", "", "device URL given to netmcp serve: verify the log in its default state directory")
	verifyCmd.Flags().StringVar(&topology, "topology", "", "with --device: the --topology given to netmcp serve")
	auditCmd.AddCommand(verifyCmd)
	return auditCmd
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
