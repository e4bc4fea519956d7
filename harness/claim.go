package harness

import "fmt"

// Claim is a paper's stated range of improvement of one method over another,
// transcribed as a [[claims]] block of a spec:
//
//	[[claims]]
//	source = "Sec. 6.2, Fig. 4e-h"  # where the paper states it
//	metric = "<a metric of the spec>"
//	method = "<the method the paper promotes>"
//	against = "<a baseline>"    # or a list: ["<baseline 1>", "<baseline 2>"]
//	paper_min = 21.1            # percent
//	paper_max = 81.0
//	where = { <axis> = ["<value>"] }   # optional: dataset, eps, n or a params axis
//
// (runs/multiservice-fig4-dist.toml has real ones.)
//
// The improvement in a cell is 100·(1 − mean(method)/mean(against)), the
// means being the trial means of the metric (lower is better) in the cells
// that differ only in the method. With a list of against methods, each of
// them gives one row per cell and the measured range covers them all; with
// against_best, each cell is compared with the best (lowest mean) of the
// listed methods only, the paper's "best single mechanism" (its SE is
// conditional on that choice; picking the lowest measured mean biases the
// improvement slightly downwards, i.e. conservatively). A qualitative claim
// ("lowest everywhere") is the range 0–100; a negative paper_min allows a
// stated loss.
//
// A claim changes no row: it is plain data here, validated and evaluated by
// package compare (claims.csv, `ldpbench compare`).
type Claim struct {
	Source      string     `toml:"source"`
	Metric      string     `toml:"metric"`
	Method      string     `toml:"method"`
	Against     MethodList `toml:"against"`
	AgainstBest bool       `toml:"against_best"`
	PaperMin    *float64   `toml:"paper_min"`
	PaperMax    *float64   `toml:"paper_max"`
	// Where restricts the claim to cells whose dataset, eps, n or swept
	// parameter takes one of the listed values.
	Where map[string][]string `toml:"where"`
	// Note is free text copied to the report (what the paper says, caveats).
	Note string `toml:"note"`
}

// MethodList is one method name or a list of them; in TOML either
// against = "ems-sr" or against = ["ems-sr", "ems-pm"].
type MethodList []string

// UnmarshalTOML implements toml.Unmarshaler.
func (l *MethodList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*l = MethodList{v}
		return nil
	case []any:
		out := make(MethodList, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("against[%d]: want a method name, got %v", i, x)
			}
			out[i] = s
		}
		*l = out
		return nil
	}
	return fmt.Errorf("against: want a method name or a list of them, got %v", v)
}
