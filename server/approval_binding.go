package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/netproto"
)

// ChangeChecker is implemented by configurers that can tell, without
// changing anything, whether a change would apply. The server checks every
// candidate change with it before it asks for approval, so that an invalid
// edit (a VLAN id of 4095) or a candidate locked by another session comes
// back at once with its own error (-32088, -32084, or -32083 naming the
// lock holder) and no person is asked to approve a change that cannot be
// made. Configurers without it are checked only when the change is applied.
type ChangeChecker interface {
	// CheckEdit returns the error Edit would return for edits. With no
	// edits it checks that owner may change the candidate and that owner's
	// candidate is valid.
	CheckEdit(ctx context.Context, owner device.Owner, edits []device.Edit) error
	// CheckConfigure returns the error Configure would return for lines.
	CheckConfigure(ctx context.Context, owner device.Owner, lines []string) error
}

// checkEdit checks edits before approval (see ChangeChecker).
func (s *Server) checkEdit(ctx context.Context, owner device.Owner, edits []device.Edit) error {
	if c, ok := s.cfg.(ChangeChecker); ok {
		return rpc(c.CheckEdit(ctx, owner, edits))
	}
	return nil
}

// checkConfigure checks CLI configuration lines before approval.
func (s *Server) checkConfigure(ctx context.Context, owner device.Owner, lines []string) error {
	if c, ok := s.cfg.(ChangeChecker); ok {
		return rpc(c.CheckConfigure(ctx, owner, lines))
	}
	return nil
}

// candidateDigest is the SHA-256 of what a commit by owner would apply: the
// diff against running and, because a diff masks secret values, the
// candidate itself (its YANG tree, or else its configuration text). A commit's approval is bound to it
// (ApprovalRequest.Binding).
func (s *Server) candidateDigest(ctx context.Context, owner device.Owner, d device.Diff) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	if err := enc.Encode(d); err != nil {
		return "", err
	}
	// A device that cannot show its candidate as a whole is bound by its
	// diff alone.
	if s.hasYang() {
		if v, err := s.drv.Get(ctx, device.Candidate, "/"); err == nil {
			if err := enc.Encode(v); err != nil {
				return "", err
			}
			return hex.EncodeToString(h.Sum(nil)), nil
		}
	}
	if s.files != nil {
		if b, err := s.files.ReadFile(ctx, "candidate-config"); err == nil {
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// errCandidateChanged refuses a commit whose candidate changed while its
// approval was being given.
func errCandidateChanged(tool string) error {
	return RPCError(netproto.Errorf(netproto.CodeAccessDenied,
		"approval: %s: the candidate changed since the approval was given, so the approved change is not the one that would be applied; nothing was committed; call again to have the current change approved", tool).Retryable())
}

// candidateMu returns the mutex that orders ss's changes to the candidate
// and its commits: a commit re-reads the candidate and applies it under it,
// so no edit of the same session slips in between.
func (s *Server) candidateMu(ss *mcp.ServerSession) *sync.Mutex {
	if ss == nil {
		return &s.localMu
	}
	return &s.session(ss).candMu
}
