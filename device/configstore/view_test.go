package configstore

import (
	"encoding/json"
	"testing"

	"github.com/netmcp/netmcp/device"
)

// TestViewsAreImmutable checks RunningView's promise: a view taken before
// an edit, a commit and a rollback still shows what it showed, since the
// store installs new trees instead of changing the ones it gave out.
func TestViewsAreImmutable(t *testing.T) {
	e := newEnv(t, "")
	running := e.s.RunningView()
	before, _ := json.Marshal(running)
	e.edit(alice, hostnameEdit("r2"))
	cand := e.s.CandidateView(alice)
	candBefore, _ := json.Marshal(cand)
	e.commit(alice, device.CommitOptions{Comment: "rename"})
	e.edit(alice, hostnameEdit("r3"))
	if _, err := e.s.Rollback(ctx, alice, ""); err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal(running); string(after) != string(before) {
		t.Errorf("running view changed:\n%s\n%s", before, after)
	}
	if after, _ := json.Marshal(cand); string(after) != string(candBefore) {
		t.Errorf("candidate view changed:\n%s\n%s", candBefore, after)
	}
	if hostnameOf(e.s.RunningView()) != "r1" {
		t.Errorf("running after the rollback = %q, want r1", hostnameOf(e.s.RunningView()))
	}
}
