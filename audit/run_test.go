package audit_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/audit"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// runTargets: a tight mechanism, a broken one, one without a law, the
// paper's Group NPRR (a known erratum) and its fix.
func runTargets(t *testing.T) []audit.Target {
	t.Helper()
	duchi, _ := mechanisms.NewDuchi(1)
	pm, _ := mechanisms.NewPM(1)
	paper := audit.JointTarget(newRefNPRR(2, 8, 1, true), "ref-group-nprr(d=2, k=8, neutral=nprr0)", "ref-group-nprr k=8 nprr0", 1)
	paper.KnownIssue = "E2.1"
	fixed := audit.JointTarget(newRefNPRR(2, 8, 1, false), "ref-group-nprr(d=2, k=8, neutral=uniform-grid)", "ref-group-nprr k=8 uniform-grid", 1)
	return []audit.Target{
		audit.MechanismTarget(duchi),
		audit.MechanismTarget(newDoubledPM(1)),
		audit.MechanismTarget(noLaw{pm}),
		paper,
		fixed,
	}
}

// TestRun: the rows, their order and verdicts; a target without a law gets
// a Monte Carlo row even when Monte Carlo is off; the family-wise alpha is
// split over the Monte Carlo rows; Unexpected keeps the broken mechanism
// and not the known erratum; and the rows do not depend on the number of
// workers (each Monte Carlo row has its own seed).
func TestRun(t *testing.T) {
	ts := runTargets(t)
	rows, err := audit.Run(context.Background(), ts, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		name    string
		method  audit.Method
		verdict string
	}
	var got []key
	for _, r := range rows {
		got = append(got, key{r.Name, r.Method, r.Verdict})
	}
	want := []key{
		{"duchi", audit.MethodExact, audit.Pass},
		{"pm-at-2eps", audit.MethodDensity, audit.Violation},
		{"hidden-pm", audit.MethodMonteCarlo, audit.Pass},
		{"ref-group-nprr(d=2, k=8, neutral=nprr0)", audit.MethodExact, audit.Violation},
		{"ref-group-nprr(d=2, k=8, neutral=uniform-grid)", audit.MethodExact, audit.Pass},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	if r := rows[2]; r.Alpha != 1e-3 || r.Samples != 200_000 {
		t.Errorf("the only Monte Carlo row: alpha %v, N %d; want the defaults 1e-3 and 200,000", r.Alpha, r.Samples)
	}
	if un := audit.Unexpected(rows); len(un) != 1 || un[0].Name != "pm-at-2eps" {
		t.Errorf("Unexpected: %v", un)
	}
	if r := rows[3]; math.Abs(r.True-(1+math.Log((math.E+8)/9))) > 1e-12 || !math.IsNaN(rows[0].True) {
		t.Errorf("true ε: %v (group NPRR), %v (duchi)", r.True, rows[0].True)
	}

	opt := audit.Options{MC: audit.MCConfig{N: 20_000, Alpha: 0.01}, Seed: 7, Workers: 1}
	one, err := audit.Run(context.Background(), ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 2*len(ts)-1 {
		t.Fatalf("%d rows with Monte Carlo on, want %d", len(one), 2*len(ts)-1)
	}
	for _, r := range one {
		if r.Method == audit.MethodMonteCarlo && r.Alpha != 0.01/float64(len(ts)) {
			t.Errorf("%s: alpha %v, want 0.01/%d", r.Name, r.Alpha, len(ts))
		}
	}
	opt.Workers = 3
	three, err := audit.Run(context.Background(), ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		if a, b := strings.Join(one[i].Record(), ","), strings.Join(three[i].Record(), ","); a != b {
			t.Errorf("row %d differs with 3 workers:\n%s\n%s", i, a, b)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := audit.Run(ctx, ts, opt); err == nil {
		t.Error("a cancelled audit returned no error")
	}
	if _, err := audit.Run(context.Background(), []audit.Target{{Name: "empty", Claimed: 1}}, opt); err == nil {
		t.Error("a target without a mechanism accepted")
	}
}

// TestReport: the CSV has the documented header and one record per row,
// is written atomically (no temporary file left), and reads back with the
// values (ε as the shortest round-tripping float, +Inf as "+Inf", no
// Monte Carlo fields on exact rows); the summary names every violation
// and marks the known one.
func TestReport(t *testing.T) {
	rows, err := audit.Run(context.Background(), runTargets(t), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	knots, _ := mechanisms.NewNOutputAuthorsKnots(3, 4)
	inf, err := audit.Run(context.Background(), []audit.Target{audit.MechanismTarget(knots)}, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows = append(rows, inf...)
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.csv")
	if err := audit.WriteCSVFile(path, rows); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want audit.csv alone", len(entries))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], audit.Header) || len(recs) != len(rows)+1 {
		t.Fatalf("header %v, %d records for %d rows", recs[0], len(recs)-1, len(rows))
	}
	col := func(rec []string, name string) string { return rec[slices.Index(audit.Header, name)] }
	for i, r := range rows {
		rec := recs[i+1]
		eps, err := strconv.ParseFloat(col(rec, "audited_eps"), 64)
		if err != nil || (eps != r.Epsilon && !(math.IsInf(eps, 1) && math.IsInf(r.Epsilon, 1))) {
			t.Errorf("row %d: audited_eps %q, want %v", i, col(rec, "audited_eps"), r.Epsilon)
		}
		if col(rec, "method") != string(r.Method) || col(rec, "verdict") != r.Verdict || col(rec, "mechanism") != r.Name {
			t.Errorf("row %d: %v", i, rec)
		}
		mc := r.Method == audit.MethodMonteCarlo
		if (col(rec, "alpha") != "") != mc || (col(rec, "samples") != "") != mc {
			t.Errorf("row %d (%s): alpha %q, samples %q", i, r.Method, col(rec, "alpha"), col(rec, "samples"))
		}
	}
	if col(recs[len(recs)-1], "audited_eps") != "+Inf" {
		t.Errorf("the authors' knots: audited_eps %q", col(recs[len(recs)-1], "audited_eps"))
	}
	var b bytes.Buffer
	if err := audit.Summary(&b, rows); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"VIOLATION pm-at-2eps ε=1: claimed 1, audited 2 by density (excess 1)",
		"VIOLATION ref-group-nprr(d=2, k=8, neutral=nprr0) ε=1: claimed 1, audited 1.17473 by exact (excess 0.174726); states true ε 1.17473 [known: E2.1]",
		"VIOLATION n-output-authors-knots ε=3: claimed 3, audited +Inf by exact",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "VIOLATION duchi") || strings.Contains(s, "no violations") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestFigure: the PNG (7 in wide at 300 dpi, the plot 4.6 in tall and
// the legend and caption under it) and the SVG are written atomically,
// the SVG names each violating family in its legend (the excess beside its
// point, +Inf in the band above the axis for an invalid law), and no rows
// is an error.
func TestFigure(t *testing.T) {
	rows, err := audit.Run(context.Background(), runTargets(t), audit.Options{MC: audit.MCConfig{N: 20_000}})
	if err != nil {
		t.Fatal(err)
	}
	knots, _ := mechanisms.NewNOutputAuthorsKnots(3, 4)
	inf, _ := audit.Run(context.Background(), []audit.Target{audit.MechanismTarget(knots)}, audit.Options{})
	rows = append(rows, inf...)
	dir := t.TempDir()
	files, err := audit.WriteFigure(dir, "audit", rows)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, []string{filepath.Join(dir, "audit.png"), filepath.Join(dir, "audit.svg")}) {
		t.Fatalf("files %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 2100 || b.Dy() < 1560 || b.Dy() > 2400 {
		t.Errorf("PNG %v, want 2100 wide and 1560–2400 tall", b)
	}
	svg, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"VIOLATION pm-at-2eps", "VIOLATION ref-group-nprr k=8 nprr0 [known: E2.1]", ">+0.175<", ">+1<", ">+Inf<", ">off scale<", "drawn in the grey band:", "Audited vs claimed"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want 2", len(entries))
	}
	if _, err := audit.WriteFigure(dir, "empty", nil); err == nil {
		t.Error("a figure of no rows")
	}
}
