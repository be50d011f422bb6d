package syncbuf_test

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/netmcp/netmcp/internal/syncbuf"
)

// TestConcurrentWriters writes from many goroutines while reading; under
// -race a bare bytes.Buffer fails this test.
func TestConcurrentWriters(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	const writers, lines = 8, 200
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(&b, "w%d-%d\n", w, i)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
			_ = b.String()
		}
	}
	if got := strings.Count(b.String(), "\n"); got != writers*lines {
		t.Fatalf("lines = %d, want %d", got, writers*lines)
	}
	if b.Len() != len(b.String()) {
		t.Fatalf("Len %d != len(String) %d", b.Len(), len(b.String()))
	}
}

func ExampleBuffer() {
	var out syncbuf.Buffer
	cmd := exec.Command("echo", "listening")
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out.String())
	// Output: listening
}
