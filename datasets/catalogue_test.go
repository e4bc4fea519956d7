package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/ldpbench/ldpbench/datasets/datatest"
)

// TestCatalogue validates every catalogue entry and builds it: the entries
// on the UCI files from their generated stand-ins (datatest), so that they
// are built on every checkout; only the entries on files that only `make
// data` brings (Du et al.'s extracts, tested on fixtures of their own by
// TestPaper004Recipes) may be absent, and are logged.
func TestCatalogue(t *testing.T) {
	datatest.Use(t)
	fixtures := map[string]bool{}
	for _, f := range datatest.Files() {
		fixtures[f.Name] = true
	}
	cat := Catalogue()
	names := map[string]bool{}
	keys := map[string]string{}
	for _, s := range cat {
		if names[s.Name] {
			t.Errorf("duplicate name %q", s.Name)
		}
		names[s.Name] = true
		if other, ok := keys[s.Key()]; ok {
			t.Errorf("%s and %s have the same key %s", s.Name, other, s.Key())
		}
		keys[s.Key()] = s.Name
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if s.Description == "" {
			t.Errorf("%s: no description", s.Name)
		}
		// list datasets -v says why a substitute's real data cannot be
		// fetched: a new stand-in must come with its reason.
		if why := Unobtainable(s); s.Substitute != (why != "") {
			t.Errorf("%s: substitute %v, but Unobtainable = %q", s.Name, s.Substitute, why)
		}
		if got, ok := Lookup(s.Name); !ok || got != s {
			t.Errorf("Lookup(%q) = %+v, %v", s.Name, got, ok)
		}

		d, err := s.Build(1000, rand.New(rand.NewPCG(1, 2)))
		if errors.Is(err, ErrNotFound) && !fixtures[s.Path] {
			t.Logf("%s: %v (skipped)", s.Name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
			continue
		}
		want := 1000
		if s.Rows > 0 && s.Rows < want {
			want = s.Rows // vehicle and wisdm: one-row placeholders
		}
		if d.Name != s.Name || d.Substitute != s.Substitute || d.Len() != want {
			t.Errorf("%s: built %q, substitute %v, %d values, want %d", s.Name, d.Name, d.Substitute, d.Len(), want)
		}
		values := d.Values
		if grouped := s.GroupColumn.Set || s.Source == SourceStandin; grouped != (d.Groups != nil) {
			t.Errorf("%s: spec grouped %v, dataset has groups %v", s.Name, grouped, d.Groups != nil)
		}
		if d.Groups != nil {
			// A grouped dataset keeps raw values inside its declared range;
			// the mechanisms see them through Grouped's scaling.
			nm := d.Normalisation
			for i, x := range d.Values {
				if !(x >= nm.Lo && x <= nm.Hi) {
					t.Errorf("%s: raw value %d = %v outside its range [%v, %v]", s.Name, i, x, nm.Lo, nm.Hi)
					break
				}
			}
			g, err := d.Grouped(nm.Lo, nm.Hi)
			if err != nil {
				t.Errorf("%s: %v", s.Name, err)
				continue
			}
			values = make([]float64, g.Len())
			g.Scaled(values)
		}
		for i, x := range values {
			if !(x >= -1 && x <= 1) {
				t.Errorf("%s: value %d = %v outside [-1, 1]", s.Name, i, x)
				break
			}
		}
	}
	for _, want := range []string{"beta32", "beta25", "beta-sin", "gaussian-mu0", "gaussian-mu1", "uniform", "magic-fLength", "magic-fAlpha", "shuttle-col0",
		"magic-fAlpha-by-class", "shuttle-col0-by-class", "taxi", "retirement", "voltage", "nytaxi", "vehicle", "wisdm"} {
		if !names[want] {
			t.Errorf("catalogue lacks %q", want)
		}
	}
	for _, name := range []string{"beta-sin", "mimic-admission-type", "mimic-admission-location", "mimic-discharge-location", "mimic-deceased", "mimic-gender"} {
		if s, _ := Lookup(name); !s.Substitute {
			t.Errorf("%s is not marked as a substitute", name)
		}
	}

	// Callers may modify the returned slice.
	cat[0].Name = "changed"
	if Catalogue()[0].Name == "changed" {
		t.Error("Catalogue shares its backing array")
	}
}

// TestShippedSpecsInCatalogue walks every shipped spec (runs/*.toml) and
// collects the datasets that read data: every file (source "file") must be
// read by some catalogue entry, and every stand-in (source "standin") be
// one, so that `ldpbench list datasets -v` tells a user where each file a
// spec needs is and how to get it. A spec dataset with a catalogue entry's
// name must also be that entry (the same Key): one name, one dataset. The
// generated sources (beta, gaussian, uniform, ...) read nothing and are
// not collected. It catches a spec on a new file added without a
// catalogue entry (as voltage, nytaxi, vehicle and wisdm once were), and a
// catalogue entry that drifts from the spec of the same name (another
// column, file or row count).
func TestShippedSpecsInCatalogue(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "runs", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Fatal("no runs/*.toml")
	}
	byName := map[string]Spec{}
	files, standins := map[string]bool{}, map[string]bool{}
	for _, s := range Catalogue() {
		byName[s.Name] = s
		switch s.Source {
		case SourceFile:
			files[filepath.Base(s.Path)] = true
		case SourceStandin:
			standins[s.Standin] = true
		}
	}
	read := 0
	for _, path := range specs {
		var spec struct {
			Datasets []Spec `toml:"datasets"`
		}
		if _, err := toml.DecodeFile(path, &spec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, d := range spec.Datasets {
			where := fmt.Sprintf("%s: datasets[%d] %q", filepath.Base(path), i, d.Name)
			switch d.Source {
			case SourceFile:
				if !files[filepath.Base(d.Path)] {
					t.Errorf("%s reads %s, which no catalogue entry (datasets/catalogue.go) reads", where, d.Path)
				}
			case SourceStandin:
				if !standins[d.Standin] {
					t.Errorf("%s is the stand-in %s, which is not in the catalogue", where, d.Standin)
				}
			default:
				continue
			}
			read++
			if c, ok := byName[d.Name]; ok && c.Key() != d.Key() {
				t.Errorf("%s is not the catalogue's %s:\n spec      %s\n catalogue %s", where, d.Name, d.Key(), c.Key())
			}
		}
	}
	if read == 0 {
		t.Error("no shipped spec reads a file or a stand-in: the walk found nothing to check")
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"beta32", "beta32", true},
		{"MAGIC-flength", "magic-fLength", true},
		{"gaussian-mu0.33", "gaussian-mu0.33", true},
		{"no-such-dataset", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		s, ok := Lookup(tt.name)
		if ok != tt.ok || s.Name != tt.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.name, s.Name, ok, tt.want, tt.ok)
		}
	}
}
