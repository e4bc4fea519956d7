package aaa

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"sync"
)

// Cache holds solved noise laws per (ε, x_P, programme options), so that a
// run whose phase-1 estimate repeats (and every trial's theory) does not
// solve again. It is safe for concurrent use; when full it drops an
// arbitrary entry.
type Cache struct {
	mu   sync.Mutex
	max  int
	m    map[uint64][]*cacheEntry
	size int
}

type cacheEntry struct {
	cfg  NoiseConfig
	once sync.Once
	nz   *Noise
	mech *Phase2
	err  error
}

// NewCache returns a cache of at most max laws (max ≥ 1).
func NewCache(max int) *Cache {
	if max < 1 {
		max = 1
	}
	return &Cache{max: max, m: map[uint64][]*cacheEntry{}}
}

func noiseKey(c NoiseConfig) uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	put(c.Eps)
	put(float64(c.AxRatio))
	put(c.R)
	put(float64(c.Alignment))
	for _, v := range c.Prior {
		put(v)
	}
	return h.Sum64()
}

func sameConfig(a, b NoiseConfig) bool {
	if a.Eps != b.Eps || a.AxRatio != b.AxRatio || a.R != b.R || a.Alignment != b.Alignment || len(a.Prior) != len(b.Prior) {
		return false
	}
	for i := range a.Prior {
		if a.Prior[i] != b.Prior[i] {
			return false
		}
	}
	return true
}

// Get returns the solved law of cfg and its phase-2 randomiser, solving
// once per distinct cfg (prior compared bit for bit after normalisation).
func (c *Cache) Get(cfg NoiseConfig) (*Noise, *Phase2, error) {
	n, err := cfg.normalised()
	if err != nil {
		return nil, nil, err
	}
	k := noiseKey(n)
	c.mu.Lock()
	var e *cacheEntry
	for _, x := range c.m[k] {
		if sameConfig(x.cfg, n) {
			e = x
			break
		}
	}
	if e == nil {
		if c.size >= c.max {
			for kk, list := range c.m {
				c.size -= len(list)
				delete(c.m, kk)
				break
			}
		}
		e = &cacheEntry{cfg: n}
		c.m[k] = append(c.m[k], e)
		c.size++
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.nz, e.err = SolveNoise(n)
		if e.err == nil {
			e.mech = NewPhase2(e.nz)
		}
	})
	return e.nz, e.mech, e.err
}
