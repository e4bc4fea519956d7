package tables

import (
	"fmt"
	"strings"

	"github.com/ldpbench/ldpbench/figures"
)

// HeatMap returns the table as a heat map (Spec.Heatmap): its rows and
// value columns, labelled as in the Markdown file, the cells' values and
// text, the best of each row outlined, and the Markdown file's description
// as the caption. A table from a quick run says so in the title.
func (t *Table) HeatMap() figures.HeatMap {
	s := t.Spec
	h := figures.HeatMap{
		Name:        s.Name,
		Title:       s.Title,
		RowField:    t.rowHead(),
		ColumnField: fieldName(s.Columns),
		ValueLabel:  t.valueLabel(),
	}
	if l, ok := s.Labels[s.Columns]; ok {
		h.ColumnField = l
	}
	if t.Quick {
		h.Title = strings.TrimSpace(h.Title + " [" + QuickNote + "]")
	}
	for _, c := range t.ValueColumns {
		h.Columns = append(h.Columns, s.label(c))
	}
	digits := s.digits()
	for _, r := range t.Rows {
		h.Rows = append(h.Rows, r.label())
		h.Values = append(h.Values, r.Values)
		var text []string
		for _, v := range r.Values {
			text = append(text, format(v, digits))
		}
		h.Text = append(h.Text, text)
		if s.Best != "" {
			h.Best = append(h.Best, r.Best)
		}
	}
	if s.Best != "" {
		word := "lowest"
		if s.Best == "max" {
			word = "highest"
		}
		h.BestNote = fmt.Sprintf("the %s value of its row", word)
	}
	h.Caption = []string{strings.ReplaceAll(t.describe("outlined"), "`", "")}
	if s.Note != "" {
		h.Caption = append(h.Caption, s.Note)
	}
	return h
}

// valueLabel labels the heat map's colour bar: the statistic and the
// metric, by its label when the spec gives one.
func (t *Table) valueLabel() string {
	s := t.Spec
	stat := "mean"
	switch s.Value {
	case "sd":
		stat = "SD"
	case "theory":
		stat = "theory"
	}
	if len(s.Pool) > 0 {
		stat = "pooled " + stat
	}
	return stat + " of " + s.label(s.Metric)
}
