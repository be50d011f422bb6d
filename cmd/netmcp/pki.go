package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/netmcp/netmcp/pki"
	"github.com/spf13/cobra"
)

// pkiDefaultDir is where `netmcp pki` keeps the lab CA unless --dir is given.
func pkiDefaultDir() string {
	if d := os.Getenv("NETMCP_STATE_DIR"); d != "" {
		return filepath.Join(d, "pki")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".netmcp", "pki")
	}
	return "netmcp-pki"
}

// newPKICmd builds "netmcp pki" and its init and issue subcommands.
func newPKICmd() *cobra.Command {
	var dir string
	pkiCmd := &cobra.Command{
		Use:   "pki",
		Short: "Lab certificate authority: short-lived device and client certificates for TLS and mutual TLS",
	}
	pkiCmd.PersistentFlags().StringVar(&dir, "dir", pkiDefaultDir(), "directory of the CA (ca.pem, ca.key) and issued files")

	var caName string
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "Create a lab CA in --dir (refuses to overwrite an existing one)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ca, err := pki.NewCA(caName)
			if err != nil {
				return err
			}
			if err := ca.Save(dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "CA %q created in %s (valid until %s)\n",
				caName, dir, ca.Cert.NotAfter.UTC().Format(time.RFC3339))
			return nil
		},
	}
	initCmd.Flags().StringVar(&caName, "name", "netmcp lab CA", "common name of the CA")

	var kind string
	var ttl time.Duration
	var out string
	issueCmd := &cobra.Command{
		Use:   "issue NAME",
		Short: "Issue a certificate for a device (--kind server) or a client (--kind client)",
		Long: "Issue a certificate signed by the CA in --dir and write NAME.pem and NAME.key (mode 0600)\n" +
			"to --out (default: --dir). Server certificates name 127.0.0.1, ::1, localhost and NAME;\n" +
			"a client certificate's subject CN is NAME, the identity that policies map to roles.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ca, err := pki.LoadCA(dir)
			if err != nil {
				return err
			}
			certPEM, keyPEM, err := ca.Issue(args[0], pki.Kind(kind), ttl)
			if err != nil {
				return err
			}
			if out == "" {
				out = dir
			}
			certPath, keyPath, err := pki.WriteKeyPair(out, args[0], certPEM, keyPEM)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s certificate for %q: %s (key %s), valid for %s\n",
				kind, args[0], certPath, keyPath, ttl)
			return nil
		},
	}
	issueCmd.Flags().StringVar(&kind, "kind", string(pki.KindServer), "certificate kind: server (a device) or client")
	issueCmd.Flags().DurationVar(&ttl, "ttl", pki.DefaultTTL, "lifetime of the certificate")
	issueCmd.Flags().StringVar(&out, "out", "", "directory for NAME.pem and NAME.key (default: --dir)")

	pkiCmd.AddCommand(initCmd, issueCmd)
	return pkiCmd
}
