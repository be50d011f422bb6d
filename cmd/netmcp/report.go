package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/d2d/report"
)

// newReportCmd builds "netmcp report" and its verify subcommand.
func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "report", Short: "Device-to-device roll-up reports"}
	var f operatorFlags
	verify := &cobra.Command{
		Use:   "verify --ca F (FILE | URI --device NAME --agent HOST:PORT --cert F --key F)",
		Short: "Check every signature of a D2D report against the CA",
		Long: "Check a roll-up report: JSON holding nothing its signatures do not cover; every participant's key\n" +
			"binding against its device certificate and the CA, valid now; the creator's signature over the\n" +
			"report and every other participant's countersignature; and every signed result (made for the\n" +
			"creator, no nonce used twice). FILE is a report's JSON; a urn:ietf:params:xml:ns:yang:ietf-mcp/report/ID\n" +
			"URI is read from the agent of --device. Exit status 1 when any check fails.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			caPEM, err := os.ReadFile(f.ca)
			if err != nil {
				return withExit(2, err)
			}
			roots := x509.NewCertPool()
			if !roots.AppendCertsFromPEM(caPEM) {
				return withExit(2, fmt.Errorf("%s: no certificate", f.ca))
			}
			raw, err := loadReport(cmd.Context(), f, args[0])
			if err != nil {
				return withExit(2, err)
			}
			// Parse refuses content the signatures do not cover; the
			// certificates are checked now, not as of the report's own
			// (signer-chosen) creation time.
			rep, checks, err := report.VerifyJSON(raw, report.CAVerifier(roots, time.Now()))
			if err != nil {
				return withExit(1, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report %s by %s at %s: %d signatures verified (", rep.ID, rep.Creator, rep.Created, len(checks))
			for i, sc := range rep.SignersInPath(checks) {
				if i > 0 {
					fmt.Fprint(cmd.OutOrStdout(), ", ")
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s %d", sc.Signer, sc.Checks)
			}
			fmt.Fprintln(cmd.OutOrStdout(), ")")
			if rep.Hypothesis != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "hypothesis: %s\n", rep.Hypothesis.Statement)
			}
			for n, why := range rep.Untrusted {
				fmt.Fprintf(cmd.OutOrStdout(), "untrusted: %s: %s\n", n, why)
			}
			return nil
		},
	}
	bindOperatorFlags(verify, &f)
	_ = verify.MarkFlagRequired("ca")
	cmd.AddCommand(verify)
	return cmd
}

// loadReport reads a report from a file or, for a report URI, from an agent.
func loadReport(ctx context.Context, f operatorFlags, arg string) ([]byte, error) {
	if !strings.HasPrefix(arg, report.URIPrefix) {
		return os.ReadFile(arg)
	}
	if f.device == "" || f.cert == "" || f.key == "" {
		return nil, fmt.Errorf("reading %s needs --device, --cert and --key (and --agent)", arg)
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	cs, err := dialAgent(ctx, f)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: arg})
	if err != nil {
		return nil, err
	}
	if len(rr.Contents) == 0 {
		return nil, fmt.Errorf("%s: empty resource", arg)
	}
	return []byte(rr.Contents[0].Text), nil
}
