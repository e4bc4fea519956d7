package compare

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gocarina/gocsv"
	"gonum.org/v1/gonum/stat"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/results"
)

// Claim is a [[claims]] block of a spec (see harness.Claim).
type Claim = harness.Claim

// ClaimsFile is the claims report in the output directory: the paper's
// stated improvement ranges beside the measured ones (see Claim).
const ClaimsFile = harness.ClaimsFile

// againstName names the against side of a claim.
func againstName(c *Claim) string {
	if c.AgainstBest {
		return "best of " + strings.Join(c.Against, ",")
	}
	return strings.Join(c.Against, ",")
}

// Validate checks the spec's [[claims]] blocks against its metrics, its
// axes and the methods of its kind (the expansion of "*"); errors name the
// key and the claim index. The command line validates claims before a run
// writes anything. With a nil kind, a method axis of "*" accepts any name.
func Validate(s *harness.Spec, kind experiment.Kind) error {
	methods := experiment.Methods(kind, s.Axes.Method)
	if slices.Equal(methods, []string{"*"}) {
		methods = nil // a kind that cannot list them: any name is accepted
	}
	knownMethod := func(m string) bool { return methods == nil || slices.Contains(methods, m) }
	for i := range s.Claims {
		c := &s.Claims[i]
		key := func(k string) string { return fmt.Sprintf("claims[%d].%s", i, k) }
		if c.Source == "" {
			return s.KeyError(key("source"), "is required (where the paper states the claim, e.g. \"Sec. 6.2, Fig. 4e-h\")")
		}
		if c.Metric == "" {
			return s.KeyError(key("metric"), "is required (one of the spec's metrics: %s)", strings.Join(s.Metrics, ", "))
		}
		if !slices.Contains(s.Metrics, c.Metric) {
			return s.KeyError(key("metric"), "unknown metric %q: not in the spec's metrics (%s)", c.Metric, strings.Join(s.Metrics, ", "))
		}
		if c.Method == "" {
			return s.KeyError(key("method"), "is required")
		}
		if !knownMethod(c.Method) {
			return s.KeyError(key("method"), "unknown method %q: not in axes.method (%s)", c.Method, strings.Join(methods, ", "))
		}
		if len(c.Against) == 0 {
			return s.KeyError(key("against"), "is required")
		}
		for j, a := range c.Against {
			if !knownMethod(a) {
				return s.KeyError(fmt.Sprintf("claims[%d].against[%d]", i, j), "unknown method %q: not in axes.method (%s)", a, strings.Join(methods, ", "))
			}
			if a == c.Method {
				return s.KeyError(fmt.Sprintf("claims[%d].against[%d]", i, j), "method %q is compared with itself", a)
			}
			if slices.Contains(c.Against[:j], a) {
				return s.KeyError(fmt.Sprintf("claims[%d].against[%d]", i, j), "duplicate method %q", a)
			}
		}
		if c.PaperMin == nil {
			return s.KeyError(key("paper_min"), "is required (percent improvement)")
		}
		if c.PaperMax == nil {
			return s.KeyError(key("paper_max"), "is required (percent improvement)")
		}
		lo, hi := *c.PaperMin, *c.PaperMax
		if math.IsNaN(lo) || math.IsInf(lo, 0) || lo > 100 {
			return s.KeyError(key("paper_min"), "must be finite and ≤ 100 (percent), got %v", lo)
		}
		if math.IsNaN(hi) || math.IsInf(hi, 0) || hi > 100 {
			return s.KeyError(key("paper_max"), "must be finite and ≤ 100 (percent), got %v", hi)
		}
		if lo > hi {
			return s.KeyError(key("paper_min"), "%v is greater than paper_max %v", lo, hi)
		}
		for _, k := range slices.Sorted(maps.Keys(c.Where)) {
			if err := checkWhere(s, key("where."+k), k, c.Where[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkWhere checks that a where filter names an axis and only values the
// axis takes.
func checkWhere(s *harness.Spec, key, axis string, values []string) error {
	if len(values) == 0 {
		return s.KeyError(key, "is empty")
	}
	var valid []string
	switch axis {
	case "method", "experiment":
		return s.KeyError(key, "cannot filter on %s (the claim names its methods)", axis)
	case "dataset":
		for _, d := range s.Datasets {
			valid = append(valid, d.Name)
		}
	case "eps":
		for _, e := range s.Axes.Eps {
			valid = append(valid, strconv.FormatFloat(e, 'g', -1, 64))
		}
	case "n":
		for _, n := range s.Axes.N {
			valid = append(valid, strconv.Itoa(n))
		}
		if s.Quick != nil {
			for _, n := range s.Quick.N {
				valid = append(valid, strconv.Itoa(n))
			}
		}
	default:
		vs, ok := s.Axes.Params[axis]
		if !ok {
			axes := append([]string{"dataset", "eps", "n"}, slices.Sorted(maps.Keys(s.Axes.Params))...)
			return s.KeyError(key, "unknown axis %q (valid: %s)", axis, strings.Join(axes, ", "))
		}
		valid = vs
	}
	for j, v := range values {
		if !whereContains(axis, valid, v) {
			return s.KeyError(fmt.Sprintf("%s[%d]", key, j), "%q is not a value of the %s axis (%s)", v, axis, strings.Join(valid, ", "))
		}
	}
	return nil
}

// whereContains compares eps numerically (0.10 is 0.1) and the rest as text.
func whereContains(axis string, valid []string, v string) bool {
	if axis == "eps" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return false
		}
		for _, s := range valid {
			if y, err := strconv.ParseFloat(s, 64); err == nil && x == y {
				return true
			}
		}
		return false
	}
	return slices.Contains(valid, v)
}

// matches reports whether a cell passes the claim's where filter.
func matches(c *Claim, cell results.Cell) bool {
	for axis, values := range c.Where {
		v, ok := cell.Field(axis)
		if !ok || !whereContains(axis, values, v) {
			return false
		}
	}
	return true
}

// SE methods recorded in Row.SEMethod.
const (
	// SEPaired: both methods have the same trial indices, so trial t of the
	// one is paired with trial t of the other, and the delta method for the
	// ratio of means r = m̄/ā uses the paired residuals
	// dₜ = mₜ − r·aₜ: SE(r) = sd(d)/(√k·ā). The covariance of the pair is
	// thereby included (it is estimated as ≈ 0 when the trials are
	// independent, so the formula is valid either way).
	SEPaired = "paired-delta"
	// SEUnpaired: different trial counts or indices; the delta method for
	// independent means: SE(r) = r·√(se(m)²/m̄² + se(a)²/ā²).
	SEUnpaired = "unpaired-delta"
)

// Row is one row of claims.csv: Kind "cell" for one claim in one cell
// (against one method), Kind "summary" for one claim over all its cells.
// Improvements and their standard errors are percentages; columns that do
// not apply to the kind of row are empty.
type Row struct {
	Claim   int           `csv:"claim"`
	Kind    string        `csv:"row"`
	Source  string        `csv:"source"`
	Metric  string        `csv:"metric"`
	Method  string        `csv:"method"`
	Against string        `csv:"against"`
	Dataset string        `csv:"dataset"`
	Eps     results.Float `csv:"eps"`
	N       string        `csv:"n"`
	Params  string        `csv:"params"`
	// Trials is the number of trials of the method (cell rows only).
	Trials      string        `csv:"trials"`
	MethodMean  results.Float `csv:"method_mean"`
	AgainstMean results.Float `csv:"against_mean"`
	Improvement results.Float `csv:"improvement_pct"`
	SE          results.Float `csv:"se_pct"`
	SEMethod    string        `csv:"se_method"`
	// Significant: the improvement exceeds 2 SE (cell rows). One-sided: a
	// loss beyond 2 SE also reads false; the improvement's sign tells.
	Significant string        `csv:"significant"`
	PaperMin    results.Float `csv:"paper_min_pct"`
	PaperMax    results.Float `csv:"paper_max_pct"`
	// MeasuredMin and MeasuredMax bound the cells' improvements (summary).
	MeasuredMin results.Float `csv:"measured_min_pct"`
	MeasuredMax results.Float `csv:"measured_max_pct"`
	// Cells, SignificantCells and InRangeCells count the cell rows, those
	// significant at 2 SE and those inside the paper's range (summary).
	Cells            string `csv:"cells"`
	SignificantCells string `csv:"significant_cells"`
	InRangeCells     string `csv:"in_range_cells"`
	Note             string `csv:"note"`
}

// Evaluate computes the spec's claims from per-trial rows (rows.csv):
// for each claim, one "cell" row per matching cell (and against method) in
// order of first appearance in rows, then one "summary" row. A cell where
// either method has no rows of the metric is left out; a claim that matches
// no cell has a summary row with zero cells.
func Evaluate(claims []Claim, rows []results.Row) []Row {
	// Group the trial values by (cell without method, method, metric).
	type key struct {
		group  results.Cell // Method empty
		method string
		metric string
	}
	type trials struct {
		index  []int
		values []float64
	}
	data := make(map[key]*trials)
	var groups []results.Cell
	seen := make(map[results.Cell]bool)
	for i := range rows {
		r := &rows[i]
		g := r.Cell()
		g.Method = ""
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
		k := key{g, r.Method, r.Metric}
		t := data[k]
		if t == nil {
			t = &trials{}
			data[k] = t
		}
		t.index = append(t.index, r.Trial)
		t.values = append(t.values, float64(r.Value))
	}
	var out []Row
	for ci := range claims {
		c := &claims[ci]
		paperMin, paperMax := math.NaN(), math.NaN()
		if c.PaperMin != nil {
			paperMin = *c.PaperMin
		}
		if c.PaperMax != nil {
			paperMax = *c.PaperMax
		}
		var cells []Row
		for _, g := range groups {
			if !matches(c, g) {
				continue
			}
			m := data[key{g, c.Method, c.Metric}]
			if m == nil {
				continue
			}
			against := c.Against
			if c.AgainstBest {
				best, bestMean := "", math.Inf(1)
				for _, a := range c.Against {
					if t := data[key{g, a, c.Metric}]; t != nil {
						if mean := stat.Mean(t.values, nil); mean < bestMean || best == "" {
							best, bestMean = a, mean
						}
					}
				}
				against = nil
				if best != "" {
					against = []string{best}
				}
			}
			for _, a := range against {
				t := data[key{g, a, c.Metric}]
				if t == nil {
					continue
				}
				imp, se, how := improvement(m.index, m.values, t.index, t.values)
				cells = append(cells, Row{
					Claim: ci, Kind: "cell", Source: c.Source, Metric: c.Metric, Method: c.Method,
					Against: a, Dataset: g.Dataset, Eps: g.Eps, N: strconv.Itoa(g.N), Params: g.Params,
					Trials:     strconv.Itoa(len(m.values)),
					MethodMean: results.Float(stat.Mean(m.values, nil)), AgainstMean: results.Float(stat.Mean(t.values, nil)),
					Improvement: results.Float(imp), SE: results.Float(se), SEMethod: how,
					Significant: strconv.FormatBool(imp > 2*se),
					PaperMin:    results.Float(paperMin), PaperMax: results.Float(paperMax),
					MeasuredMin: results.Float(math.NaN()), MeasuredMax: results.Float(math.NaN()),
				})
			}
		}
		out = append(out, cells...)
		sum := Row{
			Claim: ci, Kind: "summary", Source: c.Source, Metric: c.Metric, Method: c.Method,
			Against: againstName(c), Eps: results.Float(math.NaN()),
			MethodMean: results.Float(math.NaN()), AgainstMean: results.Float(math.NaN()),
			Improvement: results.Float(math.NaN()), SE: results.Float(math.NaN()),
			PaperMin: results.Float(paperMin), PaperMax: results.Float(paperMax),
			MeasuredMin: results.Float(math.NaN()), MeasuredMax: results.Float(math.NaN()),
			Note: c.Note,
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		sig, in := 0, 0
		hows := map[string]bool{}
		for _, r := range cells {
			v := float64(r.Improvement)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if r.Significant == "true" {
				sig++
			}
			if v >= paperMin && v <= paperMax {
				in++
			}
			hows[r.SEMethod] = true
		}
		if len(cells) > 0 {
			sum.MeasuredMin, sum.MeasuredMax = results.Float(lo), results.Float(hi)
		}
		sum.SEMethod = strings.Join(slices.Sorted(maps.Keys(hows)), ",")
		sum.Cells = strconv.Itoa(len(cells))
		sum.SignificantCells = strconv.Itoa(sig)
		sum.InRangeCells = strconv.Itoa(in)
		out = append(out, sum)
	}
	return out
}

// improvement returns 100·(1 − m̄/ā), its standard error (NaN with fewer
// than two trials on a side) and which SE method was used (SEPaired when
// both sides have the same trial indices, SEUnpaired otherwise).
func improvement(mi []int, m []float64, ai []int, a []float64) (imp, se float64, how string) {
	mm, am := stat.Mean(m, nil), stat.Mean(a, nil)
	r := mm / am
	imp = 100 * (1 - r)
	paired := len(mi) == len(ai)
	if paired {
		pos := make(map[int]int, len(ai))
		for j, t := range ai {
			pos[t] = j
		}
		for _, t := range mi {
			if _, ok := pos[t]; !ok {
				paired = false
				break
			}
		}
		if paired && len(pos) == len(ai) {
			k := len(m)
			if k < 2 {
				return imp, math.NaN(), SEPaired
			}
			var ss float64
			for j, t := range mi {
				d := m[j] - r*a[pos[t]]
				ss += d * d // the residuals have mean 0 by the choice of r
			}
			sd := math.Sqrt(ss / float64(k-1))
			return imp, 100 * sd / (math.Sqrt(float64(k)) * math.Abs(am)), SEPaired
		}
	}
	if len(m) < 2 || len(a) < 2 {
		return imp, math.NaN(), SEUnpaired
	}
	relVar := func(xs []float64, mean float64) float64 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		return ss / float64(len(xs)-1) / float64(len(xs)) / (mean * mean)
	}
	return imp, 100 * math.Abs(r) * math.Sqrt(relVar(m, mm)+relVar(a, am)), SEUnpaired
}

// WriteCSV writes claim rows as CSV with a header.
func WriteCSV(w io.Writer, rows []Row) error {
	return gocsv.Marshal(rows, w)
}

// Print writes a short table of the summary rows: the paper's range
// beside the measured one, and how many cells are significant improvements.
func Print(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "claim\tsource\tmetric\tmethod\tagainst\tpaper %\tmeasured %\tcells\t>2SE\tin range\tSE")
	pct := func(f results.Float) string {
		if !f.Known() {
			return "—"
		}
		return strconv.FormatFloat(float64(f), 'f', 1, 64)
	}
	for _, r := range rows {
		if r.Kind != "summary" {
			continue
		}
		measured := "no cells"
		if r.MeasuredMin.Known() {
			measured = pct(r.MeasuredMin) + " – " + pct(r.MeasuredMax)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s – %s\t%s\t%s\t%s\t%s\t%s\n",
			r.Claim, r.Source, r.Metric, r.Method, r.Against, pct(r.PaperMin), pct(r.PaperMax),
			measured, r.Cells, r.SignificantCells, r.InRangeCells, r.SEMethod)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "improvement % = 100·(1 − method/against) of the metric's trial means per cell;"+
		" SE by the delta method on the ratio of means (paired-delta: paired per-trial residuals)")
	return err
}

// Report evaluates the spec's claims on dir/rows.csv, writes
// dir/claims.csv atomically and prints the table to w (when not nil). A
// spec without claims writes nothing and returns nil rows.
func Report(s *harness.Spec, dir string, w io.Writer) ([]Row, error) {
	if len(s.Claims) == 0 {
		return nil, nil
	}
	rows, err := results.ReadRowsFile(filepath.Join(dir, harness.RowsFile))
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if rows[i].Experiment != s.Name {
			return nil, fmt.Errorf("%s holds experiment %q, not %q: the claims are of another spec", filepath.Join(dir, harness.RowsFile), rows[i].Experiment, s.Name)
		}
	}
	out := Evaluate(s.Claims, rows)
	if err := results.WriteFileAtomic(filepath.Join(dir, ClaimsFile), func(bw *bufio.Writer) error {
		return WriteCSV(bw, out)
	}); err != nil {
		return nil, err
	}
	if w != nil {
		if err := Print(w, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}
