package configstore

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
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
	// Each process is its own owner: with two at once, one waits while the
	// other holds the candidate, or takes it when the other was killed.
	me := device.Owner{Session: fmt.Sprint("p", os.Getpid()), User: "alice"}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 7))
	for i := 0; ; i++ {
		h := fmt.Sprintf("h%d-%d", os.Getpid(), i)
		err := s.Edit(ctx, me, []device.Edit{hostnameEdit(h)})
		var le *LockedError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			fmt.Println("EDIT-ERROR", err)
			os.Exit(1)
		}
		confirmed := []int{0, 0, 1}[rng.IntN(3)]
		r, err := s.Commit(ctx, me, device.CommitOptions{Confirmed: confirmed})
		if err == nil && r.CommitID != "" && r.Status == device.StatusCommitted {
			fmt.Println("COMMIT", r.CommitID, h)
		}
		switch rng.IntN(4) {
		case 0:
			s.Confirm(ctx, me)
		case 1:
			s.CancelCommit(ctx, me)
		case 2:
			if r, err := s.Rollback(ctx, me, ""); err == nil && r.CommitID != "" {
				cfg, _ := s.Config(r.CommitID)
				fmt.Println("COMMIT", r.CommitID, hostnameOf(cfg))
			}
		}
	}
}

// TestKillAnywhere SIGKILLs processes changing the store at random
// moments and checks after each round that the directory opens, every
// acknowledged commit is in the history with its configuration, and
// running is the configuration of the head commit. With two writers at
// once on the directory, the first is killed while the second goes on:
// the second repairs what the first left half-done and must see no error.
func TestKillAnywhere(t *testing.T) {
	if os.Getenv(childDirEnv) != "" {
		t.Skip("in the child")
	}
	if testing.Short() {
		t.Skip("spawns processes; skipped with -short")
	}
	for _, writers := range []int{1, 2} {
		t.Run(fmt.Sprint(writers, " writers"), func(t *testing.T) { killAnywhere(t, writers) })
	}
}

func killAnywhere(t *testing.T, writers int) {
	dir := t.TempDir()
	acked := map[string]string{} // commit id -> hostname
	rng := rand.New(rand.NewPCG(3, uint64(writers)))
	for round := 0; round < 8; round++ {
		lines := make(chan string)
		var cmds []*exec.Cmd
		var wg sync.WaitGroup
		for range writers {
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
			wg.Go(func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					lines <- sc.Text()
				}
			})
		}
		go func() { wg.Wait(); close(lines) }()
		ready := 0
		var kills []<-chan time.Time
		for i := range cmds {
			kills = append(kills, time.After(time.Duration(20+rng.IntN(150)+i*100)*time.Millisecond))
		}
		killed := 0
	read:
		for {
			var next <-chan time.Time
			if killed < len(kills) && ready == writers {
				next = kills[killed]
			}
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if l == "READY" {
					ready++
					continue
				}
				f := strings.Fields(l)
				if len(f) != 3 || f[0] != "COMMIT" {
					t.Fatalf("round %d: child: %q", round, l)
				}
				acked[f[1]] = f[2]
			case <-next:
				cmds[killed].Process.Kill()
				killed++
			}
		}
		for _, cmd := range cmds {
			cmd.Wait()
		}
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
	t.Logf("%d acknowledged commits survived 8 rounds of SIGKILLs", len(acked))
}
