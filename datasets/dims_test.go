package datasets

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/gonum/stat/distuv"
)

// zhao16 is Zhao et al.'s 16-dimensional synthetic dataset with mean mu.
func zhao16(mu float64) Spec {
	return Spec{Name: "gauss16", Source: SourceGaussian, Mu: mu, Sigma: 0.25, Lo: -1, Hi: 1, Dims: 16}
}

// TestDimsDefault: dims 0 and 1 are the one-dimensional behaviour: the same
// key and, from the same generator state, the same values.
func TestDimsDefault(t *testing.T) {
	for _, base := range []Spec{
		{Name: "b", Source: SourceBeta, A: 3, B: 2},
		{Name: "g", Source: SourceGaussian, Mu: 0.3, Sigma: 0.25},
		{Name: "u", Source: SourceUniform, Normalise: RuleMinMax},
	} {
		one := base
		one.Dims = 1
		if base.Key() != one.Key() || strings.Contains(base.Key(), "dims") {
			t.Errorf("%s: key %q, with dims = 1 %q", base.Name, base.Key(), one.Key())
		}
		a, err := base.Build(500, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := one.Build(500, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Values, b.Values) || a.Source != b.Source || a.Dim() != 1 || b.Dim() != 1 || a.Rows() != 500 {
			t.Errorf("%s: dims = 1 changes the data (%s vs %s)", base.Name, a.Source, b.Source)
		}
	}
	// A Dataset literal without Dims is one-dimensional.
	d := Dataset{Values: []float64{0.5, -0.5, 0}}
	if d.Dim() != 1 || d.Rows() != 3 || d.Row(1)[0] != -0.5 {
		t.Errorf("literal: Dim %d, Rows %d", d.Dim(), d.Rows())
	}
}

func TestDimsValidate(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "d", Source: SourceUniform, Dims: -1}, `dataset "d": key "dims": must be an integer in [1, 65536], got -1`},
		{Spec{Name: "d", Source: SourceUniform, Dims: MaxDims + 1}, `key "dims": must be an integer in [1, 65536]`},
		{Spec{Name: "d", Source: SourceFile, Path: "x", Dims: 3}, `key "dims": source "file" has one attribute per spec`},
	} {
		err := c.spec.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %s", c.spec, err, c.want)
		}
	}
	if err := (Spec{Name: "d", Source: SourceFile, Path: "x", Dims: 1}).Validate(); err != nil {
		t.Errorf("file with dims = 1: %v", err)
	}
}

// TestDimsBuild: n rows of d iid attributes, row-major, each attribute's
// mean within z·σ/√n of the truncated normal's mean (σ ≤ 1/4 is the
// sd of N(μ, 1/4) truncated to a window that holds its mean).
func TestDimsBuild(t *testing.T) {
	const n = 20000
	for _, mu := range []float64{0, 1.0 / 3, 2.0 / 3, 1} {
		s := zhao16(mu)
		if !strings.HasSuffix(s.Key(), " dims=16") {
			t.Errorf("key %q", s.Key())
		}
		d, err := s.Build(n, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		if d.Dims != 16 || d.Dim() != 16 || d.Len() != 16*n || d.Rows() != n || !strings.HasSuffix(d.Source, " dims=16") {
			t.Fatalf("μ=%v: Dims %d, Len %d, Rows %d, Source %q", mu, d.Dims, d.Len(), d.Rows(), d.Source)
		}
		if r := d.Row(7); len(r) != 16 || &r[0] != &d.Values[7*16] {
			t.Error("Row(7) is not Values[112:128]")
		}
		for _, x := range d.Values {
			if !(x >= -1 && x <= 1) {
				t.Fatalf("value %v outside [-1, 1]", x)
			}
		}
		// Truncated normal mean μ + σ(φ(a) - φ(b))/(Φ(b) - Φ(a)).
		a, b := (-1-mu)/0.25, (1-mu)/0.25
		z := distuv.UnitNormal
		want := mu + 0.25*(z.Prob(a)-z.Prob(b))/(z.CDF(b)-z.CDF(a))
		tol := 4.8916384756985903862 * 0.25 / math.Sqrt(n)
		means := d.AttributeMeans(0)
		for j, m := range means {
			if math.Abs(m-want) > tol {
				t.Errorf("μ=%v attribute %d: mean %v, truncated-normal mean %v ± %v", mu, j, m, want, tol)
			}
		}
		// The first rows only, and compensated sums against a plain loop.
		head := d.AttributeMeans(10)
		for j := range head {
			s := 0.0
			for i := range 10 {
				s += d.Values[i*16+j]
			}
			if math.Abs(head[j]-s/10) > 1e-15 {
				t.Errorf("AttributeMeans(10)[%d] = %v, want %v", j, head[j], s/10)
			}
		}
	}
	// minmax with dims > 1: one map over all attributes.
	s := Spec{Name: "u", Source: SourceUniform, Lo: 0, Hi: 5, Normalise: RuleMinMax, Dims: 4}
	d, err := s.Build(100, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Min(d.Values) != -1 || slices.Max(d.Values) != 1 {
		t.Errorf("minmax over all attributes: [%v, %v]", slices.Min(d.Values), slices.Max(d.Values))
	}
}

func TestDimsTOML(t *testing.T) {
	var v struct{ Datasets []Spec }
	md, err := toml.Decode(`
[[datasets]]
name = "gauss16-mu1/3"
source = "gaussian"
mu = 0.3333333333333333
sigma = 0.25
lo = -1.0
hi = 1.0
dims = 16
`, &v)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("decode: %v, undecoded %v", err, md.Undecoded())
	}
	if v.Datasets[0].Dims != 16 || v.Datasets[0].Validate() != nil {
		t.Errorf("decoded %+v", v.Datasets[0])
	}
}
