package pki

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteKeyPair writes certPEM to dir/name.pem (0644) and keyPEM to
// dir/name.key (0600) and returns both paths. name must be a plain file name.
func WriteKeyPair(dir, name string, certPEM, keyPEM []byte) (certPath, keyPath string, err error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", "", fmt.Errorf("pki: %q is not a plain file name", name)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("pki: %w", err)
	}
	certPath = filepath.Join(dir, name+".pem")
	keyPath = filepath.Join(dir, name+".key")
	if err := WriteFile(keyPath, keyPEM, 0o600); err != nil {
		return "", "", err
	}
	if err := WriteFile(certPath, certPEM, 0o644); err != nil {
		return "", "", err
	}
	return certPath, keyPath, nil
}
