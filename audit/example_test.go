package audit_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/netmcp/netmcp/audit"
)

// Example appends a request and its response, then verifies the chain.
func Example() {
	dir, _ := os.MkdirTemp("", "state")
	defer os.RemoveAll(dir)
	log, err := audit.Open(audit.PathIn(dir), audit.Options{Sync: audit.SyncEveryRecord})
	if err != nil {
		fmt.Println(err)
		return
	}
	log.Append(audit.Record{Session: "3f9c", Identity: "alice", Kind: audit.KindRequest, ID: "7",
		Method: "tools/call", Tool: "network.yang.get",
		Arguments: json.RawMessage(`{"path":"/ietf-interfaces:interfaces"}`)})
	log.Append(audit.Record{Session: "3f9c", Identity: "alice", Kind: audit.KindResponse, ID: "7",
		Method: "tools/call", Tool: "network.yang.get", Outcome: audit.OutcomeOK, DurationMS: 4.2})
	log.Close()

	rep, err := audit.Verify(filepath.Join(dir, audit.FileName))
	fmt.Println(rep.Records, "records, error:", err)
	// Output: 2 records, error: <nil>
}
