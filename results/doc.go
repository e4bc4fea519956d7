// Package results holds the on-disk shape of an experiment's results: tidy
// rows (one per cell, trial and metric) and summaries (one per cell and
// metric, with mean, spread, a 95% confidence interval and the theory value).
//
// Every stage of ldpbench reads only the previous stage's files: the runner
// writes rows, Summarise turns rows into summaries, and figures are drawn
// from summaries alone, so a figure is re-drawn without re-running.
//
// Floats are written in the shortest form that reads back to the same
// float64 (strconv 'g', -1), so files are byte-stable and lossless.
package results
