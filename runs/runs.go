// Package runs holds the shipped experiment specs, one TOML file per paper
// figure or table (README.md describes their keys). They are embedded,
// so that an installed ldpbench runs them by name from any directory.
package runs

import "embed"

// FS holds every runs/*.toml.
//
//go:embed *.toml
var FS embed.FS
