package approval

import (
	"fmt"
	"time"

	"github.com/netmcp/netmcp/netproto"
)

// ApprovalRequired is returned for a call that needs approval and brought
// none, by a client without elicitation. The caller repeats the identical
// call with Token in the approvalToken argument before ExpiresAt.
type ApprovalRequired struct {
	Tool      string    `json:"tool"`
	Token     string    `json:"approvalToken"`
	ExpiresAt time.Time `json:"expiresAt"`
	// Summary is what the operator must review (e.g. the diff).
	Summary        string `json:"summary,omitempty"`
	RollbackWindow int    `json:"rollbackWindow,omitempty"`
}

// Error implements error.
func (e *ApprovalRequired) Error() string {
	return fmt.Sprintf("%s changes the device and needs approval: review the summary, then repeat the same call with %q: %q before %s",
		e.Tool, ArgToken, e.Token, e.ExpiresAt.UTC().Format(time.RFC3339))
}

// denied returns the error of a refused approval: Network.AccessDenied
// (-32083) with a detail that says why.
func denied(format string, args ...any) error {
	return netproto.Errorf(netproto.CodeAccessDenied, "approval: "+format, args...)
}
