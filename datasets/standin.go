package datasets

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Stand-ins for paper 002's MIMIC-IV experiments (E5; spec P2 §6.3). MIMIC-IV
// is credentialed-access data that ldpbench can never ship, so these are
// synthetic: they reproduce the published group structure — the exact group
// sizes printed in the paper's captions and the category names of its
// Table 7 in that (alphabetical) order — and nothing else. The value, age in
// years on paper 002's fixed range [18, 100] (Table 2), is drawn per group
// from
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
// their ordering across groups is claimed. Every dataset built from a
// stand-in is marked Substitute.

// Stand-in age law.
const (
	StandinAgeLo    = 18.0
	StandinAgeHi    = 100.0
	StandinAgeSigma = 15.0
)

// StandinAgeMean returns μ_g = 50 + 20·g/(d − 1) years, the pre-truncation
// mean age of group g of d (d ≥ 2) in a stand-in.
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
// admissions, not L247's 431,231), except mimic-gender's, which the paper
// does not print.
func Standins() []StandinDef {
	return []StandinDef{
		{
			Name: "mimic-admission-type",
			Labels: []string{"AMBULATORY OBSERVATION", "DIRECT EMER.", "DIRECT OBSERVATION", "ELECTIVE",
				"EU OBSERVATION", "EW EMER.", "OBSERVATION ADMIT", "SURGICAL SAME DAY ADMISSION", "URGENT"},
			Sizes:  []int{6620, 19519, 18682, 10557, 94739, 149278, 52641, 34184, 44642},
			Origin: "sizes of Fig. 14a (L628), labels of Table 7",
		},
		{
			Name: "mimic-admission-location",
			Labels: []string{"AMBULATORY SURGERY TRANSFER", "CLINIC REFERRAL", "EMERGENCY ROOM",
				"INFORMATION NOT AVAILABLE", "INTERNAL TRANSFER TO OR FROM PSYCH", "PACU",
				"PHYSICIAN REFERRAL", "PROCEDURE SITE", "TRANSFER FROM HOSPITAL",
				"TRANSFER FROM SKILLED NURSING FACILITY", "WALK-IN/SELF REFERRAL"},
			Sizes:  []int{185, 10006, 232476, 358, 4204, 5401, 114815, 7798, 35964, 3842, 15813},
			Origin: "sizes of Fig. 6d (L386), labels of Table 7",
		},
		{
			Name: "mimic-discharge-location",
			Labels: []string{"ACUTE HOSPITAL", "AGAINST ADVICE", "ASSISTED LIVING", "CHRONIC/LONG TERM ACUTE CARE",
				"DIED", "HEALTHCARE FACILITY", "HOME", "HOME HEALTH CARE", "HOSPICE", "OTHER FACILITY",
				"PSYCH FACILITY", "REHAB", "SKILLED NURSING FACILITY"},
			Sizes:  []int{1610, 2587, 550, 7144, 8506, 42, 155321, 75545, 3469, 1354, 2262, 10521, 43013},
			Origin: "sizes of Fig. 14c (L634), labels of Table 7; 311,924 users (admissions without a discharge location dropped)",
		},
		{
			Name:   "mimic-deceased",
			Labels: []string{"no", "yes"},
			Sizes:  []int{324785, 106077},
			Origin: "sizes of Fig. 14b (L630), labels of Table 2",
		},
		{
			Name:   "mimic-gender",
			Labels: []string{"F", "M"},
			Sizes:  []int{225690, 205172},
			Origin: "sizes NOT printed by the paper: derived from L358's \"roughly 10% more female than male\" (M = round(430,862/2.1)); labels MIMIC's codes",
		},
	}
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
	if s.Normalise != RuleFixed {
		bad("normalise", "a stand-in keeps raw ages with the fixed range [%v, %v] (paper 002 Table 2), scaled by Dataset.Grouped: want %q or unset, got %q",
			StandinAgeLo, StandinAgeHi, RuleFixed, s.Normalise)
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
	total, d := def.Total(), len(def.Sizes)
	values := make([]float64, 0, total)
	groups := make([]int32, 0, total)
	for g, size := range def.Sizes {
		ages, err := TruncNormal(size, StandinAgeMean(g, d), StandinAgeSigma, StandinAgeLo, StandinAgeHi, rng)
		if err != nil {
			return nil, fmt.Errorf("stand-in %s group %d: %v", def.Name, g, err)
		}
		values = append(values, ages...)
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
	nm, err := Fixed(StandinAgeLo, StandinAgeHi, false)
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
		Source: fmt.Sprintf("stand-in %s (ldpbench synthetic, NOT MIMIC-IV: %s; age ~ N(50 + 20g/(d-1), 15) truncated to [18, 100]) n=%d",
			def.Name, def.Origin, len(values)),
		Substitute: true,
	}, nil
}
