//go:build unix

package external_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/estimators"
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/external"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/kinds/fl"
	"github.com/ldpbench/ldpbench/kinds/groupmean"
	"github.com/ldpbench/ldpbench/kinds/multiservice"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/results"
)

// An external mechanism in the kinds beyond mean: fakemech serving pm,
// declared by a spec's [[mechanisms]] as "pm-x", runs in multiservice (as
// a service, methods single-<s>, ua, uwa), groupmean (value:pm-x) and fl
// (as the perturbation of Algorithm 6, task mean and a logistic
// regression's gradients).
//
// Two comparisons per kind:
//
//   - Against the built-in pm: the same MSE (or error) within the CI and
//     the same theory, bit for bit (fakemech answers the variance with
//     pm's own Variance). The rows cannot be pm's byte for byte in any
//     kind: a perturb request draws one seed, rng.Uint64(), from the
//     trial's generator and the program draws every report of the batch
//     from a generator seeded with it, where the built-in pm draws two
//     uniforms per report from the trial's generator itself; and kind
//     multiservice's trial key holds the services (so "sr,lap,pm,sw" and
//     "sr,lap,pm-x,sw" are not paired), kind fl's k-of-d sampling draws
//     one report per request (Perturb), between draws of the coordinates.
//   - Against its in-process twin: the same spec without [[mechanisms]],
//     with "pm-x" registered in-process as pm with the protocol's seeding
//     (twinPM: one rng.Uint64() per batch, a PCG seeded as fakemech seeds
//     it) and exactly the external mechanism's methods. Its rows are the
//     external run's byte for byte (all but the first line, which holds
//     the spec's hash: the [[mechanisms]] entry is part of it): the pipe,
//     the wrapper's capabilities and its batches change nothing.

// twinSeq is fakemech's second PCG word (external/internal/fakemech).
const twinSeq = 0x9e3779b97f4a7c15

// twinPM is pm with the protocol's seeding, in-process, with the methods
// of the external wrapper of a program that declares variance and
// continuous (and nothing more, so that a kind takes the same paths).
type twinPM struct {
	name string
	pm   *mechanisms.Piecewise
	seq  uint64 // the PCG's second word, twinSeq unless set
}

func (t twinPM) Name() string             { return t.name }
func (t twinPM) Epsilon() float64         { return t.pm.Epsilon() }
func (t twinPM) Domain() (lo, hi float64) { return t.pm.Domain() }

func (t twinPM) PerturbBatch(dst, xs []float64, rng *rand.Rand) error {
	for i, x := range xs {
		if !(x >= -1) || x > 1 {
			return &mechanisms.InputError{Mechanism: t.name, Index: i, Value: x, Lo: -1, Hi: 1}
		}
	}
	if len(xs) == 0 {
		return nil
	}
	seq := t.seq
	if seq == 0 {
		seq = twinSeq
	}
	return t.pm.PerturbBatch(dst, xs, rand.New(rand.NewPCG(rng.Uint64(), seq)))
}

func (t twinPM) Perturb(x float64, rng *rand.Rand) float64 {
	var out [1]float64
	if err := t.PerturbBatch(out[:], []float64{x}, rng); err != nil {
		return math.NaN()
	}
	return out[0]
}

func (t twinPM) Variance(x float64) float64                { return t.pm.Variance(x) }
func (t twinPM) WorstCaseVariance() float64                { return t.pm.WorstCaseVariance() }
func (t twinPM) OutputRange() (lo, hi float64)             { return t.pm.OutputRange() }
func (t twinPM) Density(y, x float64) float64              { return t.pm.Density(y, x) }
func (t twinPM) CDF(y, x float64) float64                  { return t.pm.CDF(y, x) }
func (t twinPM) BucketGivenBin(a, b, c, d float64) float64 { return t.pm.BucketGivenBin(a, b, c, d) }

func (t twinPM) VarianceBatch(dst, xs []float64) error {
	for i, x := range xs {
		dst[i] = t.pm.Variance(x)
	}
	return nil
}

func (t twinPM) DensitiesAt(dst, ys []float64, x float64) error {
	for i, y := range ys {
		dst[i] = t.pm.Density(y, x)
	}
	return nil
}

func (t twinPM) BucketsAt(dst, edges []float64, xlo, xhi float64) error {
	for i := 0; i+1 < len(edges); i++ {
		dst[i] = t.pm.BucketGivenBin(edges[i], edges[i+1], xlo, xhi)
	}
	return nil
}

// extMethods lists the external wrapper's methods that a kind may ask for
// by a type assertion; twinPM must have the same set (checked below).
type extMethods interface {
	mechanisms.Estimate
	mechanisms.Continuous
	mechanisms.LawBatcher
	mechanisms.VarianceBatcher
}

var _ extMethods = twinPM{}

// kindCase is one kind's spec: %s is where the [[mechanisms]] entry goes.
type kindCase struct {
	name  string
	kinds experiment.Registry
	spec  string
	// metric and the method/params pairs compared: the external's label
	// and the built-in pm's.
	metric string
	z      float64 // the largest |z| accepted
}

var kindCases = []kindCase{
	{
		name:  "multiservice",
		kinds: experiment.Registry{multiservice.Kind{}},
		spec: `
name = "ext-ms"
kind = "multiservice"
seed = 31
trials = 40
metrics = ["mse"]
[axes]
method = ["single-3", "ua", "uwa"]
eps = [0.5, 2]
n = [4000]
params = { services = ["sr,lap,pm,sw", "sr,lap,pm-x,sw"], h = ["20"] }
[[datasets]]
name = "beta(2,5)"
source = "beta"
a = 2.0
b = 5.0
normalise = "minmax"
%s`,
		metric: "mse",
		z:      5,
	},
	{
		name:  "groupmean",
		kinds: experiment.Registry{groupmean.Kind{}},
		spec: `
name = "ext-gm"
kind = "groupmean"
seed = 32
trials = 60
metrics = ["scaled_abs_error", "group_error_ratio"]
[axes]
method = ["value:pm", "value:pm-x"]
eps = [1, 4]
n = [2000]
params = { shape = ["uniform"], groups = ["2", "8"] }
[[datasets]]
name = "synthetic"
source = "uniform"
lo = -1.0
hi = 1.0
%s`,
		metric: "scaled_abs_error",
		z:      5,
	},
	{
		name:  "fl-mean",
		kinds: experiment.Registry{fl.Kind{}},
		spec: `
name = "ext-fl-mean"
kind = "fl"
seed = 33
trials = 4
metrics = ["mse"]
[axes]
method = ["pm", "pm-x"]
eps = [4]
n = [1]
params = { task = ["mean"] }
[[datasets]]
name = "ipums-br-standin"
source = "uniform"
substitute = true
%s`,
		metric: "mse",
		z:      5,
	},
	{
		name:  "fl-logistic",
		kinds: experiment.Registry{fl.Kind{}},
		spec: `
name = "ext-fl-erm"
kind = "fl"
seed = 34
trials = 2
metrics = ["misclassification_rate"]
[axes]
method = ["pm", "pm-x"]
eps = [4]
n = [1]
params = { model = ["logistic"] }
[[datasets]]
name = "ipums-br-standin"
source = "uniform"
substitute = true
%s`,
		metric: "misclassification_rate",
		z:      0, // two trials: the twin's bytes only (see the test)
	},
}

// runKindSpec writes spec (with block in place of %s) and runs it.
func runKindSpec(t *testing.T, kc kindCase, block string) ([]byte, *harness.Result, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "spec.toml")
	if err := os.WriteFile(path, fmt.Appendf(nil, kc.spec, block), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := harness.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	t0 := time.Now()
	res, err := harness.Run(context.Background(), kc.kinds, s, harness.Options{OutDir: out, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	rows, err := os.ReadFile(filepath.Join(out, harness.RowsFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows, res, took
}

// TestKindsExternal runs each kind's spec with fakemech's pm as "pm-x" and
// with its in-process twin, and compares them byte for byte, and the
// external's summaries with the built-in pm's.
func TestKindsExternal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four kinds through a pipe (about 20 s)")
	}
	block := fmt.Sprintf("[[mechanisms]]\nname = \"pm-x\"\ncommand = [%q, \"-mech\", \"pm\"]\n", fake(t))
	for _, kc := range kindCases {
		t.Run(kc.name, func(t *testing.T) {
			ext, res, took := runKindSpec(t, kc, block)
			unregister, err := mechanisms.Register(mechanisms.Info{
				Name:    "pm-x",
				Summary: "pm with the protocol's seeding, in-process (test)",
				New: func(eps float64) (mechanisms.Mechanism, error) {
					pm, err := mechanisms.NewPM(eps)
					if err != nil {
						return nil, err
					}
					return twinPM{name: "pm-x", pm: pm}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			twin, _, tookTwin := runKindSpec(t, kc, "")
			unregister()
			t.Logf("%s: external run %v, in-process twin %v", kc.name, took.Round(time.Millisecond), tookTwin.Round(time.Millisecond))
			if a, b := afterFirstLine(ext), afterFirstLine(twin); len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("the external run's rows differ from its in-process twin's (%d and %d bytes)\n%s", len(a), len(b), firstDiff(a, b))
			}
			compareWithPM(t, kc, res)
		})
	}
}

// compareWithPM pairs each summary of the external (a method or params
// naming pm-x) with the built-in pm's, and checks that the theories are
// equal, bit for bit, and the means within kc.z standard errors.
func compareWithPM(t *testing.T, kc kindCase, res *harness.Result) {
	t.Helper()
	type pair struct{ ext, pm *results.Summary }
	pairs := map[string]*pair{}
	for i := range res.Summaries {
		sm := &res.Summaries[i]
		if sm.Metric != kc.metric {
			continue
		}
		params := sm.Params
		isExt := strings.Contains(sm.Method+params, "pm-x")
		key := strings.ReplaceAll(fmt.Sprint(sm.Dataset, " ", sm.Method, " ", sm.Eps, " ", sm.N, " ", params), "pm-x", "pm")
		p := pairs[key]
		if p == nil {
			p = &pair{}
			pairs[key] = p
		}
		if isExt {
			p.ext = sm
		} else {
			p.pm = sm
		}
	}
	compared := 0
	for key, p := range pairs {
		if p.ext == nil || p.pm == nil {
			continue
		}
		compared++
		ext, pm := p.ext, p.pm
		if ext.Count != pm.Count || ext.Count == 0 {
			t.Errorf("%s: %d trials of pm-x, %d of pm", key, ext.Count, pm.Count)
		}
		if math.Float64bits(float64(ext.Theory)) != math.Float64bits(float64(pm.Theory)) {
			t.Errorf("%s: theory %v, pm's %v", key, ext.Theory, pm.Theory)
		}
		z := (float64(ext.Mean) - float64(pm.Mean)) / math.Hypot(float64(pm.SE), float64(ext.SE))
		t.Logf("%s: %s pm-x %.4g ± %.2g, pm %.4g ± %.2g, theory %.4g (z = %+.2f)", key, kc.metric, float64(ext.Mean), float64(ext.SE), float64(pm.Mean), float64(pm.SE), float64(pm.Theory), z)
		if kc.z > 0 && !(math.Abs(z) <= kc.z) {
			t.Errorf("%s: z = %.2f between pm-x and pm", key, z)
		}
	}
	if compared == 0 {
		t.Errorf("no summary of pm-x paired with pm's")
	}
}

func afterFirstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return nil
}

// firstDiff shows the first differing line of a and b.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  external %s\n  twin     %s", i+2, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d and %d lines", len(la), len(lb))
}

// TestVarianceBatchTheory: the external wrapper is a
// mechanisms.VarianceBatcher, so the exact expected MSE of kind mean (and
// of UA, single services and the oracle UWA) asks one request per 16,384
// users, not one per user, and gives pm's value bit for bit.
func TestVarianceBatchTheory(t *testing.T) {
	p := start(t, external.Config{Name: "fake-pm-var", Command: []string{fake(t), "-mech", "pm"}})
	m, err := p.Mechanism(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(mechanisms.VarianceBatcher); !ok {
		t.Fatalf("%T is not a mechanisms.VarianceBatcher", m)
	}
	const n = 100000
	rng := rand.New(rand.NewPCG(5, 6))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 2*rng.Float64() - 1
	}
	pm, _ := mechanisms.NewPM(1)
	t0 := time.Now()
	got, err := estimators.ExpectedMeanMSEErr(m.(mechanisms.Variancer), xs)
	if err != nil {
		t.Fatal(err)
	}
	batched := time.Since(t0)
	if want := estimators.ExpectedMeanMSE(pm, xs); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("ExpectedMeanMSE through the pipe = %v, pm's %v", got, want)
	}
	// The point-wise path, one request per distinct value, for the record.
	t0 = time.Now()
	var s float64
	for _, x := range xs[:10000] {
		s += m.(mechanisms.Variancer).Variance(x)
	}
	perValue := time.Since(t0)
	t.Logf("n = %d: batched %v (7 requests); point-wise %v for 10,000 values (%v per request)", n, batched.Round(time.Microsecond), perValue.Round(time.Millisecond), (perValue / 10000).Round(time.Microsecond))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestKindsExternalCrash: a program that crashes in kind groupmean (whose
// value reports go through group.Mechanism.Simulate) fails the run with
// the external error, naming the mechanism and the program's stderr, and
// the finished cells are kept; before, Simulate dropped the value
// mechanism's error and the run wrote rows from stale reports.
func TestKindsExternalCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kinds groupmean and fl through a pipe")
	}
	// groupmean perturbs in batches; fl's task mean one coordinate at a
	// time (SampleKofD), where a failed request is a NaN report until
	// PerturbVector asks the mechanism why (mechanisms.Failer).
	for _, tc := range []struct {
		kc          kindCase
		name, crash string
	}{
		{kindCases[1], "ext-gm", "200"},
		{kindCases[2], "ext-fl-mean", "3000"},
	} {
		t.Run(tc.kc.name+"/"+tc.name, func(t *testing.T) {
			kc := tc.kc
			dir := t.TempDir()
			path := filepath.Join(dir, "spec.toml")
			block := fmt.Sprintf("[[mechanisms]]\nname = \"pm-x\"\ncommand = [%q, \"-mech\", \"pm\"]\n", fake(t))
			// Another experiment name than TestKindsExternal's: the same
			// spec and command would take its results from a kind's memo.
			text := strings.Replace(fmt.Sprintf(kc.spec, block), `name = "`+tc.name+`"`, `name = "`+tc.name+`-crash"`, 1)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := harness.LoadSpec(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("FAKEMECH_FLAGS", "-crash-after "+tc.crash)
			out := filepath.Join(dir, "out")
			_, err = harness.Run(context.Background(), kc.kinds, s, harness.Options{OutDir: out, Jobs: 1})
			if err == nil {
				t.Fatal("the run did not fail")
			}
			for _, want := range []string{`external mechanism "pm-x"`, "exit status 3", "crashing at batch " + tc.crash, "cells finished and kept"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\nlacks %q", err, want)
				}
			}
			if _, err := os.Stat(filepath.Join(out, harness.PartialFile)); err != nil {
				t.Errorf("the finished cells are not kept: %v", err)
			}
		})
	}
}

// TestKindsRebound: kind groupmean's memo of tallies (shared by sibling
// cells) tells apart two mechanisms bound in turn to one name in one
// process, as a spec's external program is for one run: the second run of
// the same spec, with "pm-x" now pm seeded otherwise (the same law and
// theory, other reports), draws its own reports.
func TestKindsRebound(t *testing.T) {
	kc := kindCases[1]
	runAs := func(summary string, seq uint64) []byte {
		unregister, err := mechanisms.Register(mechanisms.Info{
			Name:    "pm-x",
			Summary: summary,
			New: func(eps float64) (mechanisms.Mechanism, error) {
				pm, err := mechanisms.NewPM(eps)
				return twinPM{name: "pm-x", pm: pm, seq: seq}, err
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer unregister()
		rows, _, _ := runKindSpec(t, kc, "")
		return afterFirstLine(rows)
	}
	a := runAs("pm (test)", 0)
	b := runAs("pm seeded otherwise (test)", 1)
	c := runAs("pm (test)", 0)
	if bytes.Equal(a, b) {
		t.Errorf("pm-x rebound to pm seeded otherwise gives the first binding's rows: the memo returned its tallies")
	}
	if !bytes.Equal(a, c) {
		t.Errorf("the same binding twice gives different rows")
	}
}
