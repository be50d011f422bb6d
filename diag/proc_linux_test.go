//go:build linux

package diag

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCommandKillsGroup checks that ending ctx kills the whole process
// group, a background grandchild included.
func TestCommandKillsGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, []string{"sh", "-c", "sleep 30 & echo $!; wait"})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cancel()
	_ = cmd.Wait()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Wait returned %s after cancel", d)
	}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		// Gone, or a zombie (state Z) waiting for a reaper: killed either way.
		if err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still running after cancel: %s", child, st)
		}
	}
}
