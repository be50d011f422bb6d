package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/netmcp/netmcp/approval"
)

// A client without elicitation: the first call gets a token, the identical
// second call carrying it passes, and the token cannot be used again.
func ExampleAuthority_Approve() {
	g := approval.New(approval.Options{})
	ctx := context.Background()
	req := approval.Request{Session: "s1", Tool: "network.commit",
		Arguments: json.RawMessage(`{"confirmed":120}`), Write: true, RollbackWindow: 120}

	_, err := g.Approve(ctx, req, approval.Evidence{})
	var need *approval.ApprovalRequired
	fmt.Println("first call needs approval:", errors.As(err, &need))

	d, err := g.Approve(ctx, req, approval.Evidence{Token: need.Token})
	fmt.Println("second call:", d.Method, err)

	_, err = g.Approve(ctx, req, approval.Evidence{Token: need.Token})
	fmt.Println("replay refused:", err != nil)
	// Output:
	// first call needs approval: true
	// second call: token <nil>
	// replay refused: true
}
