// Package tables writes an experiment's summaries as tables: a CSV file
// for programs and a Markdown file for people, both written atomically
// (results.WriteFileAtomic) into the output directory beside the figures.
//
// A table is a projection of the summary (results.Summary rows), like a
// figure: a Spec picks a field whose values make the rows (eps, n, method,
// dataset, metric or a params key) and a field whose values make the
// columns, the metric whose summaries fill the cells (or, when the rows or
// columns field is "metric", the list of metrics), and filters the
// summaries by field values. Each cell is the mean over trials (value =
// "mean", the default), the SD of the trial values (value = "sd") or the
// theory value (value = "theory"), rounded to a number of significant
// digits; a cell no summary fills is left empty. Two summaries that fall
// in the same cell are an error, as for a figure: filter them apart, or
// pool them: pool = ["dataset"] merges the cells that differ only in the
// listed fields as Raab et al. pool over datasets (results.Pool: the mean
// and SD of every trial value behind them), and sd_from names a per-trial
// mean of squares whose pooled mean gives the SD of every value a trial
// averages (their Tables 8–10: the std over datasets × runs × groups).
//
// Two options make the tables of the papers that say "which is best for
// which ε": best = "min" (or "max") adds a column naming the column with
// the lowest (highest) value in each row, ties within a relative tolerance
// joined by " = " ("duchi = three-outputs"), and best_only keeps only that
// column; ranges = true merges every run of consecutive rows (in the
// numeric order of a numeric rows field) whose cells are all equal into one
// row labelled "first – last", so that a fine ε grid becomes the paper's
// few ε ranges (Baek & Chung's Tables 1 and 2, runs/noutput-tables.toml).
// With best, the Markdown file prints the best cell of each row in bold,
// as the papers do.
//
// heatmap = true also draws the table as a heat map, <name>.svg and
// <name>.png (figures.RenderHeatMap): cells coloured on a log scale when
// every value is > 0, each annotated with its text, the best of each row
// outlined, a colour bar with labelled decades. A table made from a quick
// run (results.Summary.Quick) says so (QuickNote) in the Markdown file and
// in the heat map's title.
//
// formats = ["tex"] also writes <name>.tex (Table.WriteLaTeX): a LaTeX
// table environment with booktabs rules, the Markdown file's cells (same
// significant digits, the best of each row in \textbf) and its title,
// description and note as the \caption. Every LaTeX special character is
// escaped; Greek letters, sub- and superscript digits, ≤, × and the like
// become math ($\varepsilon_{1}$), so that the file compiles with
// pdflatex and \usepackage{booktabs}; other non-ASCII text is kept as
// UTF-8.
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
//	[[tables]]                          # Raab et al.'s Table 8 (d = 2)
//	name = "table8-std-d2"
//	metric = "scaled_abs_error"
//	rows = "eps"
//	columns = "split"
//	filter = { groups = ["2"] }
//	pool = ["shape"]                    # over the four synthetic data shapes
//	value = "sd"                        # the pooled SD ...
//	sd_from = "scaled_abs_error_sq"     # ... over datasets × runs × groups
//	digits = 3
//	heatmap = true                      # table8-std-d2.svg and .png
//	formats = ["tex"]                   # table8-std-d2.tex, a LaTeX table
//
// Every key is checked (Spec.Validate) and every error names the table and
// the key. The Markdown file ends with a line that says what the cells are.
package tables
