package datasets_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldpbench/ldpbench/datasets"
)

// A dataset is built from a spec and a caller-seeded generator; result rows
// record its Normalisation and Source, and its own mean is the ground truth.
func ExampleSpec_Build() {
	spec := datasets.Spec{Name: "beta32", Source: datasets.SourceBeta, A: 3, B: 2}
	d, err := spec.Build(100_000, rand.New(rand.NewPCG(2025, 1)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Name, d.Len())
	fmt.Println(d.Normalisation)
	fmt.Println(d.Source)
	fmt.Printf("mean %.2f (population 0.2)\n", d.Mean())
	// Output:
	// beta32 100000
	// fixed[lo=0,hi=1]
	// synthetic beta(a=3,b=2) n=100000
	// mean 0.20 (population 0.2)
}

func ExampleSpec_Validate() {
	spec := datasets.Spec{Name: "beta32", Source: datasets.SourceBeta, A: -1, B: 2}
	fmt.Println(spec.Validate())
	// Output:
	// dataset "beta32": key "a": must be finite and > 0, got -1
}

func ExampleSpec_Key() {
	s, _ := datasets.Lookup("beta-sin")
	fmt.Println(s.Key())
	// Output:
	// beta-sin(a=2,b=5,amplitude=0.5,frequency=10) normalise=fixed
}

func ExampleNormalisation_String() {
	n := datasets.Normalisation{Rule: datasets.RuleMinMax, Lo: 4.2835, Hi: 334.177}
	fmt.Println(n)
	fmt.Println(n.Apply(4.2835), n.Apply(334.177))
	// Output:
	// minmax[lo=4.2835,hi=334.177]
	// -1 1
}

func ExampleLookup() {
	for _, s := range datasets.Catalogue() {
		fmt.Println(s.Name, s.Source)
	}
	s, ok := datasets.Lookup("gaussian-mu1")
	fmt.Println(ok, s.Mu, s.Sigma)
	// Output:
	// beta32 beta
	// beta25 beta
	// beta25-minmax beta
	// beta-sin beta-sin
	// gaussian-mu0 gaussian
	// gaussian-mu0.33 gaussian
	// gaussian-mu0.67 gaussian
	// gaussian-mu1 gaussian
	// uniform uniform
	// magic-fLength file
	// magic-fAlpha file
	// shuttle-col0 file
	// taxi file
	// retirement file
	// voltage file
	// nytaxi file
	// vehicle file
	// wisdm file
	// magic-fAlpha-by-class file
	// shuttle-col0-by-class file
	// mimic-admission-type standin
	// mimic-admission-location standin
	// mimic-discharge-location standin
	// mimic-deceased standin
	// mimic-gender standin
	// aquila-disease-age standin
	// aquila-disease-bmi standin
	// aquila-disease-height standin
	// aquila-disease-weight standin
	// aquila-gender-age standin
	// aquila-gender-bmi standin
	// aquila-gender-height standin
	// aquila-gender-weight standin
	// true 1 0.25
}

func ExampleLoadColumn() {
	dir, err := os.MkdirTemp("", "ldpbench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "x.csv")
	content := "# id,value\n1,2.5\n\n2,-4\n3,abc\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}
	_, err = datasets.LoadColumn(path, 1, ",")
	fmt.Println(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)))

	xs, err := datasets.LoadColumn(path, 0, ",")
	fmt.Println(xs, err)
	// Output:
	// x.csv:5: column 1 (field 2): cannot parse "abc" as a number
	// [1 2 3] <nil>
}

// Find locates a fetched data file; a missing one wraps ErrNotFound, and the
// harness skips that dataset.
func ExampleFind() {
	path, err := datasets.Find("magic04.data")
	if err != nil {
		log.Print(err) // suggests `make data`
		return
	}
	xs, err := datasets.LoadColumn(path, 0, ",")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(xs))
}

// Paper 002's synthetic group data: sizes, a shape and a range; the truth
// is the sample's own group means on the raw values, and Scaled gives the
// mechanisms' input on [-1, 1].
func ExampleSyntheticGrouped() {
	g, err := datasets.SyntheticGrouped(datasets.ShapeConstant, datasets.EqualSizes(20_000, 2), 0, 100, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Sizes(), g.Labels)
	fmt.Printf("%.4f\n", g.Means())
	scaled := make([]float64, g.Len())
	g.Scaled(scaled)
	fmt.Printf("user 0: group %d, raw %.4f, scaled %.4f\n", g.Groups[0], g.Values[0], scaled[0])
	// Output:
	// [10000 10000] [0 1]
	// [33.3333 66.6667]
	// user 0: group 1, raw 66.6667, scaled 0.3333
}

// A UCI file with its class column as the groups: the values stay raw, and
// the grouped view scales them with the declared fixed range.
func ExampleDataset_Grouped() {
	spec := datasets.Spec{Name: "magic-fAlpha-by-class", Source: datasets.SourceFile, Path: "magic04.data", Sep: ",",
		Column: 8, GroupColumn: datasets.ColumnAt(10), Lo: 0, Hi: 90}
	d, err := spec.Build(0, nil)
	if err != nil {
		log.Print(err) // magic04.data not fetched: `make data`
		return
	}
	g, err := d.Grouped(0, 90)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Labels, g.Sizes())
	fmt.Printf("%.2f\n", g.Means())
}

// A stand-in for MIMIC-IV's admission locations: the paper's printed group
// sizes and Table 7's labels, with synthetic ages (not MIMIC data).
func ExampleSpec_Build_standin() {
	spec := datasets.Spec{Name: "mimic-admission-location", Source: datasets.SourceStandin, Standin: "mimic-admission-location"}
	d, err := spec.BuildSeed(0, 2025)
	if err != nil {
		log.Fatal(err)
	}
	g, err := d.Grouped(18, 100)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Len(), g.D, d.Substitute)
	fmt.Println(g.Sizes())
	fmt.Println(g.Labels[2])
	// Output:
	// 430862 11 true
	// [185 10006 232476 358 4204 5401 114815 7798 35964 3842 15813]
	// EMERGENCY ROOM
}
