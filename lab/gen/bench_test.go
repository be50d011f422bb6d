package gen

import (
	"fmt"
	"testing"
)

// BenchmarkGenerate and BenchmarkVerify time a network's generation and
// its health check in the simulator, by size (go test -bench . -run ^$).
func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{4, 20, 60} {
		for _, shape := range Shapes {
			b.Run(fmt.Sprintf("%s-%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := Generate(Options{Shape: shape, Routers: n, Seed: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{4, 20, 60} {
		for _, shape := range Shapes {
			topo, err := Generate(Options{Shape: shape, Routers: n, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s-%d", shape, n), func(b *testing.B) {
				for b.Loop() {
					if err := Verify(topo); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
