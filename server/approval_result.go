package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/approval"
	"github.com/netmcp/netmcp/netproto"
)

// StatusApprovalRequired is the status of a tool result refused pending
// approval (netproto.StatusApprovalRequired).
const StatusApprovalRequired = netproto.StatusApprovalRequired

// ApprovalRequiredResult is the structuredContent of a tool call refused
// pending approval (netproto.ApprovalRequiredResult).
type ApprovalRequiredResult = netproto.ApprovalRequiredResult

func newApprovalRequiredResult(ar *approval.ApprovalRequired) ApprovalRequiredResult {
	return ApprovalRequiredResult{Status: StatusApprovalRequired, Tool: ar.Tool, ApprovalToken: ar.Token,
		ExpiresAt: ar.ExpiresAt.UTC(), Summary: ar.Summary, RollbackWindow: ar.RollbackWindow,
		Next: fmt.Sprintf("show the summary to the user and, only if the user approves, repeat the identical call with \"%s\": %q before %s (single use, this session only)",
			approval.ArgToken, ar.Token, ar.ExpiresAt.UTC().Format(time.RFC3339))}
}

// approvalRequiredToolResult returns the isError tool result of a call
// refused pending approval, or nil if err is no *approval.ApprovalRequired.
func approvalRequiredToolResult(err error) *mcp.CallToolResult {
	if res := inputRequiredResult(err); res != nil {
		return res
	}
	var ar *approval.ApprovalRequired
	if !errors.As(err, &ar) {
		return nil
	}
	out := newApprovalRequiredResult(ar)
	b, _ := marshal(out)
	text := fmt.Sprintf("APPROVAL REQUIRED: %s was not run; nothing was changed.\n\n%s\n\nNext: %s.\n\n%s",
		ar.Tool, ar.Summary, out.Next, b)
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}
}

// approvalRequiredError is the -32083 error of resources/write refused
// pending approval: data carries detail, retryPossible and the fields of
// ApprovalRequiredResult.
func approvalRequiredError(ar *approval.ApprovalRequired) *jsonrpc.Error {
	out := newApprovalRequiredResult(ar)
	data, _ := marshal(struct {
		Detail        string `json:"detail"`
		RetryPossible bool   `json:"retryPossible"`
		ApprovalRequiredResult
	}{ar.Error(), true, out})
	return &jsonrpc.Error{Code: netproto.CodeAccessDenied, Message: netproto.CodeName(netproto.CodeAccessDenied), Data: data}
}

// mayNeedApproval reports whether calls of a tool can be refused pending
// approval, so that its schemas must carry the approval members.
func (s *Server) mayNeedApproval(tool string, write bool) bool {
	if write {
		return true
	}
	p, ok := s.opts.Approver.(ToolPolicy)
	return ok && p.Needs(tool, false)
}

// addEvidenceArgs lets a tool's input schema carry approval evidence.
func addEvidenceArgs(in *jsonschema.Schema) {
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	in.Properties[approval.ArgToken] = &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(256),
		Description: "single-use confirmation token from an approval-required result of the identical call"}
	in.Properties[approval.ArgConsent] = &jsonschema.Schema{Types: []string{"object", "string"},
		Description: "signed consent of a trusted approver (troubleshooting draft 7.1): an Ed25519-signed JSON object or an EdDSA JWT, made with `netmcp approve`"}
}

// approvalRequiredSchema is the JSON Schema of ApprovalRequiredResult,
// resolved on first use.
var approvalRequiredSchema = sync.OnceValue(func() *jsonschema.Schema {
	return mustSchema("approval-required", `{"type":"object","properties":{
"status":{"const":"approval-required"},"tool":{"type":"string"},"approvalToken":{"type":"string"},
"expiresAt":{"type":"string"},"summary":{"type":"string"},"rollbackWindow":{"type":"integer"},"next":{"type":"string"}},
"required":["status","tool","approvalToken","expiresAt"]}`)
})

// withApprovalOutput widens an output schema to admit the approval-required
// result as well.
func withApprovalOutput(out *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{out, approvalRequiredSchema()}}
}
