package fedlearn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// DefaultLambda is the ℓ2 coefficient λ of Zhao et al. (Section VII-B).
const DefaultLambda = 1e-4

// FedSGD is Zhao et al.'s LDP-FedSGD (Algorithm 1, Section III-B): the
// training users are taken in order in disjoint groups of Group users;
// in round t every user i of group G_t computes the gradient g_i of its
// own tuple at θ_{t−1}, clips every coordinate to [−Clip, Clip], divides
// by Clip (so the report's input is in [−1, 1]^d), perturbs it once with
// Mech and multiplies by Clip; the server steps
//
//	θ_t = θ_{t−1} − η·((1/|G_t|)·Σ_{i∈G_t} Clip·M(g_i/Clip) + λ·θ_{t−1}),
//
// the λθ term of the regulariser added after aggregation (it needs no
// privacy). One pass: each user is in exactly one group and perturbs once,
// so the training is ε-LDP per user. The last group holds the remaining
// n mod Group users when Group does not divide n.
//
// Mech nil is the non-private baseline (the same clipped gradients,
// averaged exactly); with it, Epochs > 1 makes further passes (full-batch
// gradient descent when Group ≥ n), which the tests use to reach the
// regularised optimum. An LDP run refuses Epochs > 1: a second pass would
// spend ε again.
type FedSGD struct {
	Model  Model
	Mech   mechanisms.Vector // nil: non-private
	Eta    float64           // learning rate η (constant)
	Group  int               // |G|, users per round
	Lambda float64           // ℓ2 coefficient λ
	Clip   float64           // gradient coordinates clipped to [−Clip, Clip]; +Inf: no clipping (non-private only)
	Epochs int               // passes over the users; 0 means 1
}

// Workspace holds a trainer's scratch vectors, so that training allocates
// nothing per user. One Workspace serves one goroutine.
type Workspace struct {
	g, rep, sum []float64
	idx         []int
}

// NewWorkspace returns scratch for models of dim parameters.
func NewWorkspace(dim int) *Workspace {
	buf := make([]float64, 3*dim)
	return &Workspace{g: buf[:dim:dim], rep: buf[dim : 2*dim : 2*dim], sum: buf[2*dim:]}
}

func (w *Workspace) fit(dim int) {
	if len(w.g) != dim {
		*w = *NewWorkspace(dim)
	}
}

// Check validates the configuration.
func (f *FedSGD) Check() error {
	switch {
	case f.Model == nil:
		return errors.New("fedsgd: no model")
	case !(f.Eta > 0) || math.IsInf(f.Eta, 1):
		return fmt.Errorf("fedsgd: learning rate η = %v: must be finite and > 0", f.Eta)
	case f.Group < 1:
		return fmt.Errorf("fedsgd: group size |G| = %d: must be ≥ 1", f.Group)
	case !(f.Lambda >= 0) || math.IsInf(f.Lambda, 1):
		return fmt.Errorf("fedsgd: λ = %v: must be finite and ≥ 0", f.Lambda)
	case !(f.Clip > 0):
		return fmt.Errorf("fedsgd: clip = %v: must be > 0", f.Clip)
	case f.Epochs < 0:
		return fmt.Errorf("fedsgd: epochs = %d: must be ≥ 1", f.Epochs)
	}
	if f.Mech != nil {
		if f.Mech.Dim() != f.Model.Dim() {
			return fmt.Errorf("fedsgd: mechanism of dimension %d for a model of %d parameters", f.Mech.Dim(), f.Model.Dim())
		}
		if f.Epochs > 1 {
			return fmt.Errorf("fedsgd: epochs = %d with a private mechanism: each user may perturb only once (one pass)", f.Epochs)
		}
		if math.IsInf(f.Clip, 1) {
			return errors.New("fedsgd: clip = +Inf with a private mechanism: reports need inputs in [−1, 1]")
		}
	}
	return nil
}

// Train runs the algorithm from θ (updated in place) over the users whose
// tuples are the rows of X (row-major, Model.Features() columns) with
// labels Y, in that order. It allocates nothing per user.
func (f *FedSGD) Train(theta, X, Y []float64, ws *Workspace, rng *rand.Rand) error {
	return f.TrainRows(theta, X, Y, nil, ws, rng)
}

// TrainRows is Train over the users rows[0], rows[1], … (row indices of X
// and Y, each used once per pass) instead of every row in order; nil
// means every row in order. A cross-validation fold trains on its rows
// without copying them.
func (f *FedSGD) TrainRows(theta, X, Y []float64, rows []int, ws *Workspace, rng *rand.Rand) error {
	if err := f.Check(); err != nil {
		return err
	}
	m := f.Model
	d, p := m.Dim(), m.Features()
	if len(theta) != d || len(X) != len(Y)*p {
		return fmt.Errorf("fedsgd: θ has %d entries (want %d), X %d values (want %d·%d)", len(theta), d, len(X), len(Y), p)
	}
	n := len(Y)
	if rows != nil {
		n = len(rows)
		for _, i := range rows {
			if i < 0 || i >= len(Y) {
				return fmt.Errorf("fedsgd: row %d of %d", i, len(Y))
			}
		}
	}
	ws.fit(d)
	for range max(f.Epochs, 1) {
		for lo := 0; lo < n; lo += f.Group {
			hi := min(lo+f.Group, n)
			var err error
			if rows == nil {
				err = f.aggregate(ws.sum, theta, X[lo*p:hi*p], Y[lo:hi], nil, ws, rng)
			} else {
				err = f.aggregate(ws.sum, theta, X, Y, rows[lo:hi], ws, rng)
			}
			if err != nil {
				return err
			}
			for j := range theta {
				theta[j] -= f.Eta * (ws.sum[j] + f.Lambda*theta[j])
			}
		}
	}
	return nil
}

// Aggregate writes to dst the server's estimate of the mean clipped
// gradient of one group, the users whose tuples are the rows of X: the
// mean of their reports Clip·M(clip(g_i)/Clip) (the exact mean of the
// clipped gradients for the non-private baseline), without the λθ term.
// It is one round of Train, for tests and diagnostics.
func (f *FedSGD) Aggregate(dst, theta, X, Y []float64, ws *Workspace, rng *rand.Rand) error {
	if err := f.Check(); err != nil {
		return err
	}
	m := f.Model
	if len(dst) != m.Dim() || len(theta) != m.Dim() || len(X) != len(Y)*m.Features() || len(Y) == 0 {
		return fmt.Errorf("fedsgd: Aggregate: dst %d, θ %d (want %d), X %d values for %d rows", len(dst), len(theta), m.Dim(), len(X), len(Y))
	}
	ws.fit(m.Dim())
	return f.aggregate(dst, theta, X, Y, nil, ws, rng)
}

// AggregateVariance writes to dst the exact variance of every coordinate
// of Aggregate's estimate on the same group: (c²/|G|²)·Σ_i Var[M_j | g_ij/c]
// with c = Clip, from the mechanism's closed form (0 without one).
func (f *FedSGD) AggregateVariance(dst, theta, X, Y []float64, ws *Workspace) {
	m := f.Model
	ws.fit(m.Dim())
	clear(dst)
	if f.Mech == nil {
		return
	}
	p, c := m.Features(), f.Clip
	for i, y := range Y {
		m.Grad(ws.g, theta, X[i*p:(i+1)*p], y)
		for j, v := range ws.g {
			dst[j] += f.Mech.CoordinateVariance(clamp(v, c) / c)
		}
	}
	k := c * c / float64(len(Y)*len(Y))
	for j := range dst {
		dst[j] *= k
	}
}

// aggregate is Aggregate without the checks, over the rows of X and Y
// listed in rows (nil: every row).
func (f *FedSGD) aggregate(dst, theta, X, Y []float64, rows []int, ws *Workspace, rng *rand.Rand) error {
	clear(dst)
	var err error
	if rows == nil {
		for i := range Y {
			if err = f.addReport(dst, theta, X, Y, i, ws, rng); err != nil {
				return err
			}
		}
	} else {
		for _, i := range rows {
			if err = f.addReport(dst, theta, X, Y, i, ws, rng); err != nil {
				return err
			}
		}
	}
	users := len(Y)
	if rows != nil {
		users = len(rows)
	}
	inv := 1 / float64(users)
	for j := range dst {
		dst[j] *= inv
	}
	return nil
}

// addReport adds user i's report (or clipped gradient) to dst.
func (f *FedSGD) addReport(dst, theta, X, Y []float64, i int, ws *Workspace, rng *rand.Rand) error {
	m := f.Model
	p, c := m.Features(), f.Clip
	g := ws.g
	m.Grad(g, theta, X[i*p:(i+1)*p], Y[i])
	if f.Mech == nil {
		for j, v := range g {
			dst[j] += clamp(v, c)
		}
		return nil
	}
	for j, v := range g {
		g[j] = clamp(v, c) / c
	}
	if err := f.Mech.PerturbVector(ws.rep, g, rng); err != nil {
		return err
	}
	for j, v := range ws.rep {
		dst[j] += c * v
	}
	return nil
}

// clamp returns v clipped to [−c, c] (v itself for c = +Inf).
func clamp(v, c float64) float64 {
	return max(-c, min(c, v))
}
