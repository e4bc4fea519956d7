package datasets

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Stand-ins for Raab et al.'s real-data experiments (E5 on MIMIC-IV, E6 on
// AQUILA; Sections 5.1.2, 5.1.3 and 5.3). Both are access-restricted data
// that ldpbench can never ship (AQUILA is a Novartis study that is not
// public at all), so these are synthetic: they reproduce the published
// group structure — the exact group sizes printed in the paper's captions
// and, for MIMIC-IV, the category names of its Table 7 in that
// (alphabetical) order — and the paper's fixed value ranges (Table 2), and
// nothing else. Every dataset built from a stand-in is marked Substitute.
//
// MIMIC-IV: the value, age in years on [18, 100], is drawn per group from
//
//	age ~ N(μ_g, σ²) truncated to [18, 100] (rejection, see TruncNormal),
//	μ_g = 50 + 20·g/(d − 1) years, σ = 15 years,
//
// so the group means (after truncation) rise from 50.6 to 69.2 years. Why: the
// paper's MIMIC plots show group mean ages of roughly 55 to 70, and groups
// whose means differ (by 20 years for d = 2, 1.7 years between neighbours
// for d = 13) give the order-correctness and scatter plots something to
// resolve; equal means would make order correctness a coin toss. The
// assignment of means to groups (rising with the group index) is an
// ldpbench choice, not MIMIC's: nothing about the real ages, their spread or
// their ordering across groups is claimed.
//
// AQUILA: four values (age 18–100 y, BMI 10–60 kg/m², height 1.0–2.3 m,
// weight 30–200 kg, the paper's ranges) by disease (AS 683, PsA 1,278) and
// by gender (F 993, M 921), the caption sizes (Figs 6a, 6b, 12 and 13; the
// text's own counts differ, E2.7). The values are truncated normals with
// per-group means and spreads typical of adult spondyloarthritis cohorts,
// an ldpbench choice (aquilaValues says which): the groups differ little in
// BMI by gender (0.3 kg/m²) and much in height by gender (0.14 m), so the
// order-correctness plots have an easy and a hard case, as the paper's do
// (Section 5.3.1); nothing about the real study is claimed.

// The MIMIC-IV stand-ins' age law.
const (
	StandinAgeLo    = 18.0
	StandinAgeHi    = 100.0
	StandinAgeSigma = 15.0
)

// StandinAgeMean returns μ_g = 50 + 20·g/(d − 1) years, the pre-truncation
// mean age of group g of d (d ≥ 2) in a MIMIC-IV stand-in.
func StandinAgeMean(g, d int) float64 {
	return 50 + 20*float64(g)/float64(d-1)
}

// StandinDef describes one stand-in: group labels (in the sorted order
// Dataset.GroupLabels uses), the exact size of each group, and where they
// come from.
type StandinDef struct {
	Name   string
	Labels []string
	Sizes  []int
	Origin string
	// Paper names the data it stands in for ("MIMIC-IV", "AQUILA"), Value
	// the attribute, with its unit, and By the grouping.
	Paper, Value, By string
	// Lo and Hi are the paper's fixed range of the value; each group's
	// values are N(Means[g], Sigmas[g]²) truncated to it.
	Lo, Hi        float64
	Means, Sigmas []float64
}

// Total returns the number of users, the sum of Sizes.
func (d StandinDef) Total() int {
	n := 0
	for _, s := range d.Sizes {
		n += s
	}
	return n
}

// Standins returns the stand-ins of source "standin", fresh on every call.
// Sizes are the paper's printed captions (ERRATA E2.8: they sum to 430,862
// admissions, not the 431,231 of Section 5.1.3), except mimic-gender's,
// which the paper does not print.
func Standins() []StandinDef {
	mimic := []StandinDef{
		{
			Name: "mimic-admission-type",
			Labels: []string{"AMBULATORY OBSERVATION", "DIRECT EMER.", "DIRECT OBSERVATION", "ELECTIVE",
				"EU OBSERVATION", "EW EMER.", "OBSERVATION ADMIT", "SURGICAL SAME DAY ADMISSION", "URGENT"},
			Sizes:  []int{6620, 19519, 18682, 10557, 94739, 149278, 52641, 34184, 44642},
			Origin: "sizes of Fig. 14a, labels of Table 7",
		},
		{
			Name: "mimic-admission-location",
			Labels: []string{"AMBULATORY SURGERY TRANSFER", "CLINIC REFERRAL", "EMERGENCY ROOM",
				"INFORMATION NOT AVAILABLE", "INTERNAL TRANSFER TO OR FROM PSYCH", "PACU",
				"PHYSICIAN REFERRAL", "PROCEDURE SITE", "TRANSFER FROM HOSPITAL",
				"TRANSFER FROM SKILLED NURSING FACILITY", "WALK-IN/SELF REFERRAL"},
			Sizes:  []int{185, 10006, 232476, 358, 4204, 5401, 114815, 7798, 35964, 3842, 15813},
			Origin: "sizes of Fig. 6d, labels of Table 7",
		},
		{
			Name: "mimic-discharge-location",
			Labels: []string{"ACUTE HOSPITAL", "AGAINST ADVICE", "ASSISTED LIVING", "CHRONIC/LONG TERM ACUTE CARE",
				"DIED", "HEALTHCARE FACILITY", "HOME", "HOME HEALTH CARE", "HOSPICE", "OTHER FACILITY",
				"PSYCH FACILITY", "REHAB", "SKILLED NURSING FACILITY"},
			Sizes:  []int{1610, 2587, 550, 7144, 8506, 42, 155321, 75545, 3469, 1354, 2262, 10521, 43013},
			Origin: "sizes of Fig. 14c, labels of Table 7; 311,924 users (admissions without a discharge location dropped)",
		},
		{
			Name:   "mimic-deceased",
			Labels: []string{"no", "yes"},
			Sizes:  []int{324785, 106077},
			Origin: "sizes of Fig. 14b, labels of Table 2",
		},
		{
			Name:   "mimic-gender",
			Labels: []string{"F", "M"},
			Sizes:  []int{225690, 205172},
			Origin: "sizes NOT printed by the paper: derived from Section 5.3.2's \"roughly 10% more female than male\" (M = round(430,862/2.1)); labels MIMIC's codes",
		},
	}
	for i := range mimic {
		d := &mimic[i]
		d.Paper, d.Value, d.By = "MIMIC-IV", "age (years)", strings.TrimPrefix(d.Name, "mimic-")
		d.Lo, d.Hi = StandinAgeLo, StandinAgeHi
		for g := range d.Sizes {
			d.Means = append(d.Means, StandinAgeMean(g, len(d.Sizes)))
			d.Sigmas = append(d.Sigmas, StandinAgeSigma)
		}
	}
	return append(mimic, aquilaStandins()...)
}

// aquilaValue is one AQUILA value with the paper's range and, per group
// of each grouping, the stand-in's pre-truncation mean and spread.
type aquilaValue struct {
	key, value          string
	lo, hi              float64
	byDisease, byGender [2][2]float64 // {mean, sd} of AS, PsA; of F, M
}

// aquilaValues: the ldpbench choice of the stand-in's laws (see the
// package comment above Standins). PsA patients are older and heavier
// than AS patients on average; women are shorter and lighter.
var aquilaValues = []aquilaValue{
	{"age", "age (years)", 18, 100, [2][2]float64{{45, 12}, {52, 12}}, [2][2]float64{{50, 12}, {48, 12}}},
	{"bmi", "BMI (kg/m²)", 10, 60, [2][2]float64{{26.5, 5}, {28.5, 5.5}}, [2][2]float64{{27.6, 6}, {27.9, 4.5}}},
	{"height", "height (m)", 1.0, 2.3, [2][2]float64{{1.74, 0.09}, {1.71, 0.09}}, [2][2]float64{{1.65, 0.07}, {1.79, 0.07}}},
	{"weight", "weight (kg)", 30, 200, [2][2]float64{{79, 16}, {83, 18}}, [2][2]float64{{74, 16}, {88, 16}}},
}

// aquilaStandins returns the eight AQUILA stand-ins: each value by disease
// and by gender.
func aquilaStandins() []StandinDef {
	var defs []StandinDef
	for _, grouping := range []struct {
		key    string
		labels []string
		sizes  []int
		origin string
	}{
		{"disease", []string{"AS", "PsA"}, []int{683, 1278}, "sizes of Figs 6a, 12 (E2.7)"},
		{"gender", []string{"F", "M"}, []int{993, 921}, "sizes of Figs 6b, 13 (E2.7)"},
	} {
		for _, v := range aquilaValues {
			law := v.byDisease
			if grouping.key == "gender" {
				law = v.byGender
			}
			defs = append(defs, StandinDef{
				Name:   "aquila-" + grouping.key + "-" + v.key,
				Labels: grouping.labels, Sizes: grouping.sizes, Origin: grouping.origin,
				Paper: "AQUILA", Value: v.value, By: grouping.key, Lo: v.lo, Hi: v.hi,
				Means: []float64{law[0][0], law[1][0]}, Sigmas: []float64{law[0][1], law[1][1]},
			})
		}
	}
	return defs
}

// LookupStandin returns the stand-in named name.
func LookupStandin(name string) (StandinDef, bool) {
	for _, d := range Standins() {
		if d.Name == name {
			return d, true
		}
	}
	return StandinDef{}, false
}

func standinNames() string {
	var names []string
	for _, d := range Standins() {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}

// validateStandin checks the keys of a resolved spec of source "standin".
func (s Spec) validateStandin(bad func(key, format string, args ...any)) {
	if _, ok := LookupStandin(s.Standin); !ok {
		bad("standin", "unknown stand-in %q; want one of %s", s.Standin, standinNames())
	}
	if def, ok := LookupStandin(s.Standin); ok && s.Normalise != RuleFixed {
		bad("normalise", "a stand-in keeps raw values with the paper's fixed range [%v, %v] (Raab et al. Table 2), scaled by Dataset.Grouped: want %q or unset, got %q",
			def.Lo, def.Hi, RuleFixed, s.Normalise)
	}
	if s.Dims != 1 {
		bad("dims", "a stand-in has one attribute, got dims = %d", s.Dims)
	}
}

// buildStandin draws the stand-in of a resolved, validated spec: group by
// group, then shuffled (so that a prefix of n rows is a uniform sample
// without replacement); the first n rows for 0 < n < the total.
func (s Spec) buildStandin(n int, rng *rand.Rand) (*Dataset, error) {
	if rng == nil {
		return nil, errNilRand
	}
	def, _ := LookupStandin(s.Standin)
	total := def.Total()
	values := make([]float64, 0, total)
	groups := make([]int32, 0, total)
	for g, size := range def.Sizes {
		vs, err := TruncNormal(size, def.Means[g], def.Sigmas[g], def.Lo, def.Hi, rng)
		if err != nil {
			return nil, fmt.Errorf("stand-in %s group %d: %v", def.Name, g, err)
		}
		values = append(values, vs...)
		for range size {
			groups = append(groups, int32(g))
		}
	}
	rng.Shuffle(total, func(i, j int) {
		values[i], values[j] = values[j], values[i]
		groups[i], groups[j] = groups[j], groups[i]
	})
	if n > 0 && n < total {
		values, groups = values[:n:n], groups[:n:n]
	}
	nm, err := Fixed(def.Lo, def.Hi, false)
	if err != nil {
		return nil, err
	}
	return &Dataset{
		Name:          s.Name,
		Values:        values,
		Groups:        groups,
		GroupLabels:   def.Labels,
		Dims:          1,
		Normalisation: nm,
		Source: fmt.Sprintf("stand-in %s (ldpbench synthetic, NOT %s: %s; %s) n=%d",
			def.Name, def.Paper, def.Origin, def.lawText(), len(values)),
		Substitute: true,
	}, nil
}

// lawText describes the stand-in's value law, as in a dataset's Source.
func (d StandinDef) lawText() string {
	if d.Paper == "MIMIC-IV" {
		return fmt.Sprintf("age ~ N(50 + 20g/(d-1), 15) truncated to [%v, %v]", d.Lo, d.Hi)
	}
	var laws []string
	for g, l := range d.Labels {
		laws = append(laws, fmt.Sprintf("%s ~ N(%v, %v)", l, d.Means[g], d.Sigmas[g]))
	}
	return fmt.Sprintf("%s: %s truncated to [%v, %v]", d.Value, strings.Join(laws, ", "), d.Lo, d.Hi)
}
