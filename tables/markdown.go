package tables

import (
	"bufio"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// QuickNote marks a table made from a quick run (Table.Quick), in the
// Markdown file and the heat map's title.
const QuickNote = "quick scale: a pipeline check, not the paper's scale"

// WriteMarkdown writes the table as a Markdown document: the title as a
// heading, a warning line when the table comes from a quick run, the table
// with the spec's labels as headers and the best cell of each row in bold
// (as the papers print it; with best set), and a line saying what the
// cells are (and the spec's note).
func (t *Table) WriteMarkdown(w *bufio.Writer) error {
	s := t.Spec
	if s.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", s.Title)
	}
	if t.Quick {
		fmt.Fprintf(w, "**%s** (the spec's [quick] n and trials; run without --quick for the paper's table).\n\n", QuickNote)
	}
	g := t.Grid("in bold")
	head := make([]string, len(g.Header))
	for i, h := range g.Header {
		head[i] = cellText(h)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, r := range g.Rows {
		line := make([]string, len(r))
		for i, c := range r {
			line[i] = cellText(c.Text)
			if c.Best {
				line[i] = "**" + line[i] + "**"
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(line, " | "))
	}
	fmt.Fprintf(w, "\n%s\n", g.Description)
	if s.Note != "" {
		fmt.Fprintf(w, "\n%s\n", s.Note)
	}
	return nil
}

// rowHead is the header of the rows' column: the spec's label of the rows
// field, else ε for eps, else the field.
func (t *Table) rowHead() string {
	if l, ok := t.Spec.Labels[t.Spec.Rows]; ok {
		return l
	}
	return fieldName(t.Spec.Rows)
}

// label is how a row is written: its value, or "first – last" for a
// range.
func (r Row) label() string {
	if r.To != r.From {
		return r.From + " – " + r.To
	}
	return r.From
}

func fieldName(f string) string {
	if f == "eps" {
		return "ε"
	}
	return f
}

// describe says in words what the cells of the table are; marked says how
// the best cells are marked ("in bold", "outlined").
func (t *Table) describe(marked string) string {
	s := t.Spec
	what := "mean over trials"
	switch s.Value {
	case "theory":
		what = "theory value"
	case "sd":
		what = "standard deviation of the trial values"
		if s.SDFrom != "" {
			what = fmt.Sprintf("standard deviation of every value a trial averages (√(E[x²] − E[x]²), E[x²] from `%s`)", s.SDFrom)
		}
	}
	if len(s.Pool) > 0 {
		what += " of the cells pooled over " + quoteAll(s.Pool)
		if s.Value == "" || s.Value == "mean" {
			what += " (the mean of every trial value behind them)"
		}
	}
	// A name the spec labels (labels = { split = "ε₁/ε" }) is written as
	// labelled; any other as the field or metric it is, in code style.
	name := func(v string) string {
		if l, ok := s.Labels[v]; ok {
			return l
		}
		return "`" + v + "`"
	}
	of := "metric " + name(s.Metric)
	if len(s.Metrics) > 0 {
		of = "the metrics " + quoteAll(s.Metrics)
	}
	word := "lowest"
	if s.Best == "max" {
		word = "highest"
	}
	var b strings.Builder
	if s.BestOnly {
		fmt.Fprintf(&b, "Cells: the %s with the %s %s of %s in the row (ties within a relative %g joined by \"=\"); rows: %s",
			name(s.Columns), word, what, of, s.tie(), name(s.Rows))
	} else {
		fmt.Fprintf(&b, "Cells: the %s of %s, %d significant digits; rows: %s; columns: %s", what, of, s.digits(), name(s.Rows), name(s.Columns))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Filter)) {
		if k == s.Rows || k == s.Columns {
			continue
		}
		fmt.Fprintf(&b, "; %s: %s", k, quoteAll(s.Filter[k]))
	}
	if s.Best != "" && !s.BestOnly {
		fmt.Fprintf(&b, ". Best (and %s): the %s value in the row (ties within a relative %g joined by \"=\")", marked, word, s.tie())
	}
	if s.Ranges {
		fmt.Fprintf(&b, ". Consecutive rows with equal cells are merged into \"first – last\" (values of the `%s` grid, not exact boundaries)", s.Rows)
	}
	b.WriteString(".")
	return b.String()
}

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, ", ")
}

// cellText escapes what Markdown would read as a column break.
func cellText(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
