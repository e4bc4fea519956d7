package audit

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/results"
)

// Header is the CSV header of an audit report:
//
//   - mechanism, family: the target's name and legend group;
//   - eps: the ε the mechanism was built for; claimed_eps: the ε it
//     claims and is held to; audited_eps: the audit's value (+Inf for an
//     invalid law or an output possible under one input only);
//     excess = audited_eps - claimed_eps;
//   - method: exact | density | montecarlo; verdict: pass | VIOLATION;
//   - worst_x0, worst_x1: the worst input pair (x0 makes the worst output
//     most likely); worst_output: the output, density point, bucket or
//     Monte Carlo event;
//   - true_eps: the actual ε the mechanism states, where it states one
//     (never used for the verdict); known_issue: the erratum of an
//     expected violation;
//   - samples, events, alpha: the Monte Carlo reports per input, events
//     and error probability of the row (empty for exact rows);
//   - note: anything unusual (an invalid law, an unbounded ratio, the
//     Monte Carlo bound's construction).
var Header = []string{
	"mechanism", "family", "eps", "claimed_eps", "audited_eps", "excess", "method", "verdict",
	"worst_x0", "worst_x1", "worst_output", "true_eps", "known_issue", "samples", "events", "alpha", "note",
}

// Record returns the CSV fields of r, in [Header]'s order. Floats are
// written in the shortest form that reads back to the same float64.
func (r Row) Record() []string {
	mc := r.Method == MethodMonteCarlo
	opt := func(s string) string {
		if !mc {
			return ""
		}
		return s
	}
	return []string{
		r.Name, r.Family, ftoa(r.Eps), ftoa(r.Claimed), ftoa(r.Epsilon), ftoa(r.Epsilon - r.Claimed),
		string(r.Method), r.Verdict,
		r.X0.String(), r.X1.String(), r.Output, ftoa(r.True), r.KnownIssue,
		opt(strconv.Itoa(r.Samples)), opt(strconv.Itoa(r.Events)), opt(ftoa(r.Alpha)), r.Note,
	}
}

// ftoa writes a float as results does, NaN as the empty field.
func ftoa(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteCSV writes the rows as CSV with [Header] to w.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.Record()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVFile writes the rows to path atomically: a killed audit leaves
// the previous file or none, never a partial one.
func WriteCSVFile(path string, rows []Row) error {
	return results.WriteFileAtomic(path, func(w *bufio.Writer) error { return WriteCSV(w, rows) })
}

// Unexpected returns the rows whose verdict is Violation and whose target
// has no known issue: what a CI run should fail on.
func Unexpected(rows []Row) []Row {
	var bad []Row
	for _, r := range rows {
		if r.Verdict == Violation && r.KnownIssue == "" {
			bad = append(bad, r)
		}
	}
	return bad
}

// Summary writes a human summary: the counts, then one line per violation
// (known issues marked), then the known issues that the exact audit did
// not reproduce.
func Summary(w io.Writer, rows []Row) error {
	var b strings.Builder
	counts := map[Method][2]int{}
	viol := 0
	for _, r := range rows {
		c := counts[r.Method]
		c[0]++
		if r.Verdict == Violation {
			c[1]++
			viol++
		}
		counts[r.Method] = c
	}
	fmt.Fprintf(&b, "audited %d rows:", len(rows))
	for _, m := range []Method{MethodExact, MethodDensity, MethodMonteCarlo} {
		if c, ok := counts[m]; ok {
			fmt.Fprintf(&b, " %s %d (%d violations)", m, c[0], c[1])
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		if r.Verdict != Violation {
			continue
		}
		fmt.Fprintf(&b, "VIOLATION %s ε=%s: claimed %s, audited %s by %s (excess %s)",
			r.Name, ftoa(r.Eps), num(r.Claimed), num(r.Epsilon), r.Method, num(r.Epsilon-r.Claimed))
		if r.Method == MethodMonteCarlo {
			fmt.Fprintf(&b, ", a lower bound with error probability %.3g", r.Alpha)
		}
		if !math.IsNaN(r.True) {
			fmt.Fprintf(&b, "; states true ε %s", num(r.True))
		}
		if r.KnownIssue != "" {
			fmt.Fprintf(&b, " [known: %s]", r.KnownIssue)
		}
		b.WriteString("\n")
	}
	for _, r := range rows {
		if r.KnownIssue != "" && r.Method != MethodMonteCarlo && r.Verdict == Pass {
			fmt.Fprintf(&b, "note: %s ε=%s is marked %s but its %s audit passes\n", r.Name, ftoa(r.Eps), r.KnownIssue, r.Method)
		}
	}
	if viol == 0 {
		b.WriteString("no violations\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
