package group

import "math/rand/v2"

// simulatePerUser is Simulate for the value method: one Perturb per user,
// tallied. The generic value mechanism has no aggregate law to draw from,
// so this is the plain per-user loop (about one GRR uniform plus one
// value report a user).
func (m *Mechanism) simulatePerUser(t *Tally, groups []int32, values []float64, rng *rand.Rand) {
	d := m.cfg.D
	counts := t.scratchInts(d)
	moved := 0
	for i, g32 := range groups {
		g := int(g32)
		h, y := m.Perturb(g, values[i], rng)
		counts[h]++
		t.Sum[h] += y
		moved += b2i(h != g)
	}
	for h, n := range counts {
		t.Count[h] = float64(n)
	}
	t.Moved = float64(moved)
}
