package fedlearn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Split is a train/test partition of the rows of a table, as row indices.
type Split struct {
	Train, Test []int
}

// TrainTest returns a random split of n rows with a fraction testFrac
// (rounded up, as scikit-learn's train_test_split) in the test part:
// Baek & Chung's 80/20 split is TrainTest(n, 0.2, rng).
func TrainTest(n int, testFrac float64, rng *rand.Rand) (Split, error) {
	if !(testFrac > 0 && testFrac < 1) || n < 2 {
		return Split{}, fmt.Errorf("train/test split of %d rows with test fraction %v: want n ≥ 2 and 0 < fraction < 1", n, testFrac)
	}
	perm := rng.Perm(n)
	nt := int(math.Ceil(testFrac * float64(n)))
	nt = min(max(nt, 1), n-1)
	return Split{Train: perm[nt:], Test: perm[:nt]}, nil
}

// KFold returns fold f (0 ≤ f < k) of a k-fold partition of the rows in
// the order perm (a permutation of 0…n−1): the test part is the f-th of k
// contiguous blocks of perm, sizes differing by at most one; the training
// part is the rest, in perm's order. Zhao et al.'s 10-fold
// cross-validation repeated 5 times is 5 permutations × 10 folds.
func KFold(perm []int, k, f int) (Split, error) {
	n := len(perm)
	if k < 2 || k > n || f < 0 || f >= k {
		return Split{}, fmt.Errorf("fold %d of %d-fold cross-validation on %d rows", f, k, n)
	}
	lo, hi := f*n/k, (f+1)*n/k
	train := make([]int, 0, n-(hi-lo))
	train = append(train, perm[:lo]...)
	train = append(train, perm[hi:]...)
	return Split{Train: train, Test: perm[lo:hi:hi]}, nil
}

// Gather copies the rows idx of X (p columns) and Y into fresh slices.
func Gather(X, Y []float64, p int, idx []int) (x, y []float64) {
	x = make([]float64, len(idx)*p)
	y = make([]float64, len(idx))
	for r, i := range idx {
		copy(x[r*p:(r+1)*p], X[i*p:(i+1)*p])
		y[r] = Y[i]
	}
	return x, y
}

// Standardise centres and scales every column of train and test (p
// columns) by the training part's mean and standard deviation (divisor n,
// scikit-learn's StandardScaler; a constant column is only centred).
func Standardise(train, test []float64, p int) {
	n := len(train) / p
	for j := range p {
		var s float64
		for i := range n {
			s += train[i*p+j]
		}
		mu := s / float64(n)
		var ss float64
		for i := range n {
			d := train[i*p+j] - mu
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(n))
		if sd == 0 {
			sd = 1
		}
		for _, x := range [][]float64{train, test} {
			for i := j; i < len(x); i += p {
				x[i] = (x[i] - mu) / sd
			}
		}
	}
}
