package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
	"github.com/ldpbench/ldpbench/mechanisms"
)

func cmdList(_ context.Context, c *cli, args []string) error {
	fs := c.flags("list")
	verbose := fs.Bool("v", false, "describe each entry")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("list", pos, 1, 1, "one of mechanisms, datasets, specs, kinds"); err != nil {
		return err
	}
	kinds, stdout := c.kinds, c.stdout
	switch pos[0] {
	case "mechanisms":
		// With -v: the summary, the capabilities (of the mechanism at ε =
		// 1; they do not depend on ε) and, per kind, the methods that take
		// it, by the kinds' own needs (experiment.MechanismTaker), the
		// checks their Check makes.
		for _, name := range mechanisms.Names() {
			if !*verbose {
				fmt.Fprintln(stdout, name)
				continue
			}
			info, _ := mechanisms.Lookup(name)
			fmt.Fprintf(stdout, "%s\t%s\n", name, info.Summary)
			m, err := info.New(1)
			if err != nil {
				fmt.Fprintf(stdout, "\tcapabilities: unknown (at ε = 1: %v)\n", err)
				continue
			}
			caps := mechanisms.CapabilitiesOf(m)
			cs := make([]string, len(caps))
			for i, c := range caps {
				cs[i] = string(c)
			}
			if len(cs) == 0 {
				cs = []string{"none"}
			}
			fmt.Fprintf(stdout, "\tcapabilities: %s\n", strings.Join(cs, ", "))
			for _, k := range kinds {
				t, ok := k.(experiment.MechanismTaker)
				if !ok {
					continue
				}
				if ms := experiment.MethodsFor(t, m); len(ms) > 0 {
					fmt.Fprintf(stdout, "\t%s: %s\n", k.Name(), strings.Join(ms, ", "))
				}
			}
		}
	case "datasets":
		listDatasets(stdout, *verbose)
	case "specs":
		// Where the specs come from goes to stderr, so that stdout stays a
		// list of names to pipe.
		list, err := harness.ListSpecs(c.shipped)
		if err != nil {
			return err
		}
		if len(list.Names) == 0 {
			return fmt.Errorf("list specs: no runs/ directory here or in the module, and no shipped specs")
		}
		fmt.Fprintf(c.stderr, "%d specs from %s\n", len(list.Names), list.From())
		for _, name := range list.Names {
			if *verbose {
				s, err := harness.OpenSpec(name, c.shipped)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s\t%s\n", name, s.Title)
			} else {
				fmt.Fprintln(stdout, name)
			}
		}
	case "kinds":
		if !*verbose {
			for _, name := range kinds.Names() {
				fmt.Fprintln(stdout, name)
			}
			break
		}
		writeKinds(stdout, kinds, false)
	default:
		return usageErrorf("list", "unknown list %q (want mechanisms, datasets, specs or kinds)", pos[0])
	}
	return nil
}

// cmdTheory prints worst-case variances on the common [-1, 1] input scale
// (Square Wave's [0, 1] variance is multiplied by 4, erratum E4.5).
func cmdTheory(_ context.Context, c *cli, args []string) error {
	fs := c.flags("theory")
	mechs := addMech(fs)
	eps := addEps(fs, 0.5, 1, 2, 4, 8)
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("theory", pos, 0, 0, "no arguments"); err != nil {
		return err
	}
	names := []string(*mechs)
	if len(names) == 0 {
		names = mechanisms.Names()
	}
	w := csv.NewWriter(c.stdout)
	w.Write([]string{"mechanism", "eps", "worst_case_variance"})
	for _, name := range names {
		for _, e := range *eps {
			m, err := mechanisms.New(name, e)
			if err != nil {
				return fmt.Errorf("theory: %w", err)
			}
			est, err := mechanisms.Unbiased(m)
			if err != nil {
				return fmt.Errorf("theory: %w", err)
			}
			w.Write([]string{name, strconv.FormatFloat(e, 'g', -1, 64),
				strconv.FormatFloat(est.WorstCaseVariance(), 'g', -1, 64)})
		}
	}
	w.Flush()
	return w.Error()
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
