package groupmean

import (
	"slices"
	"sync"

	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/group"
)

// The cells of one configuration that differ only in params.group or
// params.range have the same trial key (Kind.TrialKey), so the runner gives
// their trial t the same generator, and the same data on [−1, 1]: their
// tallies are equal, bit for bit. tallies keeps the tallies of recent
// trials so that the sibling cells reuse them instead of drawing every
// user's report again (E3 runs three ranges and E4 two groups of the same
// runs). It changes no result: a hit returns what the miss would compute.
// The runner expands params in sorted key order, so siblings run close
// together and a bounded store suffices; when it is full it is emptied.
var tallies = tallyMemo{m: map[tallyKey]*memoTally{}}

// tallyKey identifies one trial's tally: the experiment and master seed
// (which with the trial key and index seed the trial's generator), the
// trial key (the mechanism, ε and n), ε itself (which a trial key under
// params.crn leaves out) and the data's fingerprint (the users' groups and
// values on [−1, 1], bit for bit: a hit must return exactly what the miss
// would compute, or the rows would depend on which cell ran first).
//
// binding is the registry entry's summary of a value:<m> method's
// mechanism (mechanismBinding): the trial key holds m's name only, and a
// name may be bound to another mechanism in a later run in this process
// (a spec's external program is registered for one run, its summary
// naming its command; a test registers its own), whose tallies a hit
// would otherwise return.
type tallyKey struct {
	binding    string
	experiment string
	seed       uint64
	trialKey   string
	eps        float64
	data       uint64
	trial      int
}

type memoTally struct {
	n          int
	count, sum []float64
	moved      float64
}

type tallyMemo struct {
	mu     sync.Mutex
	m      map[tallyKey]*memoTally
	floats int
}

// memoLimit bounds the floats held (about 64 MB).
const memoLimit = 8 << 20

func (c *tallyMemo) get(k tallyKey, t *group.Tally) bool {
	if k.trialKey == "" {
		return false // a cell built by hand (tests) shares nothing
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		return false
	}
	t.N, t.Moved = e.n, e.moved
	t.Count = append(t.Count[:0], e.count...)
	t.Sum = append(t.Sum[:0], e.sum...)
	return true
}

func (c *tallyMemo) put(k tallyKey, t *group.Tally) {
	if k.trialKey == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.floats+2*len(t.Count) > memoLimit {
		clear(c.m)
		c.floats = 0
	}
	c.m[k] = &memoTally{n: t.N, count: slices.Clone(t.Count), sum: slices.Clone(t.Sum), moved: t.Moved}
	c.floats += 2 * len(t.Count)
}

// mechanismBinding identifies what the registered name is bound to: its
// registry summary ("" when unknown).
func mechanismBinding(name string) string {
	info, _ := mechanisms.Lookup(name)
	return info.Summary
}
