package lp

import (
	"fmt"
	"sort"
)

// Sparse is a matrix in compressed sparse row form. Build one with
// [NewSparse] from triplets; it is read-only afterwards.
type Sparse struct {
	rows, cols int
	rowPtr     []int // row r's entries are colIdx[rowPtr[r]:rowPtr[r+1]]
	colIdx     []int
	val        []float64
}

// Triplet is one entry (Row, Col, Val) of a sparse matrix.
type Triplet struct {
	Row, Col int
	Val      float64
}

// NewSparse returns the rows×cols matrix with the given entries. Entries
// at the same position are summed; explicit zeros are dropped. It returns
// an error for a position outside the matrix or a non-finite value.
func NewSparse(rows, cols int, entries []Triplet) (*Sparse, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("lp: sparse matrix of %d×%d: dimensions must be ≥ 0", rows, cols)
	}
	t := make([]Triplet, 0, len(entries))
	for _, e := range entries {
		if e.Row < 0 || e.Row >= rows || e.Col < 0 || e.Col >= cols {
			return nil, fmt.Errorf("lp: entry (%d, %d) outside the %d×%d matrix", e.Row, e.Col, rows, cols)
		}
		if e.Val != e.Val || e.Val > maxFinite || e.Val < -maxFinite {
			return nil, fmt.Errorf("lp: entry (%d, %d) = %v: must be finite", e.Row, e.Col, e.Val)
		}
		t = append(t, e)
	}
	sort.Slice(t, func(a, b int) bool {
		if t[a].Row != t[b].Row {
			return t[a].Row < t[b].Row
		}
		return t[a].Col < t[b].Col
	})
	s := &Sparse{rows: rows, cols: cols, rowPtr: make([]int, rows+1)}
	for k := 0; k < len(t); {
		e := t[k]
		v := 0.0
		for ; k < len(t) && t[k].Row == e.Row && t[k].Col == e.Col; k++ {
			v += t[k].Val
		}
		if v == 0 {
			continue
		}
		s.colIdx = append(s.colIdx, e.Col)
		s.val = append(s.val, v)
		s.rowPtr[e.Row+1]++
	}
	for r := 0; r < rows; r++ {
		s.rowPtr[r+1] += s.rowPtr[r]
	}
	return s, nil
}

const maxFinite = 1.7976931348623157e308

// Dims returns the numbers of rows and columns.
func (s *Sparse) Dims() (rows, cols int) {
	if s == nil {
		return 0, 0
	}
	return s.rows, s.cols
}

// NNZ returns the number of stored (nonzero) entries.
func (s *Sparse) NNZ() int {
	if s == nil {
		return 0
	}
	return len(s.val)
}

// Row returns the column indices and values of row r; the slices belong
// to the matrix.
func (s *Sparse) Row(r int) (cols []int, vals []float64) {
	return s.colIdx[s.rowPtr[r]:s.rowPtr[r+1]], s.val[s.rowPtr[r]:s.rowPtr[r+1]]
}

// At returns entry (r, c) (zero when not stored).
func (s *Sparse) At(r, c int) float64 {
	cols, vals := s.Row(r)
	k := sort.SearchInts(cols, c)
	if k < len(cols) && cols[k] == c {
		return vals[k]
	}
	return 0
}

// MulVec sets dst = s·x (len(dst) = rows, len(x) = cols).
func (s *Sparse) MulVec(dst, x []float64) {
	if s == nil {
		return
	}
	for r := 0; r < s.rows; r++ {
		v := 0.0
		for k := s.rowPtr[r]; k < s.rowPtr[r+1]; k++ {
			v += s.val[k] * x[s.colIdx[k]]
		}
		dst[r] = v
	}
}

// MulTransVecAdd adds alpha·sᵀ·y to dst (len(dst) = cols, len(y) = rows).
func (s *Sparse) MulTransVecAdd(dst []float64, alpha float64, y []float64) {
	if s == nil {
		return
	}
	for r := 0; r < s.rows; r++ {
		a := alpha * y[r]
		if a == 0 {
			continue
		}
		for k := s.rowPtr[r]; k < s.rowPtr[r+1]; k++ {
			dst[s.colIdx[k]] += s.val[k] * a
		}
	}
}

// transpose returns sᵀ in the same compressed row form (the columns of s).
func (s *Sparse) transpose() *Sparse {
	t := &Sparse{rows: s.cols, cols: s.rows, rowPtr: make([]int, s.cols+1),
		colIdx: make([]int, len(s.val)), val: make([]float64, len(s.val))}
	for _, c := range s.colIdx {
		t.rowPtr[c+1]++
	}
	for c := 0; c < s.cols; c++ {
		t.rowPtr[c+1] += t.rowPtr[c]
	}
	next := append([]int(nil), t.rowPtr[:s.cols]...)
	for r := 0; r < s.rows; r++ {
		for k := s.rowPtr[r]; k < s.rowPtr[r+1]; k++ {
			c := s.colIdx[k]
			t.colIdx[next[c]] = r
			t.val[next[c]] = s.val[k]
			next[c]++
		}
	}
	return t
}
