package fedlearn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Clients is Baek & Chung's federated-learning protocol (N-output paper
// §5.3, Fig. 5), federated averaging with LDP updates:
//
//   - the training rows are shuffled and cut into Clients equal,
//     non-overlapping shards (the n mod Clients rows left over are unused);
//   - in each of Rounds rounds, PerRound clients are drawn without
//     replacement; each starts from the global θ and runs Epochs epochs of
//     SGD with learning rate LR on its shard, in mini-batches of Batch rows
//     (one batch per epoch when the shard is smaller), on the mean
//     cross-entropy plus WeightDecay·θ;
//   - a client's update Δ = θ_local − θ is reported: non-private, as is;
//     private, clamped to [−Range, Range], divided by Range, perturbed by
//     Mech, multiplied by Range·PostScale;
//   - the server adds the mean of the reported updates to θ;
//   - after every round the test accuracy is recorded.
//
// PostScale is 1 for the paper's intent; the authors' code divides by k
// but multiplies by the number of weights only, not of every perturbed
// parameter (ERRATA E0.27), which is PostScale = Weights/Dim.
type Clients struct {
	Model       Multinomial
	Mech        mechanisms.Vector // nil: non-private
	Clients     int
	Rounds      int
	PerRound    int
	Epochs      int
	Batch       int
	LR          float64
	WeightDecay float64
	Range       float64
	PostScale   float64 // 0 means 1
}

// BaekChung returns the protocol with the authors' defaults (train.py: 500
// clients, 50 rounds, 50 clients per round, 5 epochs, batch 50, lr 0.1,
// range 0.3), weight decay 0.001 for the non-private run and 0 for a
// private one (Sec. 5.3).
func BaekChung(m Multinomial, mech mechanisms.Vector) Clients {
	c := Clients{Model: m, Mech: mech, Clients: 500, Rounds: 50, PerRound: 50, Epochs: 5, Batch: 50, LR: 0.1, Range: 0.3}
	if mech == nil {
		c.WeightDecay = 0.001
	}
	return c
}

// ClientWorkspace is the scratch of one training run: nothing is allocated
// per client or per round.
type ClientWorkspace struct {
	local, g, upd, rep, sum []float64
	perm, pick              []int
}

// NewClientWorkspace returns scratch for a model of dim parameters and n
// training rows, clients clients.
func NewClientWorkspace(dim, n, clients int) *ClientWorkspace {
	buf := make([]float64, 5*dim)
	return &ClientWorkspace{
		local: buf[:dim:dim], g: buf[dim : 2*dim : 2*dim], upd: buf[2*dim : 3*dim : 3*dim],
		rep: buf[3*dim : 4*dim : 4*dim], sum: buf[4*dim:],
		perm: make([]int, n), pick: make([]int, clients),
	}
}

// Check validates the configuration.
func (c *Clients) Check() error {
	switch {
	case c.Clients < 1 || c.PerRound < 1 || c.PerRound > c.Clients:
		return fmt.Errorf("clients: %d clients, %d per round: want 1 ≤ per round ≤ clients", c.Clients, c.PerRound)
	case c.Rounds < 1 || c.Epochs < 1 || c.Batch < 1:
		return fmt.Errorf("clients: rounds %d, epochs %d, batch %d: each must be ≥ 1", c.Rounds, c.Epochs, c.Batch)
	case !(c.LR > 0) || !(c.WeightDecay >= 0) || math.IsInf(c.LR, 1):
		return fmt.Errorf("clients: lr %v, weight decay %v: want lr > 0, decay ≥ 0", c.LR, c.WeightDecay)
	case c.Mech != nil && !(c.Range > 0):
		return fmt.Errorf("clients: range %v: must be > 0", c.Range)
	case c.Mech != nil && c.Mech.Dim() != c.Model.Dim():
		return fmt.Errorf("clients: mechanism of dimension %d for %d parameters", c.Mech.Dim(), c.Model.Dim())
	}
	return nil
}

// XavierInit writes Glorot-uniform weights (U(−a, a), a = √(6/(p+K))) and
// zero biases to θ, PyTorch's xavier_uniform_ on a K×p layer.
func XavierInit(m Multinomial, theta []float64, rng *rand.Rand) {
	a := math.Sqrt(6 / float64(m.P+m.K))
	w := m.Weights()
	for j := range theta {
		if j < w {
			theta[j] = a * (2*rng.Float64() - 1)
		} else {
			theta[j] = 0
		}
	}
}

// Train runs the protocol from θ (updated in place) on the training rows
// (Xtr row-major with Model.P columns, Ytr class indices) and writes the
// test accuracy after round r to acc[r] (len(acc) ≥ Rounds).
func (c *Clients) Train(theta, Xtr, Ytr, Xte, Yte, acc []float64, ws *ClientWorkspace, rng *rand.Rand) error {
	if err := c.Check(); err != nil {
		return err
	}
	m := c.Model
	d, p, n := m.Dim(), m.P, len(Ytr)
	shard := n / c.Clients
	if shard < 1 {
		return fmt.Errorf("clients: %d training rows for %d clients", n, c.Clients)
	}
	if len(theta) != d || len(Xtr) != n*p || len(Xte) != len(Yte)*p || len(acc) < c.Rounds {
		return errors.New("clients: θ, X, Y or acc of the wrong length")
	}
	if len(ws.perm) != n || len(ws.pick) != c.Clients || len(ws.g) != d {
		return errors.New("clients: workspace built for another size")
	}
	for i := range ws.perm {
		ws.perm[i] = i
	}
	rng.Shuffle(n, func(i, j int) { ws.perm[i], ws.perm[j] = ws.perm[j], ws.perm[i] })
	for i := range ws.pick {
		ws.pick[i] = i
	}
	post := c.PostScale
	if post == 0 {
		post = 1
	}
	for r := range c.Rounds {
		// Partial Fisher–Yates: pick[:PerRound] is a uniform sample
		// without replacement.
		for i := range c.PerRound {
			j := i + rng.IntN(c.Clients-i)
			ws.pick[i], ws.pick[j] = ws.pick[j], ws.pick[i]
		}
		clear(ws.sum)
		for _, client := range ws.pick[:c.PerRound] {
			rows := ws.perm[client*shard : (client+1)*shard]
			copy(ws.local, theta)
			for range c.Epochs {
				for lo := 0; lo < shard; lo += c.Batch {
					c.step(ws, Xtr, Ytr, rows[lo:min(lo+c.Batch, shard)])
				}
			}
			for j := range ws.upd {
				ws.upd[j] = ws.local[j] - theta[j]
			}
			if c.Mech == nil {
				for j, v := range ws.upd {
					ws.sum[j] += v
				}
				continue
			}
			for j, v := range ws.upd {
				ws.upd[j] = clamp(v, c.Range) / c.Range
			}
			if err := c.Mech.PerturbVector(ws.rep, ws.upd, rng); err != nil {
				return err
			}
			for j, v := range ws.rep {
				ws.sum[j] += c.Range * post * v
			}
		}
		inv := 1 / float64(c.PerRound)
		for j := range theta {
			theta[j] += ws.sum[j] * inv
		}
		acc[r] = m.accuracy(theta, Xte, Yte)
	}
	return nil
}

// step is one SGD step of the local model on the rows of one mini-batch:
// the mean gradient plus weight decay.
func (c *Clients) step(ws *ClientWorkspace, X, Y []float64, rows []int) {
	m := c.Model
	p := m.P
	clear(ws.upd)
	for _, i := range rows {
		m.Grad(ws.g, ws.local, X[i*p:(i+1)*p], Y[i])
		for j, v := range ws.g {
			ws.upd[j] += v
		}
	}
	inv := 1 / float64(len(rows))
	for j := range ws.local {
		ws.local[j] -= c.LR * (ws.upd[j]*inv + c.WeightDecay*ws.local[j])
	}
}

// accuracy is 1 − TestError without boxing m into a Model (which would
// allocate once per round).
func (m Multinomial) accuracy(theta, X, Y []float64) float64 {
	p := m.P
	var wrong float64
	for i, y := range Y {
		wrong += m.Error(theta, X[i*p:(i+1)*p], y)
	}
	return 1 - wrong/float64(len(Y))
}
