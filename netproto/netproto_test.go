package netproto

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"testing"
)

func TestCodeNames(t *testing.T) {
	// MCP-NET section 7.1, table 4.
	want := map[int]string{
		-32081: "Network.Timeout", -32082: "Network.Unreachable", -32083: "Network.AccessDenied",
		-32084: "Network.ConfigIncompatible", -32085: "Network.RollbackFailed",
		-32086: "Network.ConfirmedCommitTimeout", -32087: "Network.RollbackNotSupported",
		-32088: "Network.YangSyntaxError", -32089: "Network.HardwareFailure", -32090: "Network.SnmpFailure",
	}
	for code, name := range want {
		if got := CodeName(code); got != name {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, name)
		}
	}
	if CodeName(-32000) != "" {
		t.Error("CodeName invents names for foreign codes")
	}
}

func TestErrorDataIsSection72(t *testing.T) {
	e := Errorf(CodeConfigIncompatible, "VLAN %d > maximum %d", 4095, 4094).WithPath("/openconfig-vlan:vlans/vlan/config/vlan-id")
	got, err := json.Marshal(e.ErrorData)
	if err != nil {
		t.Fatal(err)
	}
	// JSON escapes '>' as \u003e on the wire; compare decoded values.
	const want = `{"detail":"VLAN 4095 > maximum 4094","path":"/openconfig-vlan:vlans/vlan/config/vlan-id","retryPossible":false}`
	var gotV, wantV map[string]any
	if err := json.Unmarshal(got, &gotV); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wantV); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(gotV) != fmt.Sprint(wantV) {
		t.Fatalf("data = %s\nwant   %s", got, want)
	}
	if e.Message() != "Network.ConfigIncompatible" {
		t.Fatalf("Message() = %q", e.Message())
	}
	wrapped := fmt.Errorf("driver: %w", Errorf(CodeTimeout, "no answer in 30s").Retryable())
	var ne *Error
	if !errors.As(wrapped, &ne) || ne.Code != CodeTimeout || !ne.RetryPossible {
		t.Fatalf("errors.As lost the code: %v", wrapped)
	}
}

func TestCompatNamesMatchHostPattern(t *testing.T) {
	hostPattern := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, name := range append(NetworkTools, ToolPing, ToolTraceroute, ToolTracepath, ToolDNSLookup) {
		c := CompatName(name)
		if !hostPattern.MatchString(c) {
			t.Errorf("CompatName(%q) = %q does not match %s", name, c, hostPattern)
		}
	}
	if CompatName(ToolCLIExec) != "network_cli_exec" {
		t.Fatalf("CompatName(network.cli.exec) = %q", CompatName(ToolCLIExec))
	}
}

// TestCanonicalName: every MCP-NET tool's compat name maps back to its
// dotted name; the dotted names and other tools' names are unchanged.
func TestCanonicalName(t *testing.T) {
	for _, name := range NetworkTools {
		if got := CanonicalName(CompatName(name)); got != name {
			t.Errorf("CanonicalName(%q) = %q, want %q", CompatName(name), got, name)
		}
		if got := CanonicalName(name); got != name {
			t.Errorf("CanonicalName(%q) = %q, want it unchanged", name, got)
		}
	}
	for _, name := range []string{ToolPing, "network_ping", "network_cli", ""} {
		if got := CanonicalName(name); got != name {
			t.Errorf("CanonicalName(%q) = %q, want it unchanged", name, got)
		}
	}
}
