// Package runs holds the shipped experiment specs, one TOML file per paper
// figure or table (README.md describes their keys). They are embedded,
// so that an installed ldpbench runs them by name from any directory.
package runs

import "embed"

// FS holds every runs/*.toml, and iterations.csv: the mean EM iterations
// per trial of every iterative cell of these specs at full scale, as their
// full-scale runs recorded them (`ldpbench times --iterations`), which
// `ldpbench plan` multiplies by the cost of one iteration it times
// (docs/scale-out.md).
//
//go:embed *.toml iterations.csv
var FS embed.FS

// IterationsFile is the name of the recorded iterations in FS.
const IterationsFile = "iterations.csv"
