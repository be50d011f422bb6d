package diag

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRejectGarbage checks that every parser refuses text that is not its
// tool's output with a *ParseError naming the tool, and never panics.
func TestRejectGarbage(t *testing.T) {
	inputs := map[string]string{
		"empty":     "",
		"blank":     "\n\n  \n",
		"prose":     "hello world\nthis is not a diagnostic\n",
		"json":      `{"destination_ip": "1.2.3.4"}`,
		"binaryish": "\x00\x01\x02PINGx\xff\n",
	}
	if b, err := os.ReadFile(filepath.Join(corpusDir, "nmcli", "centos-7.7", "nmcli.out")); err == nil {
		inputs["nmcli"] = string(b)
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("nmcli fixture missing: %v", err)
	}
	for _, tool := range Tools {
		for name, in := range inputs {
			t.Run(tool+"/"+name, func(t *testing.T) {
				res, err := Parse(tool, in)
				if err == nil {
					t.Fatalf("accepted garbage: %#v", res)
				}
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Tool != tool {
					t.Fatalf("error %v is not a ParseError for %s", err, tool)
				}
				if !strings.HasPrefix(err.Error(), "diag: "+tool+": ") {
					t.Errorf("error %q lacks the diag: %s: prefix", err, tool)
				}
			})
		}
	}
	if _, err := Parse("rm", "x"); err == nil {
		t.Error("unknown tool accepted")
	}
}

// TestPingNoHeaderMessage pins the exact message for ping without header.
func TestPingNoHeaderMessage(t *testing.T) {
	_, err := ParsePing("64 bytes from 1.2.3.4: icmp_seq=1 ttl=64 time=1 ms\n")
	if err == nil || err.Error() != `diag: ping: no "PING" header line` {
		t.Fatalf("got %v", err)
	}
}
