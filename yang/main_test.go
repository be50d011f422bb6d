package yang

import (
	"os"
	"testing"
)

// TestMain fixes the redaction key so golden files are stable.
func TestMain(m *testing.M) {
	redactKey = func() []byte { return []byte("netmcp-yang-tests") }
	os.Exit(m.Run())
}
