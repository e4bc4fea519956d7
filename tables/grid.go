package tables

// Grid is a table as a reader sees it, whatever the format: the headers
// (the rows field's, then each column's, with the spec's labels), the rows
// with their label first, the best cells marked. The Markdown, LaTeX and
// HTML writers (the report of cmd/ldpbench) all draw from it, so that they
// agree on what is bold.
type Grid struct {
	Header []string
	Rows   [][]GridCell
	// Description says in words what the cells are and how the best ones
	// are marked ("Cells: the mean over trials of ...").
	Description string
}

// GridCell is one cell of a Grid: its text, and whether it is the best
// value of its row (never the row's label, the "best" column or an empty
// cell).
type GridCell struct {
	Text string
	Best bool
}

// Grid returns the table as headers and marked cells; marked says how the
// writer marks the best cells ("in bold"), for the description.
func (t *Table) Grid(marked string) Grid {
	s := t.Spec
	g := Grid{Header: []string{t.rowHead()}, Description: t.describe(marked)}
	for _, c := range t.Columns {
		g.Header = append(g.Header, s.label(c))
	}
	for _, r := range t.Rows {
		line := []GridCell{{Text: r.label()}}
		for i, c := range r.Cells {
			// The value cells come first (none with BestOnly).
			best := !s.BestOnly && i < len(r.Best) && r.Best[i] && c != ""
			line = append(line, GridCell{Text: c, Best: best})
		}
		g.Rows = append(g.Rows, line)
	}
	return g
}
