package datasets

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/ldpbench/ldpbench/datasets/datatest"
)

// TestGroupColumnTOML decodes group_column the way the harness does. Catches
// column 0 read as "no group column" (the zero value of a plain int), and
// a string, float or boolean silently accepted.
func TestGroupColumnTOML(t *testing.T) {
	tests := []struct {
		doc  string
		want OptionalColumn
		err  string
	}{
		{`group_column = 10`, ColumnAt(10), ""},
		{`group_column = 0`, ColumnAt(0), ""},
		{`group_column = -1`, ColumnAt(-1), ""}, // decoded; Validate refuses it
		{``, OptionalColumn{}, ""},
		{`group_column = "10"`, OptionalColumn{}, "want an integer column index (0-based), got a string"},
		{`group_column = 1.5`, OptionalColumn{}, "got a float"},
		{`group_column = true`, OptionalColumn{}, "got a boolean"},
		{`group_column = [1]`, OptionalColumn{}, "got an array"},
	}
	for _, tt := range tests {
		var cfg struct {
			Datasets []Spec `toml:"datasets"`
		}
		doc := "[[datasets]]\nname = \"m\"\nsource = \"file\"\npath = \"magic04.data\"\n" + tt.doc + "\n"
		md, err := toml.Decode(doc, &cfg)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.doc, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.doc, err)
			continue
		}
		if u := md.Undecoded(); len(u) != 0 {
			t.Errorf("%q: undecoded %v", tt.doc, u)
		}
		if got := cfg.Datasets[0].GroupColumn; got != tt.want {
			t.Errorf("%q: GroupColumn = %+v, want %+v", tt.doc, got, tt.want)
		}
	}
}

// TestGroupedSpecTOML: the two documented examples (a UCI file with
// group_column, a stand-in) decode to valid specs with every key used.
func TestGroupedSpecTOML(t *testing.T) {
	const doc = `
[[datasets]]
name         = "magic-fAlpha-by-class"
source       = "file"
path         = "magic04.data"
sep          = ","
column       = 8
group_column = 10
lo           = 0.0
hi           = 90.0

[[datasets]]
name    = "mimic-admission-location"
source  = "standin"
standin = "mimic-admission-location"
`
	var cfg struct {
		Datasets []Spec `toml:"datasets"`
	}
	md, err := toml.Decode(doc, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 0 {
		t.Errorf("undecoded keys %v", u)
	}
	want := []Spec{
		{Name: "magic-fAlpha-by-class", Source: SourceFile, Path: "magic04.data", Sep: ",", Column: 8, GroupColumn: ColumnAt(10), Lo: 0, Hi: 90},
		{Name: "mimic-admission-location", Source: SourceStandin, Standin: "mimic-admission-location"},
	}
	if !slices.Equal(cfg.Datasets, want) {
		t.Errorf("decoded %+v, want %+v", cfg.Datasets, want)
	}
	for _, s := range cfg.Datasets {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// TestSpecValidateGroups: contradictory or misplaced keys of grouped specs,
// each refused with the key named. Each case says what it prevents.
func TestSpecValidateGroups(t *testing.T) {
	file := Spec{Name: "d", Source: SourceFile, Path: "x.csv", Sep: ",", Column: 1, GroupColumn: ColumnAt(2), Lo: 0, Hi: 10}
	with := func(edit func(*Spec)) Spec { s := file; edit(&s); return s }
	standin := Spec{Name: "s", Source: SourceStandin, Standin: "mimic-deceased"}
	withS := func(edit func(*Spec)) Spec { s := standin; edit(&s); return s }
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		// Min-max scaling would make the truth and the errors depend on the
		// sample's extremes.
		{"minmax", with(func(s *Spec) { s.Normalise = RuleMinMax; s.Lo, s.Hi = 0, 0 }),
			`key "normalise": group_column keeps the values raw, to be scaled by the attribute's fixed range: want "fixed" (the default) with lo, hi, got "minmax"`},
		{"none", with(func(s *Spec) { s.Normalise = RuleNone; s.Lo, s.Hi = 0, 0 }), `key "normalise": group_column keeps the values raw`},
		// Without a range there is nothing to scale by.
		{"no range", with(func(s *Spec) { s.Lo, s.Hi = 0, 0 }),
			`key "lo": group_column needs the attribute's fixed range, finite lo < hi (Raab et al. scales by a-priori ranges, never by the data's min and max), got lo=0 hi=0`},
		{"reversed range", with(func(s *Spec) { s.Lo, s.Hi = 10, 0 }), `key "lo": group_column needs the attribute's fixed range`},
		{"negative", with(func(s *Spec) { s.GroupColumn = ColumnAt(-1) }), `key "group_column": must be >= 0 (0-based), got -1`},
		// The class would be averaged as a value.
		{"same column", with(func(s *Spec) { s.GroupColumn = ColumnAt(1) }),
			`key "group_column": is column 1, the value column: the groups must come from another column`},
		{"on a generator", Spec{Name: "d", Source: SourceBeta, A: 1, B: 1, GroupColumn: ColumnAt(0)}, `key "group_column": not used by source "beta"`},
		{"group_column 0 on a generator", Spec{Name: "d", Source: SourceUniform, GroupColumn: ColumnAt(0)}, `key "group_column": not used by source "uniform"`},
		{"standin on a file", with(func(s *Spec) { s.Standin = "mimic-deceased" }), `key "standin": not used by source "file"`},
		{"unknown stand-in", withS(func(s *Spec) { s.Standin = "mimic-race" }),
			`key "standin": unknown stand-in "mimic-race"; want one of mimic-admission-type, mimic-admission-location, mimic-discharge-location, mimic-deceased, mimic-gender`},
		{"no stand-in", withS(func(s *Spec) { s.Standin = "" }), `key "standin": unknown stand-in ""`},
		// A stand-in's range is Table 2's, fixed.
		{"stand-in range", withS(func(s *Spec) { s.Lo, s.Hi = 10, 120 }), `key "lo": not used by source "standin"`},
		{"stand-in minmax", withS(func(s *Spec) { s.Normalise = RuleMinMax }),
			`key "normalise": a stand-in keeps raw values with the paper's fixed range [18, 100] (Raab et al. Table 2), scaled by Dataset.Grouped: want "fixed" or unset, got "minmax"`},
		{"stand-in dims", withS(func(s *Spec) { s.Dims = 2 }), `key "dims": a stand-in has one attribute, got dims = 2`},
		{"stand-in group_column", withS(func(s *Spec) { s.GroupColumn = ColumnAt(3) }), `key "group_column": not used by source "standin"`},
		{"stand-in path", withS(func(s *Spec) { s.Path = "mimic.csv" }), `key "path": not used by source "standin"`},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want it to contain %s", tt.name, err, tt.want)
		}
	}
	for _, ok := range []Spec{file, with(func(s *Spec) { s.Normalise = RuleFixed; s.Clip = true }), with(func(s *Spec) { s.GroupColumn = ColumnAt(0) }), standin,
		withS(func(s *Spec) { s.Normalise = RuleFixed; s.Substitute = true })} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

// TestSpecKeyGroups: the key (which seeds data and identifies results) tells
// grouped from ungrouped data and one group column from another. Catches a
// grouped spec that shares its ungrouped twin's key.
func TestSpecKeyGroups(t *testing.T) {
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Source: SourceFile, Path: "magic04.data", Column: 8, Sep: ",", GroupColumn: ColumnAt(10), Lo: 0, Hi: 90},
			`file(path=magic04.data,column=8,sep=",",group_column=10) normalise=fixed(lo=0,hi=90)`},
		{Spec{Source: SourceFile, Path: "x", Column: 1, GroupColumn: ColumnAt(0), Lo: 0, Hi: 1, Clip: true},
			`file(path=x,column=1,sep="whitespace",group_column=0) normalise=fixed(lo=0,hi=1,clip)`},
		{Spec{Source: SourceStandin, Standin: "mimic-gender"}, `standin("mimic-gender") normalise=fixed`},
	}
	for _, tt := range tests {
		if got := tt.spec.Key(); got != tt.want {
			t.Errorf("Key() = %s, want %s", got, tt.want)
		}
	}
	a := Spec{Source: SourceFile, Path: "x", Column: 1, Normalise: RuleFixed, Lo: 0, Hi: 1}
	b := a
	b.GroupColumn = ColumnAt(0)
	if a.Key() == b.Key() {
		t.Errorf("grouped and ungrouped specs share the key %s", a.Key())
	}
}

// TestSpecJSONWithoutGroups: the harness hashes a spec's JSON to tell
// whether results are up to date. A spec without the new keys must
// marshal as before, or every existing run would be recomputed. Catches
// GroupColumn or Standin marshalled when unset.
func TestSpecJSONWithoutGroups(t *testing.T) {
	b, err := json.Marshal(Spec{Name: "b", Source: SourceBeta, A: 3, B: 2})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"Name":"b","Description":"","Source":"beta","A":3,"B":2,"Mu":0,"Sigma":0,"Lo":0,"Hi":0,"Amplitude":0,"Frequency":0,"Path":"","Column":0,"Sep":"","Normalise":"","Clip":false,"Substitute":false}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
	b, err = json.Marshal(Spec{Name: "g", GroupColumn: ColumnAt(0), Standin: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"GroupColumn":{"Set":true,"Index":0}`) || !strings.Contains(string(b), `"Standin":"x"`) {
		t.Errorf("JSON of a grouped spec %s lacks its group column or stand-in", b)
	}
}

// groupedWant is what a UCI file built with its class column as the groups
// must give: sorted labels, sizes and raw group means, and a fragment of
// the source.
type groupedWant struct {
	spec   Spec
	labels []string
	sizes  []int
	means  []float64
	source string
}

// TestBuildGroupedShared loads the two real UCI files (skipped without
// them; TestBuildGroupedFixture runs on every checkout) with their class
// columns as groups: sizes, labels and raw group means against values
// computed independently (Python math.fsum per class). Catches labels out
// of sorted order (h before g; 7 before 1), the values normalised instead
// of raw, a group column off by one (sizes of a value column), and rows
// dropped.
func TestBuildGroupedShared(t *testing.T) {
	tests := []groupedWant{
		{Spec{Name: "magic", Source: SourceFile, Path: "magic04.data", Sep: ",", Column: 8, GroupColumn: ColumnAt(10), Lo: 0, Hi: 90},
			[]string{"g", "h"}, []int{12332, 6688}, []float64{18.784309219915666, 43.985233208732055},
			"column 8 groups column 10"},
		{Spec{Name: "magic-fLength", Source: SourceFile, Path: "magic04.data", Sep: ",", Column: 0, GroupColumn: ColumnAt(10), Lo: 0, Hi: 400},
			[]string{"g", "h"}, []int{12332, 6688}, []float64{43.65453869607525, 70.94350426136363},
			"column 0 groups column 10"},
		{Spec{Name: "shuttle", Source: SourceFile, Path: "shuttle.tst", Column: 0, GroupColumn: ColumnAt(9), Lo: 20, Hi: 130},
			[]string{"1", "2", "3", "4", "5", "6", "7"}, []int{11478, 13, 39, 2155, 809, 4, 2},
			[]float64{44.046959400592435, 48.84615384615385, 57.30769230769231, 55.4445475638051, 87.32138442521632, 79, 37},
			"column 0 groups column 9"},
	}
	for _, tt := range tests {
		realFile(t, tt.spec.Path)
	}
	checkGroupedBuilds(t, tests)
	// The first MAGIC row, raw: fAlpha 40.092, class g.
	checkFirstMagicRow(t, tests[0].spec, 40.092)
}

// TestBuildGroupedFixture is TestBuildGroupedShared on the generated
// stand-ins (datatest): the same specs, the labels, sizes and raw means
// computed from the generator's values (exact sums per class), and the
// first row raw. It catches the same faults on every checkout.
func TestBuildGroupedFixture(t *testing.T) {
	datatest.Use(t)
	magic := datatest.Magic04(datatest.MagicRows, datatest.MagicSeed)
	shuttle := datatest.Shuttle(datatest.ShuttleRows, datatest.ShuttleSeed)
	want := func(spec Spec, f *datatest.File, source string) groupedWant {
		col := f.Column(spec.Column)
		w := groupedWant{spec: spec, labels: f.Classes, sizes: f.ClassCounts(), source: source}
		for _, label := range f.Classes {
			var xs []float64
			for i, c := range f.Class {
				if c == label {
					xs = append(xs, col[i])
				}
			}
			w.means = append(w.means, exactMean(xs))
		}
		return w
	}
	tests := []groupedWant{
		want(Spec{Name: "magic", Source: SourceFile, Path: "magic04.data", Sep: ",", Column: 8, GroupColumn: ColumnAt(10), Lo: 0, Hi: 90},
			magic, "column 8 groups column 10"),
		want(Spec{Name: "magic-fLength", Source: SourceFile, Path: "magic04.data", Sep: ",", Column: 0, GroupColumn: ColumnAt(10), Lo: 0, Hi: 400},
			magic, "column 0 groups column 10"),
		want(Spec{Name: "shuttle", Source: SourceFile, Path: "shuttle.tst", Column: 0, GroupColumn: ColumnAt(9), Lo: 20, Hi: 130},
			shuttle, "column 0 groups column 9"),
	}
	// The fixture has every class (the check would not see labels out of
	// order otherwise).
	for _, tt := range tests {
		for k, n := range tt.sizes {
			if n == 0 {
				t.Fatalf("%s: the fixture has no row of class %s", tt.spec.Name, tt.labels[k])
			}
		}
	}
	checkGroupedBuilds(t, tests)
	checkFirstMagicRow(t, tests[0].spec, magic.X[0][8])
}

// checkFirstMagicRow: row 1 of MAGIC with fAlpha as the value is raw
// (alpha), class g (group 0).
func checkFirstMagicRow(t *testing.T, spec Spec, alpha float64) {
	t.Helper()
	d, err := spec.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Values[0] != alpha || d.Groups[0] != 0 {
		t.Errorf("row 1: (%v, %d), want the raw (%v, g)", d.Values[0], d.Groups[0], alpha)
	}
}

func checkGroupedBuilds(t *testing.T, tests []groupedWant) {
	t.Helper()
	for _, tt := range tests {
		d, err := tt.spec.Build(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.GroupLabels, tt.labels) {
			t.Errorf("%s: labels %q, want %q", tt.spec.Name, d.GroupLabels, tt.labels)
		}
		g, err := d.Grouped(tt.spec.Lo, tt.spec.Hi)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Sizes(); !slices.Equal(got, tt.sizes) {
			t.Errorf("%s: sizes %v, want %v", tt.spec.Name, got, tt.sizes)
		}
		for k, m := range g.Means() {
			if math.Abs(m-tt.means[k]) > 1e-12*tt.means[k] {
				t.Errorf("%s: m_%s = %.17g, want %.17g", tt.spec.Name, tt.labels[k], m, tt.means[k])
			}
		}
		if want := "fixed[lo=" + fmtFloat(tt.spec.Lo) + ",hi=" + fmtFloat(tt.spec.Hi) + "]"; d.Normalisation.String() != want {
			t.Errorf("%s: normalisation %s, want %s", tt.spec.Name, d.Normalisation, want)
		}
		if !strings.Contains(d.Source, tt.source) || d.Substitute {
			t.Errorf("%s: source %q, substitute %v", tt.spec.Name, d.Source, d.Substitute)
		}
	}
}

// TestBuildGroupedPrefix: n < rows keeps the first n rows but the file's
// groups: magic04.data lists its 12,332 g rows first, so its first 1,000
// rows hold no h, and h is still group 1 with n_h = 0 and mean NaN.
// Catches groups re-indexed by the prefix (D = 1, and a build error). On
// the real file (skipped without it) and on the generated one, which also
// lists its g rows first (648 of 1,000).
func TestBuildGroupedPrefix(t *testing.T) {
	t.Run("real", func(t *testing.T) {
		realFile(t, "magic04.data")
		checkGroupedPrefix(t, 1000)
	})
	t.Run("fixture", func(t *testing.T) {
		datatest.Use(t)
		f := datatest.Magic04(datatest.MagicRows, datatest.MagicSeed)
		const n = 500
		if f.Class[n-1] != "g" || f.Class[f.Rows()-1] != "h" {
			t.Fatalf("the fixture's first %d rows are not all g, or it has no h", n)
		}
		checkGroupedPrefix(t, n)
	})
}

func checkGroupedPrefix(t *testing.T, n int) {
	t.Helper()
	s, ok := Lookup("magic-fAlpha-by-class")
	if !ok {
		t.Fatal("magic-fAlpha-by-class not in the catalogue")
	}
	d, err := s.Build(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := d.Grouped(0, 90)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != n || g.D != 2 || !slices.Equal(g.Sizes(), []int{n, 0}) || !math.IsNaN(g.Means()[1]) {
		t.Errorf("first %d rows: Len %d, D %d, sizes %v, means %v", n, g.Len(), g.D, g.Sizes(), g.Means())
	}
	full, err := s.Build(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(full.Values[:n], d.Values) || !slices.Equal(full.Groups[:n], d.Groups) {
		t.Errorf("the prefix is not the first %d rows of the full build", n)
	}
}

// TestBuildGroupedFile covers the layout keys with a group column on small
// files: label order, the missing marker in either column, header, keep
// window, clipping, rows. Each case names what it catches.
func TestBuildGroupedFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		edit    func(*Spec)
		values  []float64
		groups  []int32
		labels  []string
		clipped int
	}{
		// Labels sort by bytes; groups renumbered to match (catches
		// first-seen order kept).
		{"alphabetical", "5,b\n1,a\n7,c\n3,a\n", nil,
			[]float64{5, 1, 7, 3}, []int32{1, 0, 2, 0}, []string{"a", "b", "c"}, 0},
		// Numeric labels sort as numbers (catches "10" < "9").
		{"numeric", "1,10\n2,9\n3,2\n4,10\n", nil,
			[]float64{1, 2, 3, 4}, []int32{2, 1, 0, 2}, []string{"2", "9", "10"}, 0},
		// One non-number makes the order bytewise.
		{"mixed", "1,10\n2,9\n3,x\n", nil,
			[]float64{1, 2, 3}, []int32{0, 1, 2}, []string{"10", "9", "x"}, 0},
		// MIMIC-like labels with spaces, case-sensitive byte order.
		{"spaces and case", "1, EW EMER. \n2,ELECTIVE\n3,elective\n", nil,
			[]float64{1, 2, 3}, []int32{1, 0, 2}, []string{"ELECTIVE", "EW EMER.", "elective"}, 0},
		// A missing group drops the row (MIMIC's discharge location NaN
		// rows), as a missing value does.
		{"missing group or value", "1,a\n2,NA\nNA,b\n4,b\n", func(s *Spec) { s.Missing = "NA" },
			[]float64{1, 4}, []int32{0, 1}, []string{"a", "b"}, 0},
		{"header", "value,class\n1,a\n2,b\n", func(s *Spec) { s.Header = true },
			[]float64{1, 2}, []int32{0, 1}, []string{"a", "b"}, 0},
		// The keep window drops rows, and their labels do not become
		// groups (catches interning before filtering).
		{"keep", "1,a\n20,z\n2,b\n", func(s *Spec) { s.KeepLo, s.KeepHi = 0, 10 },
			[]float64{1, 2}, []int32{0, 1}, []string{"a", "b"}, 0},
		// Clipping keeps raw values (truth on raw data) and counts them.
		{"clip", "-1,a\n5,b\n12,a\n", func(s *Spec) { s.Clip = true },
			[]float64{-1, 5, 12}, []int32{0, 1, 0}, []string{"a", "b"}, 2},
		{"rows", "1,a\n2,b\n3,c\n", func(s *Spec) { s.Rows = 2 },
			[]float64{1, 2}, []int32{0, 1}, []string{"a", "b"}, 0},
	}
	for _, tt := range tests {
		s := Spec{Name: "t", Source: SourceFile, Path: writeTemp(t, "g.csv", tt.content), Sep: ",", Column: 0, GroupColumn: ColumnAt(1), Lo: 0, Hi: 10}
		if tt.edit != nil {
			tt.edit(&s)
		}
		d, err := s.Build(0, nil)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !slices.Equal(d.Values, tt.values) || !slices.Equal(d.Groups, tt.groups) || !slices.Equal(d.GroupLabels, tt.labels) {
			t.Errorf("%s: values %v groups %v labels %q, want %v %v %q", tt.name, d.Values, d.Groups, d.GroupLabels, tt.values, tt.groups, tt.labels)
		}
		if d.Normalisation.Clipped != tt.clipped {
			t.Errorf("%s: clipped %d, want %d", tt.name, d.Normalisation.Clipped, tt.clipped)
		}
	}
}

// TestBuildGroupedFileErrors: what a grouped file refuses, naming file and
// line. Each case names the bug it prevents.
func TestBuildGroupedFileErrors(t *testing.T) {
	tests := []struct {
		name, content string
		edit          func(*Spec)
		want          string
	}{
		{"short line", "1,a\n2\n", nil, ":2: group column 1 missing: line has 1 field (columns 0-0)"},
		// An empty class is not a group.
		{"empty label", "1,a\n2,\n", nil, `:2: group column 1 (field 2): label "" is empty`},
		// A label reaches result rows and figures.
		{"control character", "1,a\n2,b\x1bc\n", nil, `:2: group column 1 (field 2): label "b\x1bc" holds a control character`},
		{"invalid UTF-8", "1,a\n2,\xff\n", nil, `:2: group column 1 (field 2): label "\xff" is not valid UTF-8`},
		// Group means need d ≥ 2 (q = (1 − p)/(d − 1)).
		{"one group", "1,a\n2,a\n", nil, `group column 1: one label ("a") in 2 rows; group means need at least 2 groups`},
		// Without clip a value outside the declared range is an error, as
		// for every fixed range.
		{"out of range", "1,a\n11,b\n", nil, ":2: column 0 (field 1): value 11 is outside the fixed range [0, 10] (set clip = true to clip)"},
		{"bad value", "1,a\nx,b\n", nil, `:2: column 0 (field 1): cannot parse "x" as a number`},
	}
	for _, tt := range tests {
		s := Spec{Name: "t", Source: SourceFile, Path: writeTemp(t, "bad.csv", tt.content), Sep: ",", Column: 0, GroupColumn: ColumnAt(1), Lo: 0, Hi: 10}
		if tt.edit != nil {
			tt.edit(&s)
		}
		_, err := s.Build(0, nil)
		if err == nil || !strings.Contains(err.Error(), s.Path+tt.want) && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestLoadGroupedMaxGroups: past the bound the file is refused at the
// first line with one label too many. Catches a continuous column named
// as the group column making a group per row (MaxGroups itself is too big
// for a small fixture, so the bound is passed in).
func TestLoadGroupedMaxGroups(t *testing.T) {
	p := writeTemp(t, "many.csv", "1,a\n2,b\n3,a\n4,c\n5,d\n")
	if _, _, labels, err := loadGrouped(p, 0, 1, ",", nil, fileLayout{}, 3); err == nil || err.Error() != p+":5: group column 1 (field 2): more than 3 distinct labels; is it a class column?" {
		t.Errorf("labels %v, err = %v", labels, err)
	}
	if _, _, labels, err := loadGrouped(p, 0, 1, ",", nil, fileLayout{}, 4); err != nil || len(labels) != 4 {
		t.Errorf("4 labels, bound 4: labels %v, err %v", labels, err)
	}
	// MaxGroups itself, through Spec.Build: fLength as the group column,
	// on the real file (skipped without it) and on a generated one of
	// 5,000 rows with more than 4,096 distinct fLength values.
	s := Spec{Name: "m", Source: SourceFile, Path: "magic04.data", Sep: ",", Column: 8, GroupColumn: ColumnAt(0), Lo: 0, Hi: 90}
	t.Run("real", func(t *testing.T) {
		realFile(t, "magic04.data")
		if _, err := s.Build(0, nil); err == nil || !strings.Contains(err.Error(), "more than 4096 distinct labels; is it a class column?") {
			t.Errorf("fLength as groups: err = %v", err)
		}
	})
	t.Run("fixture", func(t *testing.T) {
		f := datatest.Magic04(5000, 3)
		distinct := map[float64]bool{}
		for _, x := range f.Column(0) {
			distinct[x] = true
		}
		if len(distinct) <= MaxGroups {
			t.Fatalf("the fixture has %d distinct fLength values, want more than %d", len(distinct), MaxGroups)
		}
		fixture(t, f)
		if _, err := s.Build(0, nil); err == nil || !strings.Contains(err.Error(), "more than 4096 distinct labels; is it a class column?") {
			t.Errorf("fLength as groups: err = %v", err)
		}
	})
}

// TestSortGroups: the renumbering is a bijection consistent with the
// labels. Catches rank and inverse rank confused (groups renumbered with
// the order instead of the rank: wrong for a 3-cycle).
func TestSortGroups(t *testing.T) {
	groups := []int32{0, 1, 2, 0, 2}
	labels := sortGroups(groups, []string{"c", "a", "b"})
	if !slices.Equal(labels, []string{"a", "b", "c"}) || !slices.Equal(groups, []int32{2, 0, 1, 2, 1}) {
		t.Errorf("labels %q, groups %v; want [a b c], [2 0 1 2 1]", labels, groups)
	}
	groups = []int32{0, 1, 2}
	labels = sortGroups(groups, []string{"1e1", "2", "-3.5"})
	if !slices.Equal(labels, []string{"-3.5", "2", "1e1"}) || !slices.Equal(groups, []int32{2, 1, 0}) {
		t.Errorf("numeric: labels %q, groups %v", labels, groups)
	}
}

// TestGroupedStandinRNG: a stand-in, like every synthetic source, needs a
// caller-seeded generator.
func TestGroupedStandinRNG(t *testing.T) {
	s := Spec{Name: "s", Source: SourceStandin, Standin: "mimic-deceased"}
	if _, err := s.Build(10, nil); err == nil || !strings.Contains(err.Error(), "nil *rand.Rand") {
		t.Errorf("nil rng: err = %v", err)
	}
	if _, err := s.Build(10, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Error(err)
	}
}
