package figures

// A method keeps one look (colour, marker, dashes) in every figure of the
// project, keyed by its legend label, so that a reader who learnt that PM
// is the green pyramid in one figure finds it so in the next. The labels
// are those the kinds give (experiment.MethodLabeler, mechanisms.Label).
//
// The table is laid out so that the methods that share a figure in the
// shipped specs have different colours: the mechanisms of the papers on
// the first eight colours; the ones that meet them only where a figure has
// more than eight series (mean-synthetic) on the second dash cycle; the
// baselines and bounds (non-private, the lower bound, UWA's oracle
// diagnostic) in grey, with a hollow marker where they can lie on a
// method, so that the method shows through. A figure in which two labels
// of the table would share a colour gives the later one the first colour
// no other series of the figure has (assignLooks).
const (
	blue, vermilion, green, purple, orange, sky, black, wine, grey = 0, 1, 2, 3, 4, 5, 6, 7, 8
)

// The markers, by index into markers.
const (
	circle, box, pyramid, ring, square, triangle, cross = 0, 1, 2, 3, 4, 5, 6
)

var methodLooks = map[string]int{
	// Mechanisms, as every paper names them.
	"Laplace":       lookCode(blue, circle, 0),
	"Duchi et al.":  lookCode(vermilion, box, 0),
	"SR":            lookCode(vermilion, box, 0), // Du et al.'s name of Duchi et al.'s
	"PM":            lookCode(green, pyramid, 0),
	"SW":            lookCode(purple, ring, 0),
	"HM":            lookCode(orange, square, 0),
	"PM-SUB":        lookCode(sky, triangle, 0),
	"Three-Outputs": lookCode(black, cross, 0),
	"HM-TP":         lookCode(wine, circle, 0),
	"PM-OPT":        lookCode(purple, square, 1),
	"N-output":      lookCode(orange, pyramid, 1),
	"HM-NP":         lookCode(green, triangle, 1),
	"HM-NP + 2PEM":  lookCode(vermilion, triangle, 1),
	"DE":            lookCode(blue, box, 1),
	"OUE":           lookCode(orange, ring, 1),
	"non-private":   lookCode(grey, cross, 0),
	"AAA":           lookCode(blue, pyramid, 1),
	"NP-AAA":        lookCode(purple, box, 1),

	// Raab et al.'s group mechanisms.
	"Bernoulli":     lookCode(vermilion, square, 1),
	"NPRR":          lookCode(orange, triangle, 1),
	"NPRR (k = 8)":  lookCode(orange, triangle, 1),
	"NPRR (k = 16)": lookCode(sky, circle, 1),
	"NPRR (k = 32)": lookCode(wine, box, 1),
	"Piecewise":     lookCode(green, ring, 1),

	// Kulesza et al.'s estimators, and the local mechanisms beside them.
	"Alg. 1":                 lookCode(green, box, 0),
	"Alg. 2":                 lookCode(orange, pyramid, 0),
	"Alg. 3 (Laplace)":       lookCode(wine, circle, 0),
	"Alg. 3 (2-D staircase)": lookCode(sky, triangle, 0),
	"Alg. 3 (hourglass)":     lookCode(purple, ring, 0),
	"swap-model staircase":   lookCode(black, cross, 0),
	"lower bound":            lookCode(grey, square, 0),
	"Laplace (local)":        lookCode(blue, circle, 1),
	"Duchi et al. (local)":   lookCode(vermilion, box, 1),
	"PM-SUB (local)":         lookCode(sky, triangle, 1),

	// Du et al.'s aggregations.
	"UA":                   lookCode(black, box, 0),
	"UWA":                  lookCode(wine, circle, 0),
	"UWA (oracle weights)": lookCode(grey, ring, 0),
	"ULE":                  lookCode(wine, circle, 0),
	"Single best":          lookCode(sky, pyramid, 0),
	"SW (raw report)":      lookCode(sky, ring, 1), // SW's report before de-biasing, beside the five

}

// assignLooks gives each series of the figure its look: its label's in
// methodLooks unless an earlier series of the figure has that colour (or,
// in a figure of more series than colours, that look), else the first
// ordinal look whose colour no series of the figure has yet (any ordinal
// look once all colours are taken).
func (f *Figure) assignLooks() {
	f.looks = make([]int, len(f.Series))
	crowded := len(f.Series) > cycle
	colours, looks := make(map[int]bool), make(map[int]bool)
	free := func(look int) bool {
		if crowded {
			return !looks[look]
		}
		return !colours[look%len(palette)]
	}
	take := func(i, look int) {
		f.looks[i] = look
		colours[look%len(palette)], looks[look] = true, true
	}
	var pending []int
	for i := range f.Series {
		if look, ok := methodLooks[f.seriesLabel(i)]; ok && free(look) {
			take(i, look)
			continue
		}
		pending = append(pending, i)
	}
	next := 0
	for _, i := range pending {
		for next < 3*cycle && !free(ordinalLook(next)) {
			next++
		}
		take(i, ordinalLook(next))
		next++
	}
}

// look is the look of series i of the figure (-1, a reference without a
// series, stays -1).
func (f *Figure) look(i int) int {
	if i < 0 {
		return -1
	}
	if f.looks == nil {
		f.assignLooks()
	}
	return f.looks[i]
}

// HasLook reports whether a legend label has a look of its own, the same
// in every figure (a method of the papers), rather than one by its place
// in the figure.
func HasLook(label string) bool {
	_, ok := methodLooks[label]
	return ok
}
