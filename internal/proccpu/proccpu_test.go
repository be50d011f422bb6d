package proccpu

import (
	"runtime"
	"testing"
)

func TestUsedGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no CPU time on this platform")
	}
	before := Used()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	_ = x
	if after := Used(); after <= before {
		t.Fatalf("CPU time went from %v to %v across a busy loop", before, after)
	}
}
