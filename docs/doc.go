// Package docs carries the pages of docs/ that the ldpbench binary reads
// itself, so that a binary built from this module knows them wherever it
// runs: Reproduction, the table of what each paper figure's status is,
// which `ldpbench report` puts beside each run.
package docs

import _ "embed"

// Reproduction is reproduction.md: per paper, one table row per figure or
// table with the specs that reproduce it and its status.
//
//go:embed reproduction.md
var Reproduction string
