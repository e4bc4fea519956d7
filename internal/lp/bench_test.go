package lp

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSolve is one solve of a random sparse programme of the AAA
// shape (more inequality rows than variables, few equality rows).
func BenchmarkSolve(b *testing.B) {
	p := randomProblem(rand.New(rand.NewPCG(21, 22)), 200, 10, 600, 0.01)
	if _, err := Solve(p, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Solve(p, nil); err != nil {
			b.Fatal(err)
		}
	}
}
