package netproto

import "time"

// StatusApprovalRequired is the status of a tool result refused pending
// approval: structuredContent is an ApprovalRequiredResult.
const StatusApprovalRequired = "approval-required"

// ApprovalRequiredResult is the structuredContent of a tool call refused
// because it needs approval and brought none (a client without
// elicitation). Nothing was changed. The client shows Summary to its user
// and, if the user agrees, repeats the identical call with ApprovalToken
// in the "approvalToken" argument before ExpiresAt; or it obtains a signed
// consent (netmcp approve) and repeats the call with "consent".
type ApprovalRequiredResult struct {
	Status         string    `json:"status"`
	Tool           string    `json:"tool"`
	ApprovalToken  string    `json:"approvalToken"`
	ExpiresAt      time.Time `json:"expiresAt"`
	Summary        string    `json:"summary,omitempty"`
	RollbackWindow int       `json:"rollbackWindow,omitempty"`
	// Next says in one sentence what to do.
	Next string `json:"next"`
}
