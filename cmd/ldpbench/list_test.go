package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
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

// TestListDatasetsVerbose: `list datasets -v` says of each file a
// catalogue entry needs whether it is there and where, as a run finds it,
// or how to get it; of a generated entry that it needs no file, and of a
// stand-in why the real data cannot be fetched. Each case lays out a
// scratch tree: work/ is the working directory (no go.mod above it),
// work/data its data/, shared/data the shared fallback (../shared/data
// from work/), env/ the directory of $LDPBENCH_DATA. It catches a
// fallback copy reported present under LDPBENCH_NO_SHARED, data/ and the
// fallback mislabelled or in the wrong order, a file of an entry left out
// (vehicle's archives, which kind fl reads), a stand-in without its
// reason, and a listing that disagrees with what datasets.Find (a run)
// sees.
func TestListDatasetsVerbose(t *testing.T) {
	type file struct{ dir, name string } // dir: data, shared or env
	const makeData = `absent; run "make data" to fetch it`
	tests := []struct {
		name     string
		files    []file
		noShared bool
		// want: entry -> key -> a substring of the value
		want map[string]map[string]string
	}{
		{name: "nothing fetched", want: map[string]map[string]string{
			"magic-fLength": {"file magic04.data": makeData},
			"taxi":          {"file yellow_tripdata_2018-01.pickup.csv": makeData},
			"voltage":       {"file household_power_consumption.txt": makeData},
			"nytaxi":        {"file yellow_tripdata_2023-01.pickup.csv": makeData},
			"vehicle": {"file vehicle_combined_scale": makeData, "file vehicle_combined_scale.bz2": makeData,
				"file vehicle_combined_scale.t.bz2": makeData},
			"wisdm":             {"file WISDM_ar_v1.1_raw.txt": makeData, "file WISDM_ar_latest.tar.gz": makeData},
			"beta32":            {"data": "generated (no file)"},
			"beta-sin":          {"data": "cannot be fetched: Du et al. did not publish"},
			"mimic-gender":      {"data": "generated stand-in (no file); the real data cannot be fetched: MIMIC-IV needs credentialed PhysioNet access"},
			"aquila-gender-age": {"data": "cannot be fetched: AQUILA is not public"},
		}},
		{name: "in data/", files: []file{{"data", "magic04.data"}, {"data", "vehicle_combined_scale"}},
			want: map[string]map[string]string{
				"magic-fLength": {"file magic04.data": "present in data/ (" + filepath.Join("data", "magic04.data") + ")"},
				"vehicle": {"file vehicle_combined_scale": "present in data/",
					"file vehicle_combined_scale.bz2": makeData},
			}},
		{name: "in the shared fallback", files: []file{{"shared", "magic04.data"}},
			want: map[string]map[string]string{
				"magic-fAlpha": {"file magic04.data": "present in the shared fallback only (" +
					filepath.Join("..", "shared", "data", "magic04.data") + "), which a user's clone lacks"},
			}},
		{name: "fallback hidden", files: []file{{"shared", "magic04.data"}}, noShared: true,
			want: map[string]map[string]string{
				"magic-fAlpha": {"file magic04.data": "absent (the copy in " +
					filepath.Join("..", "shared", "data", "magic04.data") + " is hidden: $LDPBENCH_NO_SHARED is set); run \"make data\""},
			}},
		{name: "data/ before the fallback", files: []file{{"shared", "shuttle.tst"}, {"data", "shuttle.tst"}},
			want: map[string]map[string]string{
				"shuttle-col0": {"file shuttle.tst": "present in data/"},
			}},
		{name: "LDPBENCH_DATA", files: []file{{"env", "household_power_consumption.txt"}, {"data", "household_power_consumption.txt"}},
			want: map[string]map[string]string{
				"voltage": {"file household_power_consumption.txt": "present in $LDPBENCH_DATA ("},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dirs := map[string]string{
				"data":   filepath.Join(root, "work", "data"),
				"shared": filepath.Join(root, "shared", "data"),
				"env":    filepath.Join(root, "env"),
			}
			for _, d := range dirs {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dirs[f.dir], f.name), []byte("1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(filepath.Join(root, "work"))
			t.Setenv(datasets.EnvData, dirs["env"])
			noShared := ""
			if tt.noShared {
				noShared = "1"
			}
			t.Setenv(datasets.EnvNoShared, noShared)

			out, err := runCLI(t, "list", "datasets", "-v")
			if err != nil {
				t.Fatal(err)
			}
			blocks := listBlocks(t, out)
			cat := datasets.Catalogue()
			if len(blocks) != len(cat) {
				t.Errorf("%d datasets listed, the catalogue has %d", len(blocks), len(cat))
			}
			for _, d := range cat {
				b, ok := blocks[d.Name]
				if !ok {
					t.Errorf("%s not listed", d.Name)
					continue
				}
				if b["summary"] != d.Description || b["spec"] != d.Key() {
					t.Errorf("%s: summary %q, spec %q; want the description and %q", d.Name, b["summary"], b["spec"], d.Key())
				}
				files := datasets.EntryFiles(d)
				if _, ok := b["data"]; ok == (len(files) > 0) {
					t.Errorf("%s: files %v, but data line %q", d.Name, files, b["data"])
				}
				if n := len(b) - 2; len(files) > 0 && n != len(files) {
					t.Errorf("%s: %d lines after the spec, want one per file %v: %v", d.Name, n, files, b)
				}
				for _, f := range files {
					v, ok := b["file "+f]
					if !ok {
						t.Errorf("%s: no line for its file %s", d.Name, f)
						continue
					}
					_, err := datasets.Find(f)
					if strings.HasPrefix(v, "present") != (err == nil) {
						t.Errorf("%s: file %s listed %q, but a run's lookup gives %v", d.Name, f, v, err)
					}
				}
			}
			for name, keys := range tt.want {
				for k, want := range keys {
					if got := blocks[name][k]; !strings.Contains(got, want) {
						t.Errorf("%s: %s = %q, want it to contain %q", name, k, got, want)
					}
				}
			}

			out, err = runCLI(t, "list", "datasets")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, d := range cat {
				names = append(names, d.Name)
			}
			if got := strings.Fields(out); !slices.Equal(got, names) {
				t.Errorf("list datasets = %v, want the catalogue's names %v", got, names)
			}
		})
	}
}

// TestFileStateUnfetchable: a file `make data` does not provide is not
// sent there, but to data/ or $LDPBENCH_DATA.
func TestFileStateUnfetchable(t *testing.T) {
	got := fileState(datasets.FileStatus{Name: "mine.csv"})
	if strings.Contains(got, `run "make data"`) || !strings.Contains(got, "does not fetch it") || !strings.Contains(got, "$LDPBENCH_DATA") {
		t.Errorf("fileState(absent, not fetchable) = %q", got)
	}
}
