package datasets

import "fmt"

// MaxGroups is the most distinct labels a group column may hold (and the
// most groups SyntheticGrouped makes). Paper 002 uses at most 64; the bound
// stops a continuous column named as the group column from making a group
// per user.
const MaxGroups = 4096

// Grouped is a dataset for group-mean estimation (Raab et al., Section 3):
// user i holds a group Groups[i] ∈ {0, …, D−1} and a raw value Values[i] in
// the attribute's fixed range [Lo, Hi]. Values stay raw, so that the truth
// m_g (Means) is computed on the raw data; Scaled maps them onto [−1, 1] for
// the mechanisms (App. C). Labels[g] names group g.
type Grouped struct {
	Name string
	// Groups holds each user's group, 0 … D−1.
	Groups []int32
	// Values holds each user's raw value (in [Lo, Hi] unless the source
	// allowed clipping; Scaled clips).
	Values []float64
	// D is the number of groups, len(Labels). A group may be empty (n_g = 0:
	// a prefix of a file, a size-0 synthetic group).
	D      int
	Labels []string
	// Lo and Hi are the fixed a-priori range of the value (the generator's
	// range, or Tables 1/2 for real data), never the data's min and max
	// (the paper scales by a-priori ranges only, App. C).
	Lo, Hi float64
	// Source says where the data came from; Substitute marks a stand-in
	// that is not the paper's own data.
	Source     string
	Substitute bool
}

// Len returns the number of users.
func (g *Grouped) Len() int { return len(g.Values) }

// Sizes returns n_g, the number of users of each group.
func (g *Grouped) Sizes() []int {
	sizes := make([]int, g.D)
	for _, k := range g.Groups {
		sizes[k]++
	}
	return sizes
}

// Means returns the true group means m_g on the raw values, NaN for an
// empty group. Each is a compensated sum (floats.SumCompensated, as every
// ground truth of the package): the values are gathered group by group into
// one scratch slice by a counting sort, so the cost is O(n) and one
// allocation of n floats.
func (g *Grouped) Means() []float64 {
	sizes := g.Sizes()
	start := make([]int, g.D+1)
	for k, s := range sizes {
		start[k+1] = start[k] + s
	}
	next := append([]int(nil), start[:g.D]...)
	buf := make([]float64, len(g.Values))
	for i, k := range g.Groups {
		buf[next[k]] = g.Values[i]
		next[k]++
	}
	means := make([]float64, g.D)
	for k := range means {
		means[k] = mean(buf[start[k]:start[k+1]])
	}
	return means
}

// Scaled writes T(x) = 2(x − Lo)/(Hi − Lo) − 1 of every value into
// dst[:Len()], x first clipped to [Lo, Hi] (App. C; the authors' code
// clips): the mechanisms' input on [−1, 1]. It panics if dst is shorter
// than Len(). It does not allocate.
func (g *Grouped) Scaled(dst []float64) {
	if len(dst) < len(g.Values) {
		panic(fmt.Sprintf("datasets: Grouped.Scaled: dst has %d elements, need %d", len(dst), len(g.Values)))
	}
	lo, hi := g.Lo, g.Hi
	w := hi - lo
	for i, x := range g.Values {
		if x < lo {
			x = lo
		} else if x > hi {
			x = hi
		}
		// Every floating-point step is monotone in x, so lo maps to −1
		// and hi to 1 exactly and nothing leaves [−1, 1].
		dst[i] = 2*(x-lo)/w - 1
	}
}

// check reports the first inconsistency of g: a range that is not
// finite lo < hi, lengths that differ, a group outside [0, D), or D ≠
// len(Labels).
func (g *Grouped) check() error {
	if err := checkRange(g.Lo, g.Hi); err != nil {
		return fmt.Errorf("grouped %q: range: %v", g.Name, err)
	}
	if len(g.Groups) != len(g.Values) {
		return fmt.Errorf("grouped %q: %d groups for %d values", g.Name, len(g.Groups), len(g.Values))
	}
	if g.D != len(g.Labels) {
		return fmt.Errorf("grouped %q: D = %d but %d labels", g.Name, g.D, len(g.Labels))
	}
	for i, k := range g.Groups {
		if k < 0 || int(k) >= g.D {
			return fmt.Errorf("grouped %q: user %d has group %d, outside [0, %d)", g.Name, i, k, g.D)
		}
	}
	return nil
}

// Grouped returns the grouped view of a dataset built with a group column
// (source "file" with group_column, or a stand-in) with the fixed range
// [lo, hi]: the real data's a-priori range (Tables 1/2), never the data's
// min–max (App. C). The view shares Groups, Values and GroupLabels with d
// (no copy). A dataset whose spec declared its range (normalise = "fixed",
// as every grouped spec does) refuses any other range, so that the result
// rows' normalisation and the scaling the mechanisms see agree.
func (d *Dataset) Grouped(lo, hi float64) (*Grouped, error) {
	if d.Groups == nil {
		return nil, fmt.Errorf("dataset %q has no groups: set group_column (source %q) or use source %q", d.Name, SourceFile, SourceStandin)
	}
	if d.Dim() != 1 {
		return nil, fmt.Errorf("dataset %q: a grouped dataset has one attribute, got dims = %d", d.Name, d.Dims)
	}
	nm := d.Normalisation
	if nm.Rule == RuleFixed && (lo != nm.Lo || hi != nm.Hi) {
		return nil, fmt.Errorf("dataset %q: Grouped(lo=%v, hi=%v), but the dataset declares the fixed range [%v, %v] (its spec's lo, hi)", d.Name, lo, hi, nm.Lo, nm.Hi)
	}
	g := &Grouped{
		Name:       d.Name,
		Groups:     d.Groups,
		Values:     d.Values,
		D:          len(d.GroupLabels),
		Labels:     d.GroupLabels,
		Lo:         lo,
		Hi:         hi,
		Source:     d.Source,
		Substitute: d.Substitute,
	}
	if err := g.check(); err != nil {
		return nil, err
	}
	return g, nil
}

// Ungrouped returns an error naming the dataset and the kind when d is
// grouped: a grouped dataset's Values are raw (in [Lo, Hi], not [−1, 1]),
// so a kind that reads Values as mechanism inputs must refuse it.
func (d *Dataset) Ungrouped(kind string) error {
	if d.Groups == nil {
		return nil
	}
	return fmt.Errorf("dataset %s has a group column: its values are raw, not on [-1, 1]; kind %s reads values on [-1, 1] (kind groupmean takes grouped data)", d.Name, kind)
}
