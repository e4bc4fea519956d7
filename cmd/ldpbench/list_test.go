package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/kindtest"
	"github.com/ldpbench/ldpbench/mechanisms"
)

// listBlocks parses `list mechanisms -v`: per mechanism, its capabilities
// line and, per kind, the methods that take it.
func listBlocks(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	blocks := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if rest, ok := strings.CutPrefix(line, "\t"); ok {
			if cur == nil {
				t.Fatalf("indented line before any mechanism: %q", line)
			}
			k, v, ok := strings.Cut(rest, ": ")
			if !ok {
				t.Fatalf("line %q: want \"key: value\"", line)
			}
			cur[k] = v
			continue
		}
		name, summary, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("line %q: want name<TAB>summary", line)
		}
		cur = map[string]string{"summary": summary}
		blocks[name] = cur
	}
	return blocks
}

// TestListMechanismsVerbose: list -v shows each mechanism's capabilities
// and, per kind, the methods that take it, as the vocabulary and the
// kinds' own checks decide: Laplace is taken by multiservice's uwa but not
// its ule (no bounded output), PM by both; an unbounded test-only
// mechanism with a density appears like Laplace; and a kind lists a
// mechanism exactly when its Check accepts it.
func TestListMechanismsVerbose(t *testing.T) {
	kindtest.Register(t, "test-list-density", "Laplace in a new type, no bucket probabilities", kindtest.NewDensityOnly)
	out, err := runCLI(t, "list", "mechanisms", "-v")
	if err != nil {
		t.Fatal(err)
	}
	blocks := listBlocks(t, out)
	if got, want := len(blocks), len(mechanisms.Names()); got != want {
		t.Errorf("%d mechanisms listed, %d registered", got, want)
	}
	methods := func(mech, kind string) []string {
		v, ok := blocks[mech][kind]
		if !ok {
			return nil
		}
		return strings.Split(v, ", ")
	}
	for _, name := range []string{"laplace", "pm", "test-list-density"} {
		b, ok := blocks[name]
		if !ok {
			t.Fatalf("%s not listed:\n%s", name, out)
		}
		m, err := mechanisms.New(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		var caps []string
		for _, c := range mechanisms.CapabilitiesOf(m) {
			caps = append(caps, string(c))
		}
		if b["capabilities"] != strings.Join(caps, ", ") {
			t.Errorf("%s: capabilities %q, want %q", name, b["capabilities"], strings.Join(caps, ", "))
		}
		ms := methods(name, "multiservice")
		bounded := mechanisms.Has(m, mechanisms.CapBounded) && mechanisms.Has(m, mechanisms.CapBuckets)
		if !slices.Contains(ms, "uwa") || slices.Contains(ms, "ule") != bounded || slices.Contains(ms, "ems-<s>") != bounded {
			t.Errorf("%s: multiservice takes it in %v (bounded with buckets: %v)", name, ms, bounded)
		}
		if ds := methods(name, "noutput-dist"); slices.Contains(ds, name) != bounded {
			t.Errorf("%s: noutput-dist %v (bounded with buckets: %v)", name, ds, bounded)
		}
		if !slices.Contains(methods(name, "mean"), name) || !slices.Contains(methods(name, "central-mean"), "ldp:"+name) {
			t.Errorf("%s: not taken by mean or central-mean: %v", name, b)
		}
	}
	if ms := methods("laplace", "multiservice"); slices.Contains(ms, "ule") || !slices.Contains(ms, "uwa") {
		t.Errorf("laplace: multiservice %v, want uwa and not ule", ms)
	}
	if ms := methods("pm", "multiservice"); !slices.Contains(ms, "ule") || !slices.Contains(ms, "uwa") {
		t.Errorf("pm: multiservice %v, want uwa and ule", ms)
	}
	// The listing agrees with the kinds' Check, for the kinds whose
	// method is the mechanism's own name.
	for _, kname := range []string{"noutput-dist", "mean"} {
		k, err := kinds.Lookup(kname)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range mechanisms.Names() {
			if kname == "noutput-dist" && name == "hm-np" {
				continue // the method hm-np is 2PEM, not EM on a matrix
			}
			var err error
			if kname == "mean" {
				// kind mean's Check wants a dataset too; its needs are
				// what the Check applies to the mechanism.
				m, _ := mechanisms.New(name, 1)
				err = k.(experiment.MechanismTaker).MechanismNeeds()[0].Check(kname, m)
			} else {
				err = k.Check(&experiment.CellSpec{Method: name, Eps: 1})
			}
			if listed := slices.Contains(methods(name, kname), name); listed != (err == nil) {
				t.Errorf("%s %s: listed %v, Check: %v", kname, name, listed, err)
			}
		}
	}
}
