package configstore

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/netmcp/netmcp/device"
	"github.com/netmcp/netmcp/yang"
)

const childDirEnv = "CONFIGSTORE_KILL_CHILD_DIR"

// TestKillChild is the child process of TestKillAnywhere: it changes the
// configuration as fast as it can and prints every acknowledged commit.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("run by TestKillAnywhere as a child process")
	}
	s, err := Open(initialConfig(), Options{Dir: dir, Schema: yang.DefaultSchema()})
	if err != nil {
		fmt.Println("OPEN-ERROR", err)
		os.Exit(1)
	}
	fmt.Println("READY")
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 7))
	for i := 0; ; i++ {
		h := fmt.Sprintf("h%d-%d", os.Getpid(), i)
		if err := s.Edit(ctx, alice, []device.Edit{hostnameEdit(h)}); err != nil {
			fmt.Println("EDIT-ERROR", err)
			os.Exit(1)
		}
		confirmed := []int{0, 0, 1}[rng.IntN(3)]
		r, err := s.Commit(ctx, alice, device.CommitOptions{Confirmed: confirmed})
		if err == nil && r.CommitID != "" && r.Status == device.StatusCommitted {
			fmt.Println("COMMIT", r.CommitID, h)
		}
		switch rng.IntN(4) {
		case 0:
			s.Confirm(ctx, alice)
		case 1:
			s.CancelCommit(ctx, alice)
		case 2:
			if r, err := s.Rollback(ctx, alice, ""); err == nil && r.CommitID != "" {
				fmt.Println("COMMIT", r.CommitID, hostnameOf(s.Running()))
			}
		}
	}
}

// TestKillAnywhere SIGKILLs a process changing the store at random moments
// and checks after each kill that the directory opens, every acknowledged
// commit is in the history with its configuration, and running is the
// configuration of the head commit.
func TestKillAnywhere(t *testing.T) {
	if os.Getenv(childDirEnv) != "" {
		t.Skip("in the child")
	}
	if testing.Short() {
		t.Skip("spawns processes; skipped with -short")
	}
	dir := t.TempDir()
	acked := map[string]string{} // commit id -> hostname
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 8; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		if l := <-lines; l != "READY" {
			t.Fatalf("child: %q", l)
		}
		kill := time.After(time.Duration(20+rng.IntN(150)) * time.Millisecond)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				f := strings.Fields(l)
				if len(f) != 3 || f[0] != "COMMIT" {
					t.Fatalf("child: %q", l)
				}
				acked[f[1]] = f[2]
			case <-kill:
				cmd.Process.Kill()
				kill = nil
			}
		}
		cmd.Wait()

		s, err := Open(nil, Options{Dir: dir, Schema: yang.DefaultSchema()})
		if err != nil {
			t.Fatalf("round %d: Open after SIGKILL: %v", round, err)
		}
		for id, h := range acked {
			cfg, err := s.Config(id)
			if err != nil || hostnameOf(cfg) != h {
				t.Fatalf("round %d: acknowledged commit %s lost (%v, %q want %q)", round, id, err, hostnameOf(cfg), h)
			}
		}
		if !equalTrees(s.Running(), s.configOf(s.st.Head)) {
			t.Fatalf("round %d: running is not the head commit's configuration", round)
		}
		if p, ok := s.Pending(); ok && p.ID != s.st.Head {
			t.Fatalf("round %d: pending %s is not the head %s", round, p.ID, s.st.Head)
		}
		s.Close()
	}
	t.Logf("%d acknowledged commits survived 8 SIGKILLs", len(acked))
}
