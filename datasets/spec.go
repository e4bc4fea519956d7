package datasets

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
)

// Sources, the values of the "source" key of a Spec.
const (
	SourceBeta     = "beta"
	SourceBetaSin  = "beta-sin"
	SourceGaussian = "gaussian"
	SourceUniform  = "uniform"
	SourceFile     = "file"
	// SourceStandin builds a labelled stand-in for access-restricted data
	// (Raab et al.'s MIMIC-IV groups; see Standins).
	SourceStandin = "standin"
)

var sources = []string{SourceBeta, SourceBetaSin, SourceGaussian, SourceUniform, SourceFile, SourceStandin}

// Spec describes how to build a dataset. The harness decodes it from a TOML
// table with github.com/BurntSushi/toml, for example
//
//	[[datasets]]
//	name   = "beta32"
//	source = "beta"
//	a      = 3.0
//	b      = 2.0
//
//	[[datasets]]
//	name      = "magic-fLength"
//	source    = "file"
//	path      = "magic04.data"
//	column    = 0
//	sep       = ","
//	normalise = "minmax"
//
// Keys by source (a key that the source does not use must be left unset, so
// that a misplaced key is an error rather than silently ignored):
//
//	source     keys                              raw domain          defaults
//	beta       a, b (> 0)                        [0, 1]
//	beta-sin   a, b, amplitude, frequency        [0, 1]              a = 2, b = 5, amplitude = 0.5, frequency = 10
//	gaussian   mu, sigma (> 0), lo, hi           [lo, hi]            lo = −1, hi = 1 (when both are 0)
//	uniform    lo, hi                            [lo, hi]            lo = −1, hi = 1 (when both are 0)
//	file       path, column (0-based), sep,      the column's values sep = whitespace
//	           header, missing, rows, keep_lo, keep_hi,
//	           group_column (0-based)
//	standin    standin (a name of Standins)      ages in [18, 100]
//
// For beta-sin a key left at 0 takes its default (use source "beta" for
// amplitude 0). gaussian is N(mu, sigma) truncated to [lo, hi] by rejection
// (see TruncNormal).
//
// dims (default 1) makes a synthetic dataset multi-dimensional: n rows of
// dims attributes, each drawn independently from the source's law (paper
// 003's 16-dimensional Gaussians are source "gaussian" with dims = 16), stored
// row-major in Dataset.Values with Dataset.Dims set. File sources take
// dims = 1 only. With normalise = "minmax" and dims > 1 one map, from the
// min and max over all attributes, is applied to every attribute (the
// attributes of a synthetic source share one law, and Dataset carries one
// Normalisation).
//
// Grouped data (Raab et al., group means): group_column names a categorical
// column of a file (its fields are labels, compared as strings), and Build
// fills Dataset.Groups and Dataset.GroupLabels, groups indexed in sorted
// label order (see Dataset.GroupLabels); source "standin" builds a grouped
// stand-in. The values of a grouped dataset stay raw: its spec declares the
// attribute's fixed range, normalise = "fixed" (the default with
// group_column, and the only rule allowed) with lo < hi (a stand-in's range
// is fixed at [18, 100]), which Dataset.Grouped applies; "minmax" and
// "none" are refused, since Raab et al. scales by a-priori ranges only
// (App. C). clip = true keeps values outside [lo, hi] raw (the truth is on
// the raw data) and Grouped's scaling clips them; without it they are an
// error naming the line. For example
//
//	[[datasets]]
//	name         = "magic-fAlpha-by-class"
//	source       = "file"
//	path         = "magic04.data"
//	sep          = ","
//	column       = 8     # fAlpha, an angle in degrees
//	group_column = 10    # the class, g or h
//	lo           = 0.0
//	hi           = 90.0
//
//	[[datasets]]
//	name    = "mimic-admission-location"
//	source  = "standin"
//	standin = "mimic-admission-location"
//
// normalise is "fixed" (default for synthetic sources: the raw domain above,
// so Beta becomes 2u − 1; for files it needs lo < hi and honours clip),
// "minmax" (default for files: the loaded data's own min and max; for
// synthetic sources the sample's, as Du et al. does for Beta(2,5)) or "none"
// (values must already lie in [−1, 1]). clip is allowed only for files with
// normalise = "fixed". substitute marks a stand-in for data the paper used
// but that is not available; description is free text for listings.
type Spec struct {
	Name        string  `toml:"name"`
	Description string  `toml:"description"`
	Source      string  `toml:"source"`
	A           float64 `toml:"a"`
	B           float64 `toml:"b"`
	Mu          float64 `toml:"mu"`
	Sigma       float64 `toml:"sigma"`
	Lo          float64 `toml:"lo"`
	Hi          float64 `toml:"hi"`
	Amplitude   float64 `toml:"amplitude"`
	Frequency   float64 `toml:"frequency"`
	Path        string  `toml:"path"`
	Column      int     `toml:"column"`
	Sep         string  `toml:"sep"`
	// Header skips the file's first data line; Missing names a field value
	// that marks a missing number (the row is dropped); Rows reads only the
	// first Rows data lines, missing ones included (source "file" only).
	Header  bool   `toml:"header" json:",omitempty"`
	Missing string `toml:"missing" json:",omitempty"`
	Rows    int    `toml:"rows" json:",omitempty"`
	// KeepLo and KeepHi, when either is set (non-zero), keep only values
	// x with KeepLo ≤ x ≤ KeepHi and drop the others (source "file" only;
	// within the first Rows lines, before the normalisation): Du et al.'s
	// Retirement data is "total compensation … within 10,000 to 60,000"
	// (Du et al. Section 6.1.2). Omitted from JSON when 0, so that the hash
	// of a spec without them is unchanged.
	KeepLo     float64 `toml:"keep_lo" json:",omitempty"`
	KeepHi     float64 `toml:"keep_hi" json:",omitempty"`
	Normalise  string  `toml:"normalise"`
	Clip       bool    `toml:"clip"`
	Substitute bool    `toml:"substitute"`
	// GroupColumn is the 0-based column of a file's group labels (key
	// group_column; unset: no groups). Standin names the stand-in of source
	// "standin". Both are omitted from JSON when unset, so that the hash of
	// a spec without them is unchanged.
	GroupColumn OptionalColumn `toml:"group_column" json:",omitzero"`
	Standin     string         `toml:"standin" json:",omitempty"`
	// Dims is omitted from JSON when 0, so that the hash of a harness spec
	// without the key is the one it had before the key existed.
	Dims int `toml:"dims" json:"Dims,omitempty"`
}

// MaxDims is the largest dims a Spec accepts.
const MaxDims = 1 << 16

// resolved returns s with the documented defaults filled in.
func (s Spec) resolved() Spec {
	switch s.Source {
	case SourceBetaSin:
		if s.A == 0 {
			s.A = BetaSinA
		}
		if s.B == 0 {
			s.B = BetaSinB
		}
		if s.Amplitude == 0 {
			s.Amplitude = BetaSinAmplitude
		}
		if s.Frequency == 0 {
			s.Frequency = BetaSinFrequency
		}
	case SourceGaussian, SourceUniform:
		if s.Lo == 0 && s.Hi == 0 {
			s.Lo, s.Hi = -1, 1
		}
	case SourceFile:
		if s.Sep == "" || s.Sep == " " {
			s.Sep = SepWhitespace
		}
	}
	if s.Dims == 0 {
		s.Dims = 1
	}
	if s.Normalise == "" {
		if s.Source == SourceFile && !s.GroupColumn.Set {
			s.Normalise = RuleMinMax
		} else {
			s.Normalise = RuleFixed
		}
	}
	return s
}

// keeps reports whether the spec filters a file's values to [KeepLo, KeepHi].
func (s Spec) keeps() bool { return s.KeepLo != 0 || s.KeepHi != 0 }

// synthetic reports whether the spec's source is a generator.
func (s Spec) synthetic() bool { return s.Source != SourceFile }

// Validate checks the spec and returns every problem found, each naming the
// dataset and the offending key, e.g.
//
//	dataset "beta32": key "a": must be finite and > 0, got -1
func (s Spec) Validate() error {
	r := s.resolved()
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("dataset %q: key %q: %s", s.Name, key, fmt.Sprintf(format, args...)))
	}
	if strings.TrimSpace(s.Name) == "" {
		bad("name", "must not be empty")
	}

	// used holds the keys the source reads; the others must be unset
	// (checked last).
	used := map[string]bool{}
	switch r.Source {
	case SourceBeta:
		used["a"], used["b"] = true, true
	case SourceBetaSin:
		used["a"], used["b"], used["amplitude"], used["frequency"] = true, true, true, true
	case SourceGaussian:
		used["mu"], used["sigma"], used["lo"], used["hi"] = true, true, true, true
	case SourceUniform:
		used["lo"], used["hi"] = true, true
	case SourceFile:
		used["path"], used["column"], used["sep"] = true, true, true
		used["header"], used["missing"], used["rows"] = true, true, true
		used["keep_lo"], used["keep_hi"], used["group_column"] = true, true, true
		if r.Normalise == RuleFixed {
			used["lo"], used["hi"], used["clip"] = true, true, true
		}
	case SourceStandin:
		used["standin"] = true
	default:
		bad("source", "unknown source %q; want one of %s", s.Source, strings.Join(sources, ", "))
		return errors.Join(errs...)
	}
	if r.Dims < 1 || r.Dims > MaxDims {
		bad("dims", "must be an integer in [1, %d], got %d", MaxDims, s.Dims)
	} else if r.Dims > 1 && r.Source == SourceFile {
		bad("dims", "source %q has one attribute per spec; dims > 1 needs a synthetic source, got %d", SourceFile, r.Dims)
	}
	switch r.Normalise {
	case RuleFixed, RuleMinMax, RuleNone:
	default:
		bad("normalise", "unknown rule %q; want %s, %s or %s", s.Normalise, RuleMinMax, RuleFixed, RuleNone)
	}

	positive := func(key string, v float64) {
		if !finite(v) || !(v > 0) {
			bad(key, "must be finite and > 0, got %v", v)
		}
	}
	switch r.Source {
	case SourceBeta, SourceBetaSin:
		positive("a", r.A)
		positive("b", r.B)
		if r.Source == SourceBetaSin {
			if !finite(r.Amplitude) || math.Abs(r.Amplitude) > 1 {
				bad("amplitude", "must be finite with |amplitude| <= 1, got %v", r.Amplitude)
			}
			if !finite(r.Frequency) || r.Frequency < 0 {
				bad("frequency", "must be finite and >= 0, got %v", r.Frequency)
			}
		}
	case SourceGaussian, SourceUniform:
		okRange := true
		if r.Source == SourceGaussian {
			if !finite(r.Mu) {
				bad("mu", "must be finite, got %v", r.Mu)
				okRange = false
			}
			if !finite(r.Sigma) || !(r.Sigma > 0) {
				bad("sigma", "must be finite and > 0, got %v", r.Sigma)
				okRange = false
			}
		}
		if !finite(r.Lo) {
			bad("lo", "must be finite, got %v", r.Lo)
			okRange = false
		}
		if !finite(r.Hi) || !(r.Hi > r.Lo) || math.IsInf(r.Hi-r.Lo, 0) {
			bad("hi", "must be finite and > lo, got lo=%v hi=%v", r.Lo, r.Hi)
			okRange = false
		}
		if okRange && r.Source == SourceGaussian {
			if p := truncNormalMass(r.Mu, r.Sigma, r.Lo, r.Hi); !(p >= MinAcceptance) {
				errs = append(errs, fmt.Errorf("dataset %q: keys \"mu\", \"sigma\", \"lo\", \"hi\": window [%v, %v] has probability %.3g under N(mu=%v, sigma=%v), below %g: truncation by rejection would not finish",
					s.Name, r.Lo, r.Hi, p, r.Mu, r.Sigma, MinAcceptance))
			}
		}
		if okRange && r.Normalise == RuleNone && (r.Lo < -1 || r.Hi > 1) {
			bad("normalise", "%q needs values in [-1, 1], but [lo, hi] = [%v, %v]", RuleNone, r.Lo, r.Hi)
		}
	case SourceFile:
		if strings.TrimSpace(r.Path) == "" {
			bad("path", "must name a data file")
		}
		if r.Column < 0 {
			bad("column", "must be >= 0 (0-based), got %d", r.Column)
		}
		if r.Rows < 0 {
			bad("rows", "must be >= 0 (0 = all), got %d", r.Rows)
		}
		if r.keeps() && (!finite(r.KeepLo) || !finite(r.KeepHi) || r.KeepLo > r.KeepHi) {
			bad("keep_hi", "keep_lo and keep_hi must be finite with keep_lo <= keep_hi, got keep_lo=%v keep_hi=%v", r.KeepLo, r.KeepHi)
		}
		if _, err := splitter(r.Sep); err != nil {
			bad("sep", "%v", err)
		}
		if r.GroupColumn.Set {
			r.validateGroupColumn(bad)
		}
		if r.Normalise == RuleFixed {
			if !finite(r.Lo) || !finite(r.Hi) || !(r.Lo < r.Hi) || math.IsInf(r.Hi-r.Lo, 0) {
				if r.GroupColumn.Set {
					bad("lo", "group_column needs the attribute's fixed range, finite lo < hi (Raab et al. scales by a-priori ranges, never by the data's min and max), got lo=%v hi=%v", r.Lo, r.Hi)
				} else {
					bad("lo", "normalise = %q needs finite lo < hi, got lo=%v hi=%v", RuleFixed, r.Lo, r.Hi)
				}
			}
		}
	case SourceStandin:
		r.validateStandin(bad)
	}
	set := []struct {
		key string
		set bool
	}{
		{"a", s.A != 0}, {"b", s.B != 0}, {"mu", s.Mu != 0}, {"sigma", s.Sigma != 0},
		{"lo", s.Lo != 0}, {"hi", s.Hi != 0}, {"amplitude", s.Amplitude != 0},
		{"frequency", s.Frequency != 0}, {"path", s.Path != ""}, {"column", s.Column != 0},
		{"sep", s.Sep != ""}, {"clip", s.Clip}, {"header", s.Header},
		{"missing", s.Missing != ""}, {"rows", s.Rows != 0},
		{"keep_lo", s.KeepLo != 0}, {"keep_hi", s.KeepHi != 0},
		{"group_column", s.GroupColumn.Set}, {"standin", s.Standin != ""},
	}
	for _, k := range set {
		if k.set && !used[k.key] {
			if r.Source == SourceFile && (k.key == "lo" || k.key == "hi" || k.key == "clip") {
				bad(k.key, "only used with normalise = %q, got normalise = %q", RuleFixed, r.Normalise)
			} else {
				bad(k.key, "not used by source %q", r.Source)
			}
		}
	}
	return errors.Join(errs...)
}

// generator returns the canonical description of the raw values of the
// resolved spec s, e.g.
// "beta(a=3,b=2)" or `file(path=magic04.data,column=0,sep=",")`. File paths
// enter by base name only, so the same file found in different directories
// has the same key.
func (s Spec) generator() string {
	f := fmtFloat
	switch s.Source {
	case SourceBeta:
		return "beta(a=" + f(s.A) + ",b=" + f(s.B) + ")"
	case SourceBetaSin:
		return "beta-sin(a=" + f(s.A) + ",b=" + f(s.B) + ",amplitude=" + f(s.Amplitude) + ",frequency=" + f(s.Frequency) + ")"
	case SourceGaussian:
		return "gaussian(mu=" + f(s.Mu) + ",sigma=" + f(s.Sigma) + ",lo=" + f(s.Lo) + ",hi=" + f(s.Hi) + ")"
	case SourceUniform:
		return "uniform(lo=" + f(s.Lo) + ",hi=" + f(s.Hi) + ")"
	case SourceFile:
		g := "file(path=" + filepath.Base(s.Path) + ",column=" + strconv.Itoa(s.Column) + ",sep=" + strconv.Quote(s.Sep)
		if s.Header {
			g += ",header"
		}
		if s.Missing != "" {
			g += ",missing=" + strconv.Quote(s.Missing)
		}
		if s.Rows > 0 {
			g += ",rows=" + strconv.Itoa(s.Rows)
		}
		if s.keeps() {
			g += ",keep=[" + fmtFloat(s.KeepLo) + "," + fmtFloat(s.KeepHi) + "]"
		}
		if s.GroupColumn.Set {
			g += ",group_column=" + strconv.Itoa(s.GroupColumn.Index)
		}
		return g + ")"
	case SourceStandin:
		return "standin(" + strconv.Quote(s.Standin) + ")"
	}
	return "invalid(" + strconv.Quote(s.Source) + ")"
}

// Key returns a canonical string for the data the spec builds: the source
// with its parameters after defaults (floats in shortest round-trip form),
// then the normalisation, e.g.
//
//	beta(a=3,b=2) normalise=fixed
//	file(path=magic04.data,column=0,sep=",") normalise=minmax
//	file(path=power.txt,column=4,sep=";") normalise=fixed(lo=180,hi=260,clip)
//
// A multi-dimensional spec ends with " dims=<d>" (nothing is added for
// dims = 1, so one-dimensional keys, and the data seeded from them, are
// those of specs without the key). Name, description and substitute do not
// enter (they label, they do not change the data), nor does n, nor a file's
// directory. Equal specs have equal keys, and so do specs that differ only
// by spelling a default out.
func (s Spec) Key() string {
	r := s.resolved()
	k := r.generator() + " normalise=" + r.Normalise
	if r.Source == SourceFile && r.Normalise == RuleFixed {
		k += "(lo=" + fmtFloat(r.Lo) + ",hi=" + fmtFloat(r.Hi)
		if r.Clip {
			k += ",clip"
		}
		k += ")"
	}
	if r.Dims > 1 {
		k += " dims=" + strconv.Itoa(r.Dims)
	}
	return k
}

// Build validates the spec and builds the dataset.
//
// Synthetic sources draw n > 0 rows of dims values each from rng (which
// must not be nil); the same spec, n and rng state give the same values. A file source ignores rng
// (it may be nil) and locates Path with Find; n ≤ 0 or n ≥ the file's data
// rows loads every row, 0 < n < rows loads the first n data rows in file order
// (no sampling), and a "minmax" normalisation then uses the min and max of
// those n rows. A missing file yields an error wrapping ErrNotFound.
//
// A grouped file (group_column) is read in full and then cut to its first
// n rows, so that its groups (labels, indices, D) are those of the whole
// file whatever n is; a group absent from the first n rows has no user
// there. A stand-in draws its full size from rng (not nil) and, for
// 0 < n < its size, keeps the first n rows of its random order; n ≤ 0 is
// the full size.
func (s Spec) Build(n int, rng *rand.Rand) (*Dataset, error) {
	return s.BuildWith(n, rng, nil)
}

// BuildWith is Build with a run's cache of file digests (nil: none): a file
// dataset's Dataset.File records the file's SHA-256, computed while the
// file is read, or taken from digests when an earlier dataset of the run
// read the same file. A file with fewer data rows than the spec's rows key
// is an error naming the file and both counts, whatever n is.
func (s Spec) BuildWith(n int, rng *rand.Rand, digests *FileDigests) (*Dataset, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	d, err := s.resolved().build(n, rng, digests)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", s.Name, err)
	}
	return d, nil
}

// BuildSeed is Build with a fresh generator rand.New(rand.NewPCG(seed,
// h)), h the 64-bit FNV-1a hash of s.Key(), so that datasets built from one
// seed are independent of each other; a synthetic dataset's Source records
// the seed ("... seed=7").
func (s Spec) BuildSeed(n int, seed uint64) (*Dataset, error) {
	h := fnv.New64a()
	h.Write([]byte(s.Key()))
	d, err := s.Build(n, rand.New(rand.NewPCG(seed, h.Sum64())))
	if err != nil {
		return nil, err
	}
	if s.resolved().synthetic() {
		d.Source += " seed=" + strconv.FormatUint(seed, 10)
	}
	return d, nil
}

// build builds the resolved, validated spec s.
func (s Spec) build(n int, rng *rand.Rand, digests *FileDigests) (*Dataset, error) {
	switch s.Source {
	case SourceFile:
		return s.buildFile(n, digests)
	case SourceStandin:
		return s.buildStandin(n, rng)
	}
	var (
		raw    []float64
		err    error
		lo, hi = 0.0, 1.0 // raw domain, for the fixed map
	)
	// n rows of dims attributes, row-major, all iid: n·dims draws.
	values := n
	if n > 0 {
		if n > math.MaxInt/s.Dims {
			return nil, fmt.Errorf("n = %d rows of %d attributes is too many values", n, s.Dims)
		}
		values = n * s.Dims
	}
	switch s.Source {
	case SourceBeta:
		raw, err = Beta(values, s.A, s.B, rng)
	case SourceBetaSin:
		raw, err = BetaSin(values, s.A, s.B, s.Amplitude, s.Frequency, rng)
	case SourceGaussian:
		raw, err = TruncNormal(values, s.Mu, s.Sigma, s.Lo, s.Hi, rng)
		lo, hi = s.Lo, s.Hi
	case SourceUniform:
		raw, err = Uniform(values, s.Lo, s.Hi, rng)
		lo, hi = s.Lo, s.Hi
	}
	if err != nil {
		return nil, err
	}
	var nm Normalisation
	switch s.Normalise {
	case RuleFixed:
		nm, err = Fixed(lo, hi, false)
	case RuleMinMax:
		nm, err = MinMax(raw)
	case RuleNone:
		nm = None()
	}
	if err == nil {
		err = nm.Transform(raw)
	}
	if err != nil {
		return nil, err
	}
	source := "synthetic " + s.generator() + " n=" + strconv.Itoa(n)
	if s.Dims > 1 {
		source += " dims=" + strconv.Itoa(s.Dims)
	}
	return &Dataset{
		Name:          s.Name,
		Values:        raw,
		Dims:          s.Dims,
		Normalisation: nm,
		Source:        source,
		Substitute:    s.Substitute,
	}, nil
}

func (s Spec) buildFile(n int, digests *FileDigests) (*Dataset, error) {
	path, found, err := Locate("", s.Path)
	if err != nil {
		return nil, err
	}
	rd := &fileRead{digests: digests, found: found}
	if s.GroupColumn.Set {
		return s.buildFileGrouped(n, path, rd)
	}
	var (
		nm    Normalisation
		check func(float64) error
	)
	switch s.Normalise {
	case RuleFixed:
		if nm, err = Fixed(s.Lo, s.Hi, s.Clip); err != nil {
			return nil, err
		}
		check = nm.check
	case RuleNone:
		nm = None()
		check = nm.check
	}
	layout := fileLayout{header: s.Header, missing: s.Missing, rows: s.Rows}
	if s.keeps() {
		layout.keep, layout.keepLo, layout.keepHi = true, s.KeepLo, s.KeepHi
	}
	raw, err := loadRows(path, s.Column, s.Sep, n, check, layout, nil, rd)
	if err != nil {
		return nil, err
	}
	if s.Normalise == RuleMinMax {
		if nm, err = MinMax(raw); err != nil {
			return nil, fmt.Errorf("%s: column %d: %v", path, s.Column, err)
		}
	}
	if err := nm.Transform(raw); err != nil {
		return nil, fmt.Errorf("%s: column %d: %v", path, s.Column, err)
	}
	return &Dataset{
		Name:          s.Name,
		Values:        raw,
		Dims:          1,
		Normalisation: nm,
		Source:        fmt.Sprintf("file %s column %d sep=%q rows 1-%d", path, s.Column, s.Sep, len(raw)),
		Substitute:    s.Substitute,
		File:          &rd.prov,
	}, nil
}
