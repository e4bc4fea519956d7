package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
)

// writeKinds writes every kind's reference: its metrics, its methods
// (experiment.MethodDescriber) with their legend names, whether it pairs
// its methods, and its params. markdown selects docs/kinds.md's form;
// otherwise it is `ldpbench list kinds -v`'s plain text. One source for
// both, so that the page and the command never drift (TestKindsDocCurrent).
func writeKinds(w io.Writer, reg experiment.Registry, markdown bool) {
	if markdown {
		fmt.Fprintln(w, "# Experiment kinds")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Generated from the kinds' own descriptions by `go test ./cmd/ldpbench -run TestKindsDocCurrent -update`;")
		fmt.Fprintln(w, "`ldpbench list kinds -v` prints the same. A spec's `kind` key names one of these; its `axes.method`")
		fmt.Fprintln(w, "takes the methods below (`<m>`: a registered mechanism, `ldpbench list mechanisms -v`), and its")
		fmt.Fprintln(w, "`axes.params` the params.")
	}
	for _, name := range reg.Names() {
		k, _ := reg.Lookup(name)
		_, lists := k.(experiment.MethodLister)
		_, paired := k.(experiment.TrialKeyer)
		var methods []experiment.MethodDoc
		if d, ok := k.(experiment.MethodDescriber); ok {
			methods = d.Methods()
		}
		if !markdown {
			fmt.Fprintf(w, "%s\n  metrics: %s\n", name, strings.Join(k.Metrics(), ", "))
			for _, m := range methods {
				fmt.Fprintf(w, "  method %s: %s\n", m.Name, m.Doc)
			}
			if lists {
				fmt.Fprintln(w, "  methods: \"*\" lists every one")
			}
			if paired {
				fmt.Fprintln(w, "  paired: its methods see the same reports in each trial")
			}
			for _, p := range k.Params() {
				fmt.Fprintf(w, "  params.%s (%s): %s\n", p.Key, p.Describe(), p.Doc)
			}
			continue
		}
		fmt.Fprintf(w, "\n## %s\n\nMetrics: %s.", name, strings.Join(k.Metrics(), ", "))
		if lists {
			fmt.Fprint(w, " The method `\"*\"` expands into every method it lists.")
		}
		if paired {
			fmt.Fprint(w, " Paired: its methods see the same reports in each trial.")
		}
		fmt.Fprintln(w)
		if len(methods) > 0 {
			fmt.Fprint(w, "\n| method | legend | what it computes |\n|---|---|---|\n")
			for _, m := range methods {
				legend := experiment.Label(k, m.Name)
				if strings.Contains(m.Name, "<") {
					legend = "its mechanism's or service's name"
				}
				fmt.Fprintf(w, "| `%s` | %s | %s |\n", m.Name, cell(legend), cell(m.Doc))
			}
		}
		if ps := k.Params(); len(ps) > 0 {
			fmt.Fprint(w, "\n| param | values | what it does |\n|---|---|---|\n")
			for _, p := range ps {
				fmt.Fprintf(w, "| `%s` | %s | %s |\n", p.Key, cell(p.Describe()), cell(p.Doc))
			}
		}
	}
}
