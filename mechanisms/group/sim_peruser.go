package group

import "math/rand/v2"

// simulatePerUser is Simulate for the value method, whose value mechanism
// is any registered one and has no aggregate law to draw from. Per user it
// flips the keep coin of probability a from half a word (coin.go); the
// users of a block who keep their group make their value reports in one
// PerturbBatch, each added to its group's sum. The movers need no per-user
// step: each lands uniformly on the d-1 other groups independently of its
// report, which is a report of the neutral 0 (or uniform on the outputs)
// whatever its group, so the arrivals are multinomial counts
// (scatterMovers) and group h's arrivals add arrive[h] independent neutral
// reports. The law is that of one Perturb per user; a mover costs one
// neutral report instead of a GRR uniform, a draw of its new group and a
// report. The inputs are checked by Simulate, so only a mechanism that can
// fail otherwise (an external program's: a crash, a timeout) returns an
// error, the value mechanism's own, and the tally is then unusable.
func (m *Mechanism) simulatePerUser(t *Tally, groups []int32, values []float64, rng *rand.Rand) error {
	d := m.cfg.D
	ints := t.scratchInts(4 * d)
	size, kept, movers, arrive := ints[:d], ints[d:2*d], ints[2*d:3*d], ints[3*d:]
	t0, rem := threshold(m.a)
	var (
		ws      [block / 2]uint64
		keptIdx [block]uint8
	)
	// The value mechanism's batches live in the tally: arrays on the stack
	// would escape through the interface call.
	buf := t.scratchList(2 * block)
	xs, ys := buf[:block], buf[block:]
	for start := 0; start < len(groups); start += block {
		end := min(start+block, len(groups))
		g, v := groups[start:end], values[start:end]
		words := ws[:wordsFor(len(g))]
		drawWords(words, rng)
		nk := 0
		for i, gi := range g {
			r := half(words, i)
			k := heads(r, t0)
			if r == t0 && tieHeads(rem, rng) { // probability 2^-32
				k = 1
			}
			size[gi]++
			keptIdx[nk&(block-1)] = uint8(i)
			nk += k
		}
		for j, i := range keptIdx[:nk] {
			xs[j] = v[i]
		}
		if err := m.val.PerturbBatch(ys[:nk], xs[:nk], rng); err != nil {
			return err
		}
		for j, i := range keptIdx[:nk] {
			gi := g[i]
			kept[gi]++
			t.Sum[gi] += ys[j]
		}
	}
	moved := 0
	for g := range d {
		movers[g] = size[g] - kept[g]
		moved += movers[g]
	}
	t.Moved = float64(moved)
	scatterMovers(rng, movers, arrive)
	clear(xs)
	for h := range d {
		s := 0.0
		for left := arrive[h]; left > 0; left -= block {
			c := min(left, block)
			if m.uniform {
				for range c {
					s += m.outs[rng.IntN(len(m.outs))]
				}
				continue
			}
			if err := m.val.PerturbBatch(ys[:c], xs[:c], rng); err != nil {
				return err
			}
			for _, y := range ys[:c] {
				s += y
			}
		}
		t.Sum[h] += s
		t.Count[h] = float64(kept[h] + arrive[h])
	}
	return nil
}
