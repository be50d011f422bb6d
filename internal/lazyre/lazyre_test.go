package lazyre

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestCompiledOnceOnFirstUse(t *testing.T) {
	r := New(`^(\d+) bytes$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = r.Re() }()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("goroutine %d got another *regexp.Regexp: compiled more than once", i)
		}
	}
	if m := r.Re().FindStringSubmatch("64 bytes"); len(m) != 2 || m[1] != "64" {
		t.Fatalf("match = %q", m)
	}
	if r.String() != `^(\d+) bytes$` {
		t.Fatalf("String() = %q", r.String())
	}
}

func TestCompileAllNamesTheBadExpression(t *testing.T) {
	if _, err := CompileAll(); err != nil {
		t.Fatalf("valid expressions: %v", err)
	}
	bad := New(`(unclosed`)
	defer func() {
		mu.Lock()
		all = all[:len(all)-1] // keep the registry valid for other tests
		mu.Unlock()
	}()
	n, err := CompileAll()
	if err == nil || !strings.Contains(err.Error(), "(unclosed") {
		t.Fatalf("CompileAll() = %d, %v; want an error naming the expression", n, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Re() of a bad expression did not panic")
		}
	}()
	bad.Re()
}

func ExampleNew() {
	seq := New(`icmp_seq=(\d+)`) // costs nothing at start-up
	m := seq.Re().FindStringSubmatch("64 bytes from 10.0.0.1: icmp_seq=3 ttl=64")
	fmt.Println(m[1])
	// Output: 3
}
