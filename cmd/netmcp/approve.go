package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/netmcp/netmcp/approval"
)

// approveFlags are the flags of `netmcp approve`.
type approveFlags struct {
	key, keyID, tool, args, user, role, device string
	window                                     int
	ttl                                        time.Duration
	jwt                                        bool
}

// newApproveCmd builds "netmcp approve" and its keygen subcommand.
func newApproveCmd() *cobra.Command {
	var f approveFlags
	cmd := &cobra.Command{
		Use:   "approve --key KEYFILE --device NAME --tool TOOL --args JSON",
		Short: "Sign a consent for one state-changing call (troubleshooting draft 7.1)",
		Long: "Print a signed consent object for TOOL called with exactly ARGS, to be sent as the \"consent\"\n" +
			"argument of that call. The server accepts it when the signing key is among the trustedKeys of its\n" +
			"policy (netmcp serve --policy), the consent names this device (--device: its name, as in the\n" +
			"capability object), it has not expired (--ttl, at most 5 min), its nonce was never used on that\n" +
			"server (even before a restart) and its impact window (--window, seconds) covers the call's rollback\n" +
			"window. --jwt prints an EdDSA JWT instead.\n" +
			"Make a key pair with `netmcp approve keygen --out FILE`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runApprove(f, cmd.OutOrStdout()) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.key, "key", "", "approver's Ed25519 private key (PEM from `netmcp approve keygen`) (required)")
	fl.StringVar(&f.keyID, "key-id", "", "name of the key in the server's trustedKeys (default: --user)")
	fl.StringVar(&f.tool, "tool", "", "tool name, e.g. network.commit (required)")
	fl.StringVar(&f.args, "args", "{}", "the call's arguments as a JSON object, exactly as the client will send them")
	fl.IntVar(&f.window, "window", 0, "impact window in seconds: the longest rollback window the consent allows")
	fl.StringVar(&f.user, "user", "", "approver's identity (required)")
	fl.StringVar(&f.role, "role", "", "approver's role")
	fl.StringVar(&f.device, "device", "", "the one device the consent is for: its name (or the identity of its certificate) (required)")
	fl.DurationVar(&f.ttl, "ttl", 5*time.Minute, "how long the consent stays valid (servers accept at most 5 min from signing)")
	fl.BoolVar(&f.jwt, "jwt", false, "print a signed JWT instead of a signed JSON object")
	for _, n := range []string{"key", "tool", "user", "device"} {
		_ = cmd.MarkFlagRequired(n)
	}

	var out string
	keygen := &cobra.Command{
		Use:   "keygen --out FILE",
		Short: "Make an Ed25519 approver key pair: FILE (private, PEM, mode 0600) and FILE.pub (base64 public key)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runKeygen(out, cmd.OutOrStdout()) },
	}
	keygen.Flags().StringVar(&out, "out", "", "private key file to create; the public key goes to FILE.pub (required)")
	_ = keygen.MarkFlagRequired("out")
	cmd.AddCommand(keygen)
	return cmd
}

func runApprove(f approveFlags, w io.Writer) error {
	key, err := readPrivateKey(f.key)
	if err != nil {
		return withExit(2, err)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(f.args), &args); err != nil {
		return withExit(2, fmt.Errorf("--args must be a JSON object: %w", err))
	}
	if f.window < 0 {
		return withExit(2, errors.New("--window must not be negative"))
	}
	if f.ttl <= 0 {
		return withExit(2, errors.New("--ttl must be positive"))
	}
	if f.device == "" {
		return withExit(2, errors.New("--device must name the device the consent is for"))
	}
	keyID := f.keyID
	if keyID == "" {
		keyID = f.user
	}
	if !keyIDValid(keyID) {
		return withExit(2, fmt.Errorf("key id %q must be one word (set --key-id)", keyID))
	}
	now := time.Now().UTC().Truncate(time.Second)
	c := approval.Consent{Tool: f.tool, Parameters: json.RawMessage(f.args), ImpactWindow: f.window,
		User: f.user, Role: f.role, Timestamp: now, Nonce: rand.Text(), Device: f.device, Expires: now.Add(f.ttl)}
	if f.jwt {
		s, err := c.SignJWT(keyID, key)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, s)
		return err
	}
	b, err := c.Sign(keyID, key)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// pemPrivateKey is the PEM block type of an approver key (PKCS #8).
const pemPrivateKey = "PRIVATE KEY"

func runKeygen(out string, w io.Writer) error {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return withExit(2, err)
	}
	if err := pem.Encode(f, &pem.Block{Type: pemPrivateKey, Bytes: der}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	pubText := base64.StdEncoding.EncodeToString(pub)
	if err := os.WriteFile(out+".pub", []byte(pubText+"\n"), 0o644); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "private key: %s (keep it secret)\npublic key:  %s.pub\n\nadd to the server's policy file:\ntrustedKeys:\n  <key-id>: %s\n", out, out, pubText)
	return err
}

// readPrivateKey reads a PKCS #8 PEM Ed25519 private key.
func readPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != pemPrivateKey {
		return nil, fmt.Errorf("%s: not a PEM %q block (make one with `netmcp approve keygen`)", path, pemPrivateKey)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, not an Ed25519 key", path, k)
	}
	return priv, nil
}

// keyIDValid reports whether s can name a key in a policy file.
func keyIDValid(s string) bool { return s != "" && !strings.ContainsAny(s, " \t\n:") }
