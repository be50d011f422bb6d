package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/audit"
	"github.com/netmcp/netmcp/controller/cluster"
)

// newAuditCmd builds "netmcp audit" and its verify subcommand.
func newAuditCmd() *cobra.Command {
	var stateDir, deviceURL, topology string
	var cl clusterOptions
	auditCmd := &cobra.Command{
		Use:   "audit",
		Short: "Inspect the tamper-evident audit log",
	}
	verifyCmd := &cobra.Command{
		Use:   "verify FILE | --state-dir DIR | --device URL [--topology FILE] | --cluster URL",
		Short: "Check the audit log's hash chain; exit 1 naming the first bad record",
		Long: "Recompute every record's SHA-256 hash and its link to the previous record, across the rotated\n" +
			"segments (FILE.<seq>, oldest first) and the log as one chain, and compare\n" +
			"the end of the chain with the head file. Prints OK and the record count, or the line of the\n" +
			"first record that was edited, deleted, inserted or moved, and exits 1. Name the log by its file,\n" +
			"by the state directory of `netmcp serve --state-dir`, or by the device URL (and topology) given\n" +
			"to `netmcp serve`, whose default state directory holds it. With --cluster, verify the audit chain\n" +
			"the replicas of a controller cluster share (every replica's records, in one JetStream stream).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var path string
			switch given := len(args) + btoi(stateDir != "") + btoi(deviceURL != "") + btoi(cl.url != ""); {
			case given == 0:
				return errors.New("name the audit log: FILE, --state-dir DIR, --device URL as given to netmcp serve, or --cluster URL")
			case given > 1:
				return errors.New("give one of FILE, --state-dir, --device and --cluster, not both")
			case cl.url == "" && (cl.creds != "" || cl.tlsCA != ""):
				return withExit(2, errors.New("--cluster-creds and --cluster-tls-ca need --cluster"))
			case cl.url != "":
				return verifyClusterAudit(cmd.Context(), cl, cmd.OutOrStdout())
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
	cl.addFlags(verifyCmd.Flags(), false)
	auditCmd.AddCommand(verifyCmd)
	return auditCmd
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// verifyClusterAudit reads the audit chain of the controller cluster at
// o.url and checks it as `audit verify` checks a file.
func verifyClusterAudit(ctx context.Context, o clusterOptions, stdout io.Writer) error {
	nc, err := o.connect("netmcp audit verify")
	if err != nil {
		return withExit(2, err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	read := make(chan error, 1)
	go func() {
		_, err := cluster.ReadAudit(ctx, nc, "", pw)
		pw.CloseWithError(err)
		read <- err
	}()
	rep, err := audit.VerifyReader(pr)
	_ = pr.CloseWithError(errors.New("verification ended"))
	rerr := <-read
	var te *audit.TamperError
	switch {
	case errors.As(err, &te):
		fmt.Fprintf(stdout, "FAIL cluster %s: record %d: %s (%d good records before it)\n", o.url, te.Line, te.Reason, rep.Records)
		return withExit(1, fmt.Errorf("the audit chain of the cluster at %s is not intact", o.url))
	case rerr != nil:
		return rerr
	case err != nil:
		return err
	}
	fmt.Fprintf(stdout, "OK cluster %s: %d records, last hash %s\n", o.url, rep.Records, rep.LastHash)
	return nil
}
