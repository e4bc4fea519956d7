package group_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms/group"
)

// Group NPRR as the paper runs it (k = 8, the neutral 0 through NPRR) at
// ε = 4 over two groups: its true privacy level is not 4 (E2.1). One run of
// 20,000 users, and the aggregator's estimates n̂_g = (C_g - n·q)/(a - q)
// and ŝ_g/n̂_g with ŝ_g = Sum_g/(a·c).
func ExampleNew() {
	m, err := group.New(group.Config{Method: "nprr", Eps: 4, D: 2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: ε1 = %.4f, ε2 = %.4f\n", m.Name(), m.Eps1(), m.Eps2())
	fmt.Printf("claimed ε = %.4f, true ε = %.4f\n", m.ClaimedEpsilon(), m.TrueEpsilon())

	// 10,000 users per group, values -1/3 and +1/3 (off NPRR's grid).
	groups := make([]int32, 20_000)
	values := make([]float64, 20_000)
	for i := range groups {
		groups[i] = int32(i % 2)
		values[i] = []float64{-1.0 / 3, 1.0 / 3}[i%2]
	}
	var t group.Tally
	if err := m.Simulate(&t, groups, values, rand.New(rand.NewPCG(1, 2))); err != nil {
		panic(err)
	}
	a, q := m.Keep()
	for g := range m.D() {
		nHat := (t.Count[g] - float64(t.N)*q) / (a - q)
		sHat := t.Sum[g] / (a * m.Scale())
		fmt.Printf("group %d: n̂ = %.0f, mean %.3f\n", g, nHat, sHat/nHat)
	}
	fmt.Printf("group errors: %.0f of %d\n", t.Moved, t.N)

	_, err = group.New(group.Config{Method: "nprr", Eps: 4, D: 2, K: -1})
	fmt.Println(err)
	// Output:
	// group-nprr(k=8,neutral=nprr0): ε1 = 1.9395, ε2 = 4.0000
	// claimed ε = 4.0000, true ε = 5.9395
	// group 0: n̂ = 9973, mean -0.330
	// group 1: n̂ = 10027, mean 0.327
	// group errors: 2534 of 20000
	// group: k = -1: must be ≥ 1 (0 means the default 8)
}
