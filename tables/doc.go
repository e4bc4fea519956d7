// Package tables writes an experiment's summaries as tables: a CSV file
// for programs and a Markdown file for people, both written atomically
// (results.WriteFileAtomic) into the output directory beside the figures.
//
// A table is a projection of the summary (results.Summary rows), like a
// figure: a Spec picks a field whose values make the rows (eps, n, method,
// dataset, metric or a params key) and a field whose values make the
// columns, the metric whose summaries fill the cells (or, when the rows or
// columns field is "metric", the list of metrics), and filters the
// summaries by field values. Each cell is the mean over trials (or the
// theory value, value = "theory") rounded to a number of significant
// digits; a cell no summary fills is left empty. Two summaries that fall
// in the same cell are an error, as for a figure: filter them apart.
//
// Two options make the tables of the papers that say "which is best for
// which ε": best = "min" (or "max") adds a column naming the column with
// the lowest (highest) value in each row, ties within a relative tolerance
// joined by " = " ("duchi = three-outputs"), and best_only keeps only that
// column; ranges = true merges every run of consecutive rows (in the
// numeric order of a numeric rows field) whose cells are all equal into one
// row labelled "first – last", so that a fine ε grid becomes the paper's
// few ε ranges (Baek & Chung's Tables 1 and 2, runs/noutput-tables.toml).
//
// In a spec:
//
//	[[tables]]
//	name = "table1-best-mechanism"      # <dir>/<name>.csv and <name>.md
//	title = "Table 1: the lowest worst-case variance, by ε"
//	metric = "worst_case_variance"      # the cells (or metrics = [...] with rows or columns = "metric")
//	rows = "eps"
//	columns = "method"
//	filter = { method = ["duchi", "three-outputs", "pm-sub"] }
//	best = "min"                        # a column "best": the lowest in the row
//	best_only = true                    # only that column
//	ranges = true                       # runs of equal rows as "first – last"
//	labels = { best = "best mechanism" } # headers in the Markdown file
//
// Every key is checked (Spec.Validate) and every error names the table and
// the key. The Markdown file ends with a line that says what the cells are.
package tables
