package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/metrics"
	"github.com/ldpbench/ldpbench/tables"
)

// Spec is one experiment: what to sweep, over which data, which metrics and
// which figures. Its TOML form is documented in README.md and runs/.
type Spec struct {
	Name        string          `toml:"name" json:"name"`
	Title       string          `toml:"title" json:"-"`
	Description string          `toml:"description" json:"-"`
	Kind        string          `toml:"kind" json:"kind"`
	Seed        uint64          `toml:"seed" json:"seed"`
	Trials      int             `toml:"trials" json:"trials"`
	Metrics     []string        `toml:"metrics" json:"metrics"`
	Axes        Axes            `toml:"axes" json:"axes"`
	Datasets    []datasets.Spec `toml:"datasets" json:"datasets"`
	Quick       *Quick          `toml:"quick" json:"-"`
	Figures     []figures.Spec  `toml:"figures" json:"-"`
	// Tables are projections of the summary written as CSV and Markdown
	// (package tables); they change no row.
	Tables []tables.Spec `toml:"tables" json:"-"`
	// Claims are the paper's stated improvement ranges, reported beside
	// the measured ones in claims.csv by package compare; they change no
	// row.
	Claims []Claim `toml:"claims" json:"-"`
	// Mechanisms are external mechanisms, programs that speak the
	// protocol of docs/external.md, registered under their names for the
	// duration of a run (harness/external.go). Their names and commands
	// are part of the hash: a changed program path changes the rows'
	// spec_sha256.
	Mechanisms []ExternalMechanism `toml:"mechanisms" json:"mechanisms,omitempty"`
	// Cells, when given, keeps only the cells of the axes' cross product
	// that some entry names, and Exclude drops those that some entry
	// names (CellSet, harness/cells.go): a paper's grid that is not a
	// cross product. They are part of the hash (they change which rows
	// there are), left out of it when absent, so that a spec without them
	// hashes as before; a kept cell is seeded by its key, as in the whole
	// cross product, so its rows do not change.
	Cells   []CellSet `toml:"cells" json:"cells,omitempty"`
	Exclude []CellSet `toml:"exclude" json:"exclude,omitempty"`
	// Timing marks a timing spec: one whose metrics are wall times, whose
	// trials the runner runs one at a time whatever -j (harness/timing.go).
	// A spec that records a wall-time metric (aggregation_seconds) is one
	// without the key; timing = false is then refused.
	Timing *bool `toml:"timing" json:"-"`

	// Path is the file the spec was read from ("" for a Go value); a
	// shipped spec read from the binary (OpenSpec) is named
	// "runs/<name>.toml (shipped)".
	Path string `toml:"-" json:"-"`
	// raw is the text the spec was decoded from, copied as it is into
	// the output directory.
	raw []byte
	// Set by Scaled(true): the keys that Cells, Exclude and Axes.N were
	// read from ("" for the top-level ones), for errors, and that the
	// spec is at quick scale already.
	cellsKey, excludeKey, nKey string
	quickScaled                bool
}

// Axes are the swept parameters. Every combination is a cell, for every
// dataset, unless the spec's cells or exclude lists name the cells it runs.
type Axes struct {
	// Method lists mechanism (or estimator) names; "*" means every name the
	// kind accepts.
	Method []string  `toml:"method" json:"method"`
	Eps    []float64 `toml:"eps" json:"eps"`
	N      []int     `toml:"n" json:"n"`
	// Params are further axes, given as text and interpreted by the kind.
	Params map[string][]string `toml:"params" json:"params,omitempty"`
}

// Quick overrides the scale for CI and smoke runs (--quick).
type Quick struct {
	Trials int   `toml:"trials"`
	N      []int `toml:"n"`
	// Cells and Exclude, when given, replace the spec's at quick scale
	// (whose n are other than the full scale's).
	Cells   []CellSet `toml:"cells"`
	Exclude []CellSet `toml:"exclude"`
}

// LoadSpec reads and validates a TOML spec. Unknown keys are errors, so that
// a misspelt key is never silently ignored.
func LoadSpec(path string) (*Spec, error) {
	s, err := loadSpec(path)
	if err != nil {
		// The message may quote the file, and the file may be anything:
		// never echo control bytes to a terminal.
		return nil, errors.New(printable(err.Error()))
	}
	return s, nil
}

func loadSpec(path string) (*Spec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", path, err)
	}
	return parseSpec(path, raw)
}

// parseSpec decodes and validates the TOML text raw; path names it in
// errors.
func parseSpec(path string, raw []byte) (*Spec, error) {
	text := string(raw)
	// First as plain data: only syntax can fail, and the keys are checked
	// in file order (checkKeys), so that the error is always the first
	// problem of the file.
	var doc map[string]any
	md, err := toml.Decode(text, &doc)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("spec %s: %s", path, perr.ErrorWithPosition())
		}
		return nil, fmt.Errorf("spec %s: %w", path, err)
	}
	if err := checkKeys(md, doc); err != nil {
		return nil, fmt.Errorf("spec %s: %w", path, err)
	}
	var s Spec
	md, err = toml.Decode(text, &s)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("spec %s: %s", path, perr.ErrorWithPosition())
		}
		return nil, fmt.Errorf("spec %s: %w", path, err)
	}
	// TOML integers are signed: a negative seed would wrap into Spec.Seed.
	var signed struct {
		Seed int64 `toml:"seed"`
	}
	if _, err := toml.Decode(text, &signed); err == nil && signed.Seed < 0 {
		return nil, fmt.Errorf("spec %s: key \"seed\": must be ≥ 0, got %d", path, signed.Seed)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = fmt.Sprintf("%q", k.String())
		}
		return nil, fmt.Errorf("spec %s: unknown key %s", path, strings.Join(keys, ", "))
	}
	s.Path, s.raw = path, raw
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// printable replaces what a terminal would interpret (control bytes other
// than newline and tab, invalid UTF-8) by Go escapes.
func printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\n' || r == '\t' || unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		}
	}
	return b.String()
}

// where names the spec in error messages.
func (s *Spec) where() string {
	if s.Path != "" {
		return "spec " + s.Path
	}
	return fmt.Sprintf("spec %q", s.Name)
}

// KeyError returns an error about one key of the spec, naming the spec
// and the key: `spec runs/x.toml: key "axes.eps[2]": must be > 0`.
func (s *Spec) KeyError(key, format string, args ...any) error {
	return fmt.Errorf("%s: key %q: %s", s.where(), key, fmt.Sprintf(format, args...))
}

func (s *Spec) errorf(key, format string, args ...any) error { return s.KeyError(key, format, args...) }

// Check validates the spec against the kinds a program knows and returns
// the spec's kind: Validate, then the kind key and the metrics (each one the
// kind measures and package metrics describes).
func (s *Spec) Check(kinds experiment.Registry) (experiment.Kind, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	kind, err := kinds.Lookup(s.Kind)
	if err != nil {
		return nil, s.errorf("kind", "%v", err)
	}
	// With the kind, a method axis "*" is its methods: the cell lists'
	// methods and what they keep can be checked.
	if err := s.checkCellsWith(experiment.Methods(kind, s.Axes.Method)); err != nil {
		return nil, err
	}
	valid := kind.Metrics()
	if len(s.Metrics) == 0 {
		return nil, s.errorf("metrics", "is required (valid for kind %s: %s)", s.Kind, strings.Join(valid, ", "))
	}
	for i, m := range s.Metrics {
		if !slices.Contains(valid, m) {
			return nil, s.errorf(fmt.Sprintf("metrics[%d]", i), "unknown metric %q for kind %s (valid: %s)", m, s.Kind, strings.Join(valid, ", "))
		}
		if _, ok := metrics.Describe(m); !ok {
			return nil, fmt.Errorf("kind %s: metric %q is not described in package metrics (metrics.Describe): add it there", s.Kind, m)
		}
	}
	return kind, nil
}

// The budgets a spec may sweep. Below MinEps the variances (about 4/ε²
// and worse) and e^ε − 1 lose most of their digits; above MaxEps e^ε and
// e^{2ε} head for overflow. The papers sweep 0.01 to 20.
const (
	MinEps = 1e-6
	MaxEps = 100.0
)

// validName is what a spec's name may be: it names out/<name>, so no path
// separator, no "." or "..", no hidden directory.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkDuplicates refuses a value given twice on one axis: its cells would
// be pooled in the summary (twice the trials, a CI too narrow).
func (s *Spec) checkDuplicates() error {
	dup := func(key string, vals []string) error {
		seen := map[string]int{}
		for i, v := range vals {
			if j, ok := seen[v]; ok {
				return s.errorf(fmt.Sprintf("%s[%d]", key, i), "%q is %s[%d] again: each value once", v, key, j)
			}
			seen[v] = i
		}
		return nil
	}
	if err := dup("axes.method", s.Axes.Method); err != nil {
		return err
	}
	eps := make([]string, len(s.Axes.Eps))
	for i, e := range s.Axes.Eps {
		eps[i] = strconv.FormatFloat(e, 'g', -1, 64)
	}
	if err := dup("axes.eps", eps); err != nil {
		return err
	}
	for _, ax := range []struct {
		key string
		ns  []int
	}{{"axes.n", s.Axes.N}, {"quick.n", s.quickN()}} {
		txt := make([]string, len(ax.ns))
		for i, n := range ax.ns {
			txt[i] = strconv.Itoa(n)
		}
		if err := dup(ax.key, txt); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Axes.Params)) {
		if err := dup("axes.params."+k, s.Axes.Params[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkText refuses control characters in what becomes a column of the rows
// (methods, dataset names, params): CSV cannot keep a carriage return, and a
// newline or an escape has no place in a name.
func (s *Spec) checkText() error {
	bad := func(v string) bool {
		return strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f })
	}
	for i, m := range s.Axes.Method {
		if bad(m) {
			return s.errorf(fmt.Sprintf("axes.method[%d]", i), "%q holds a control character", m)
		}
	}
	for i, d := range s.Datasets {
		if bad(d.Name) {
			return s.errorf(fmt.Sprintf("datasets[%d].name", i), "%q holds a control character", d.Name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Axes.Params)) {
		if bad(k) {
			return s.errorf("axes.params."+k, "the key holds a control character")
		}
		for i, v := range s.Axes.Params[k] {
			if bad(v) {
				return s.errorf(fmt.Sprintf("axes.params.%s[%d]", k, i), "%q holds a control character", v)
			}
		}
	}
	return nil
}

func (s *Spec) quickN() []int {
	if s.Quick == nil {
		return nil
	}
	return s.Quick.N
}

// Validate checks what the spec says on its own, whatever its kind, and
// names the offending key; Check adds what depends on the kind.
func (s *Spec) Validate() error {
	for _, check := range []func() error{
		s.checkRequired,
		s.checkEps,
		s.checkDuplicates,
		s.checkText,
		func() error { return checkN(s, "axes.n", s.Axes.N) },
		s.checkParams,
		s.checkDatasets,
		s.checkQuick,
		s.checkCells,
		s.checkTiming,
		s.checkOutputs,
		s.validateExternal,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkRequired checks the keys without which there is no run: its name
// (a plain directory name), kind, trials, metrics, methods and ε.
func (s *Spec) checkRequired() error {
	if s.Name == "" {
		return s.errorf("name", "is required")
	}
	if !validName.MatchString(s.Name) {
		return s.errorf("name", "%q: want letters, digits, '.', '_' or '-', not starting with '.' (it names the output directory out/<name>)", s.Name)
	}
	if s.Kind == "" {
		return s.errorf("kind", "is required")
	}
	if s.Trials < 1 {
		return s.errorf("trials", "must be ≥ 1, got %d", s.Trials)
	}
	if len(s.Metrics) == 0 {
		return s.errorf("metrics", "is required")
	}
	if len(s.Axes.Method) == 0 {
		return s.errorf("axes.method", "is required")
	}
	if len(s.Axes.Eps) == 0 {
		return s.errorf("axes.eps", "is required")
	}
	return nil
}

// checkEps keeps every ε within [MinEps, MaxEps], where the mechanisms'
// closed forms hold in float64.
func (s *Spec) checkEps() error {
	for i, e := range s.Axes.Eps {
		if math.IsNaN(e) || math.IsInf(e, 0) || e <= 0 {
			return s.errorf(fmt.Sprintf("axes.eps[%d]", i), "must be finite and > 0, got %v", e)
		}
		if e < MinEps || e > MaxEps {
			return s.errorf(fmt.Sprintf("axes.eps[%d]", i), "%v is outside [%g, %g], where the mechanisms' closed forms lose float64 precision or overflow", e, MinEps, MaxEps)
		}
	}
	return nil
}

// checkParams checks the params axes, in key order: each has values, and
// its name can be written in a cell's params ("k=v;k=v").
func (s *Spec) checkParams() error {
	for _, k := range slices.Sorted(maps.Keys(s.Axes.Params)) {
		vs := s.Axes.Params[k]
		if len(vs) == 0 {
			return s.errorf("axes.params."+k, "is empty")
		}
		if strings.ContainsAny(k, "=;") {
			return s.errorf("axes.params."+k, "a parameter name must not contain '=' or ';'")
		}
	}
	return nil
}

// checkDatasets checks that there is a dataset, each valid and named once.
func (s *Spec) checkDatasets() error {
	if len(s.Datasets) == 0 {
		return s.errorf("datasets", "at least one dataset is required")
	}
	names := make(map[string]bool)
	for i, d := range s.Datasets {
		if err := d.Validate(); err != nil {
			return fmt.Errorf("%s: datasets[%d]: %w", s.where(), i, err)
		}
		if names[d.Name] {
			return s.errorf(fmt.Sprintf("datasets[%d].name", i), "duplicate dataset name %q", d.Name)
		}
		names[d.Name] = true
	}
	return nil
}

// checkQuick checks the [quick] block, when there is one.
func (s *Spec) checkQuick() error {
	if s.Quick == nil {
		return nil
	}
	if s.Quick.Trials < 0 {
		return s.errorf("quick.trials", "must be ≥ 1 (or left out: the trials key then holds), got %d", s.Quick.Trials)
	}
	if len(s.Quick.N) > 0 {
		return checkN(s, "quick.n", s.Quick.N)
	}
	return nil
}

// checkOutputs checks the figures and tables the run draws.
func (s *Spec) checkOutputs() error {
	for i := range s.Figures {
		if err := s.Figures[i].Validate(); err != nil {
			return fmt.Errorf("%s: figures[%d]: %w", s.where(), i, err)
		}
	}
	if err := tables.ValidateAll(s.Tables); err != nil {
		return fmt.Errorf("%s: %w", s.where(), err)
	}
	return nil
}

func checkN(s *Spec, key string, ns []int) error {
	if len(ns) == 0 {
		return s.errorf(key, "is required")
	}
	for i, n := range ns {
		if n < 1 {
			return s.errorf(fmt.Sprintf("%s[%d]", key, i), "must be ≥ 1, got %d", n)
		}
	}
	return nil
}

// Scaled returns the spec at quick scale when quick is true: the [quick]
// table replaces trials and n. Without a [quick] table the spec is unchanged.
func (s *Spec) Scaled(quick bool) *Spec {
	c := *s
	if !quick || s.Quick == nil {
		return &c
	}
	c.quickScaled = true
	if s.Quick.Trials > 0 {
		c.Trials = s.Quick.Trials
	}
	if len(s.Quick.N) > 0 {
		c.Axes.N, c.nKey = s.Quick.N, "quick.n"
	}
	if s.Quick.Cells != nil {
		c.Cells, c.cellsKey = s.Quick.Cells, "quick.cells"
	}
	if s.Quick.Exclude != nil {
		c.Exclude, c.excludeKey = s.Quick.Exclude, "quick.exclude"
	}
	return &c
}

// Reduced reports whether Scaled(quick) runs at a smaller scale than the
// spec's own: quick is asked, the spec has a [quick] block, and the block
// changes the trials or the n axis. A --quick run of a spec without one (or
// with one that repeats the full scale) is the paper's scale, and its
// figures are not marked as a pipeline check.
func (s *Spec) Reduced(quick bool) bool {
	if !quick || s.Quick == nil {
		return false
	}
	return (s.Quick.Trials > 0 && s.Quick.Trials != s.Trials) ||
		(len(s.Quick.N) > 0 && !slices.Equal(s.Quick.N, s.Axes.N)) ||
		(s.Quick.Cells != nil && !reflect.DeepEqual(s.Quick.Cells, s.Cells)) ||
		(s.Quick.Exclude != nil && !reflect.DeepEqual(s.Quick.Exclude, s.Exclude))
}

// TitledFigures returns the spec's figures, each without a title of its
// own given the spec's: a figure is read apart from its spec (in out/, a
// report, a draft), and one that says nothing of what it shows is no use
// there.
func (s *Spec) TitledFigures() []figures.Spec {
	out := slices.Clone(s.Figures)
	for i := range out {
		if out[i].Title == "" {
			out[i].Title = s.Title
		}
	}
	return out
}

// Hash identifies what the spec computes: the name, kind, seed, trials,
// metrics, axes, cell lists (when given), datasets and external
// mechanisms' names and commands (not
// the title, the figures or a mechanism's timeout, which do not change any
// row).
func (s *Spec) Hash() string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // the spec holds only plain values
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// GroupLabels names the groups of the spec's grouped datasets by their
// labels (group 0 "AS", group 1 "PsA"), for figures whose panels or series
// are params.group: the labels of its stand-in datasets (datasets.Standins,
// known without reading a file), when they all agree; nil otherwise.
func (s *Spec) GroupLabels() []string {
	var labels []string
	for _, d := range s.Datasets {
		if d.Source != "standin" {
			continue
		}
		name := d.Standin
		if name == "" {
			name = d.Name
		}
		def, ok := datasets.LookupStandin(name)
		if !ok {
			continue
		}
		if labels != nil && !slices.Equal(labels, def.Labels) {
			return nil
		}
		labels = def.Labels
	}
	return labels
}
