package datasets

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestSpecValidateExactMessage(t *testing.T) {
	err := Spec{Name: "beta32", Source: SourceBeta, A: -1, B: 2}.Validate()
	const want = `dataset "beta32": key "a": must be finite and > 0, got -1`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestSpecValidateNamesKey(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		spec Spec
		want string // `key "x"` (or `keys ...`) plus the start of the reason
	}{
		{"empty name", Spec{Source: SourceUniform}, `dataset "": key "name": must not be empty`},
		{"unknown source", Spec{Name: "d", Source: "betta"}, `key "source": unknown source "betta"; want one of beta, beta-sin, gaussian, uniform, file`},
		{"no source", Spec{Name: "d"}, `key "source": unknown source ""`},
		{"beta a missing", Spec{Name: "d", Source: SourceBeta, B: 2}, `key "a": must be finite and > 0, got 0`},
		{"beta b NaN", Spec{Name: "d", Source: SourceBeta, A: 1, B: nan}, `key "b": must be finite and > 0, got NaN`},
		{"beta b Inf", Spec{Name: "d", Source: SourceBeta, A: 1, B: inf}, `key "b": must be finite and > 0, got +Inf`},
		{"beta with mu", Spec{Name: "d", Source: SourceBeta, A: 1, B: 1, Mu: 0.5}, `key "mu": not used by source "beta"`},
		{"beta with path", Spec{Name: "d", Source: SourceBeta, A: 1, B: 1, Path: "x"}, `key "path": not used by source "beta"`},
		{"beta with clip", Spec{Name: "d", Source: SourceBeta, A: 1, B: 1, Clip: true}, `key "clip": not used by source "beta"`},
		{"beta-sin amplitude", Spec{Name: "d", Source: SourceBetaSin, Amplitude: 1.5}, `key "amplitude": must be finite with |amplitude| <= 1, got 1.5`},
		{"beta-sin frequency", Spec{Name: "d", Source: SourceBetaSin, Frequency: -2}, `key "frequency": must be finite and >= 0, got -2`},
		{"beta-sin a", Spec{Name: "d", Source: SourceBetaSin, A: -3}, `key "a": must be finite and > 0, got -3`},
		{"gaussian sigma missing", Spec{Name: "d", Source: SourceGaussian, Mu: 0.5}, `key "sigma": must be finite and > 0, got 0`},
		{"gaussian mu Inf", Spec{Name: "d", Source: SourceGaussian, Mu: inf, Sigma: 1}, `key "mu": must be finite, got +Inf`},
		{"gaussian hi < lo", Spec{Name: "d", Source: SourceGaussian, Sigma: 1, Lo: 1, Hi: -1}, `key "hi": must be finite and > lo, got lo=1 hi=-1`},
		{"gaussian far tail", Spec{Name: "d", Source: SourceGaussian, Sigma: 0.1, Lo: 0.9, Hi: 1}, `keys "mu", "sigma", "lo", "hi": window [0.9, 1] has probability 1.13e-19`},
		{"gaussian with a", Spec{Name: "d", Source: SourceGaussian, Sigma: 1, A: 2}, `key "a": not used by source "gaussian"`},
		{"gaussian none outside", Spec{Name: "d", Source: SourceGaussian, Sigma: 1, Lo: 0, Hi: 2, Normalise: RuleNone}, `key "normalise": "none" needs values in [-1, 1], but [lo, hi] = [0, 2]`},
		{"uniform empty window", Spec{Name: "d", Source: SourceUniform, Lo: 5, Hi: 5}, `key "hi": must be finite and > lo, got lo=5 hi=5`},
		{"uniform lo NaN", Spec{Name: "d", Source: SourceUniform, Lo: nan, Hi: 1}, `key "lo": must be finite, got NaN`},
		{"uniform overflow", Spec{Name: "d", Source: SourceUniform, Lo: -math.MaxFloat64, Hi: math.MaxFloat64}, `key "hi": must be finite and > lo`},
		{"unknown rule", Spec{Name: "d", Source: SourceUniform, Normalise: "zscore"}, `key "normalise": unknown rule "zscore"; want minmax, fixed or none`},
		{"file no path", Spec{Name: "d", Source: SourceFile}, `key "path": must name a data file`},
		{"file column", Spec{Name: "d", Source: SourceFile, Path: "x", Column: -1}, `key "column": must be >= 0 (0-based), got -1`},
		{"file sep", Spec{Name: "d", Source: SourceFile, Path: "x", Sep: "::"}, `key "sep": separator "::"`},
		{"file fixed no bounds", Spec{Name: "d", Source: SourceFile, Path: "x", Normalise: RuleFixed}, `key "lo": normalise = "fixed" needs finite lo < hi, got lo=0 hi=0`},
		{"file minmax with lo", Spec{Name: "d", Source: SourceFile, Path: "x", Lo: 3}, `key "lo": only used with normalise = "fixed", got normalise = "minmax"`},
		{"file minmax with clip", Spec{Name: "d", Source: SourceFile, Path: "x", Clip: true}, `key "clip": only used with normalise = "fixed"`},
		{"file with mu", Spec{Name: "d", Source: SourceFile, Path: "x", Mu: 1}, `key "mu": not used by source "file"`},
	}
	for _, tt := range tests {
		err := tt.spec.Validate()
		if err == nil {
			t.Errorf("%s: Validate() = nil, want an error containing %s", tt.name, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), `dataset "`) {
			t.Errorf("%s: Validate() = %q, want it to contain %s", tt.name, err, tt.want)
		}
		// Build refuses what Validate refuses.
		if _, berr := tt.spec.Build(10, rand.New(rand.NewPCG(1, 1))); berr == nil || berr.Error() != err.Error() {
			t.Errorf("%s: Build error %v differs from Validate error %v", tt.name, berr, err)
		}
	}
}

func TestSpecValidateReportsAll(t *testing.T) {
	err := Spec{Name: "d", Source: SourceBeta, A: -1, B: -2, Mu: 1}.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, key := range []string{`key "a"`, `key "b"`, `key "mu"`} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not report %s", err, key)
		}
	}
}

func TestSpecValidateAccepts(t *testing.T) {
	for _, s := range []Spec{
		{Name: "d", Source: SourceBeta, A: 0.5, B: 0.5},
		{Name: "d", Source: SourceBeta, A: 2, B: 5, Normalise: RuleMinMax},
		{Name: "d", Source: SourceBeta, A: 2, B: 5, Normalise: RuleNone},
		{Name: "d", Source: SourceBetaSin},
		{Name: "d", Source: SourceBetaSin, A: 3, B: 2, Amplitude: -1, Frequency: 0.5},
		{Name: "d", Source: SourceGaussian, Mu: 1, Sigma: 0.25},
		{Name: "d", Source: SourceGaussian, Mu: 1, Sigma: 0.25, Normalise: RuleNone},
		{Name: "d", Source: SourceGaussian, Mu: 0, Sigma: 1, Lo: 4.5, Hi: 5},
		{Name: "d", Source: SourceUniform, Lo: 0, Hi: 100},
		{Name: "d", Source: SourceFile, Path: "x.csv", Column: 3, Sep: ","},
		{Name: "d", Source: SourceFile, Path: "x.txt", Sep: ";", Normalise: RuleFixed, Lo: 180, Hi: 260, Clip: true},
		{Name: "d", Source: SourceFile, Path: "x.txt", Normalise: RuleNone},
	} {
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestSpecKey(t *testing.T) {
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "beta32", Source: SourceBeta, A: 3, B: 2}, "beta(a=3,b=2) normalise=fixed"},
		{Spec{Name: "x", Source: SourceBeta, A: 2, B: 5, Normalise: RuleMinMax}, "beta(a=2,b=5) normalise=minmax"},
		{Spec{Name: "x", Source: SourceBetaSin}, "beta-sin(a=2,b=5,amplitude=0.5,frequency=10) normalise=fixed"},
		{Spec{Name: "x", Source: SourceGaussian, Mu: 1.0 / 3, Sigma: 0.25}, "gaussian(mu=0.3333333333333333,sigma=0.25,lo=-1,hi=1) normalise=fixed"},
		{Spec{Name: "x", Source: SourceUniform}, "uniform(lo=-1,hi=1) normalise=fixed"},
		{Spec{Name: "x", Source: SourceFile, Path: "../shared/data/magic04.data", Sep: ","}, `file(path=magic04.data,column=0,sep=",") normalise=minmax`},
		{Spec{Name: "x", Source: SourceFile, Path: "shuttle.tst"}, `file(path=shuttle.tst,column=0,sep="whitespace") normalise=minmax`},
		{Spec{Name: "x", Source: SourceFile, Path: "power.txt", Column: 4, Sep: ";", Normalise: RuleFixed, Lo: 180, Hi: 260, Clip: true},
			`file(path=power.txt,column=4,sep=";") normalise=fixed(lo=180,hi=260,clip)`},
	}
	for _, tt := range tests {
		if got := tt.spec.Key(); got != tt.want {
			t.Errorf("%s: Key() = %s, want %s", tt.spec.Name, got, tt.want)
		}
	}

	// Equal keys: labels differ, defaults spelled out, directory differs.
	same := [][2]Spec{
		{{Name: "a", Source: SourceBeta, A: 3, B: 2}, {Name: "b", Description: "x", Substitute: true, Source: SourceBeta, A: 3, B: 2, Normalise: RuleFixed}},
		{{Name: "a", Source: SourceBetaSin}, {Name: "a", Source: SourceBetaSin, A: 2, B: 5, Amplitude: 0.5, Frequency: 10}},
		{{Name: "a", Source: SourceUniform}, {Name: "a", Source: SourceUniform, Lo: -1, Hi: 1}},
		{{Name: "a", Source: SourceFile, Path: "data/x.csv"}, {Name: "a", Source: SourceFile, Path: "/elsewhere/x.csv", Sep: "whitespace"}},
	}
	for _, p := range same {
		if p[0].Key() != p[1].Key() {
			t.Errorf("keys differ: %s vs %s", p[0].Key(), p[1].Key())
		}
	}
	// Different data, different keys.
	diff := [][2]Spec{
		{{Name: "a", Source: SourceBeta, A: 3, B: 2}, {Name: "a", Source: SourceBeta, A: 2, B: 3}},
		{{Name: "a", Source: SourceBeta, A: 3, B: 2}, {Name: "a", Source: SourceBeta, A: 3, B: 2, Normalise: RuleMinMax}},
		{{Name: "a", Source: SourceGaussian, Mu: 0.1, Sigma: 1}, {Name: "a", Source: SourceGaussian, Mu: 0.1 + 1e-16, Sigma: 1}},
		{{Name: "a", Source: SourceFile, Path: "x", Column: 1}, {Name: "a", Source: SourceFile, Path: "x", Column: 2}},
		{{Name: "a", Source: SourceFile, Path: "x", Normalise: RuleFixed, Lo: 0, Hi: 1}, {Name: "a", Source: SourceFile, Path: "x", Normalise: RuleFixed, Lo: 0, Hi: 1, Clip: true}},
	}
	for _, p := range diff {
		if p[0].Key() == p[1].Key() {
			t.Errorf("keys equal: %s", p[0].Key())
		}
	}
}

// TestSpecTOML decodes specs the way the harness does and checks the tags.
func TestSpecTOML(t *testing.T) {
	const doc = `
[[datasets]]
name = "beta32"
source = "beta"
a = 3
b = 2.0

[[datasets]]
name = "sin"
description = "Beta+Sin"
source = "beta-sin"
amplitude = 0.25
frequency = 5.0
substitute = true

[[datasets]]
name = "g"
source = "gaussian"
mu = 0.5
sigma = 0.25
lo = -1.0
hi = 1.0
normalise = "none"

[[datasets]]
name = "power"
source = "file"
path = "household_power_consumption.txt"
column = 4
sep = ";"
normalise = "fixed"
lo = 180.0
hi = 260.0
clip = true
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
		{Name: "beta32", Source: SourceBeta, A: 3, B: 2},
		{Name: "sin", Description: "Beta+Sin", Source: SourceBetaSin, Amplitude: 0.25, Frequency: 5, Substitute: true},
		{Name: "g", Source: SourceGaussian, Mu: 0.5, Sigma: 0.25, Lo: -1, Hi: 1, Normalise: RuleNone},
		{Name: "power", Source: SourceFile, Path: "household_power_consumption.txt", Column: 4, Sep: ";", Normalise: RuleFixed, Lo: 180, Hi: 260, Clip: true},
	}
	if len(cfg.Datasets) != len(want) {
		t.Fatalf("decoded %d specs, want %d", len(cfg.Datasets), len(want))
	}
	for i := range want {
		if cfg.Datasets[i] != want[i] {
			t.Errorf("spec %d = %+v, want %+v", i, cfg.Datasets[i], want[i])
		}
		if err := cfg.Datasets[i].Validate(); err != nil {
			t.Error(err)
		}
	}

	// A misspelt key is visible to the harness through Undecoded.
	md, err = toml.Decode("[[datasets]]\nname = \"x\"\nsource = \"beta\"\nalpha = 3.0\n", &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) != 1 || u[0].String() != "datasets.alpha" {
		t.Errorf("Undecoded = %v, want [datasets.alpha]", u)
	}
}

func TestBuildRequirements(t *testing.T) {
	s := Spec{Name: "u", Source: SourceUniform}
	if _, err := s.Build(0, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), `dataset "u": n must be > 0, got 0`) {
		t.Errorf("n = 0: err = %v", err)
	}
	if _, err := s.Build(10, nil); err == nil || !strings.Contains(err.Error(), "nil *rand.Rand") {
		t.Errorf("nil rng: err = %v", err)
	}
	d, err := s.Build(10, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "u" || d.Source != "synthetic uniform(lo=-1,hi=1) n=10" || d.Normalisation.String() != "fixed[lo=-1,hi=1]" || d.Substitute {
		t.Errorf("dataset %q, source %q, normalisation %s, substitute %v", d.Name, d.Source, d.Normalisation, d.Substitute)
	}
}
