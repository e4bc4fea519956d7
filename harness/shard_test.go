package harness

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
)

// shardSpecTOML is a spec of the toy kind with figures and a table of
// cells of unequal cost (n = 500 and 4000), so that the cost balance,
// the figures and the tables of a merge are all exercised.
const shardSpecTOML = `
name = "sharded"
kind = "toy"
seed = 11
trials = 5
metrics = ["mse", "abs"]

[axes]
method = ["gauss", "uniform"]
eps = [0.5, 1, 2]
n = [500, 4000]
params = { scale = ["1", "2"] }

[quick]
trials = 3
n = [300]

[[datasets]]
name = "beta"
source = "beta"
a = 2.0
b = 5.0

[[datasets]]
name = "unif"
source = "uniform"
lo = -1.0
hi = 1.0

[[figures]]
name = "mse-vs-eps"
metric = "mse"
x = "eps"
series = "method"
panel = "dataset"
logx = true
logy = true
theory = true
formats = ["svg"]
filter = { n = ["4000"], scale = ["1"] }
`

func writeShardSpec(t *testing.T, body string) *Spec {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sharded.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSpec(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outputs returns the files of an output directory (not its lock, its
// times or its subdirectories), by name.
func outputs(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]byte)
	for _, e := range ents {
		// times.csv records the machine's time, not a result: the shards'
		// rows of it are checked by TestTimesRecorded.
		if e.IsDir() || e.Name() == lockFile || e.Name() == TimesFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func runShards(t *testing.T, s *Spec, n int, opt Options) []string {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for i := 0; i < n; i++ {
		o := opt
		o.Shard = Shard{i, n}
		o.OutDir = filepath.Join(root, "shard"+strconv.Itoa(i))
		if _, err := Run(context.Background(), testKinds, s, o); err != nil {
			t.Fatalf("shard %d/%d: %v", i, n, err)
		}
		dirs = append(dirs, o.OutDir)
	}
	return dirs
}

// The merged output of 1, 2, 4 and 7 shards (7 does not divide the 48
// cells) is byte for byte the single run's: rows.csv, summary.csv,
// spec.toml and the figure. Catches a merge that reorders cells (shards
// hold them by cost, not plan order), re-formats a value, drops the end
// line or writes the shard's first line.
func TestMergeEqualsSingleRun(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	single := t.TempDir()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: single, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	want := outputs(t, single)
	for _, f := range []string{RowsFile, SummaryFile, SpecFile, "mse-vs-eps.svg"} {
		if want[f] == nil {
			t.Fatalf("the single run wrote no %s", f)
		}
	}
	for _, n := range []int{1, 2, 4, 7} {
		dirs := runShards(t, s, n, Options{Jobs: 2})
		out := t.TempDir()
		if _, err := Merge(testKinds, out, dirs, MergeOptions{}); err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		got := outputs(t, out)
		if !slices.Equal(slices.Sorted(mapKeys(got)), slices.Sorted(mapKeys(want))) {
			t.Fatalf("%d shards: merged files %v, single run %v", n, slices.Sorted(mapKeys(got)), slices.Sorted(mapKeys(want)))
		}
		for f, b := range want {
			if !bytes.Equal(got[f], b) {
				t.Errorf("%d shards: merged %s differs from the single run's", n, f)
			}
		}
	}
}

func mapKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// The shards split the cells by estimated cost, greedy longest first.
// Catches round-robin by index (the giant cell gets company), a sort by
// increasing cost, and ties broken by anything but plan order and shard
// index (which would make shards disagree).
func TestAssignShardsBalancesCost(t *testing.T) {
	cases := []struct {
		name  string
		costs []float64
		n     int
		want  []int
	}{
		// One huge cell (a ULE cell at 10⁷) and many small ones: the huge
		// cell alone on one shard, the rest on the other. Round-robin
		// would put half the small ones beside it.
		{"one giant", []float64{1, 1, 1, 1e4, 1, 1}, 2, []int{1, 1, 1, 0, 1, 1}},
		// LPT by hand: 7 -> 0, 6 -> 1, 5 -> 1 (load 6 < 7), 4 -> 0 (7 <
		// 11), 3 -> 0 (11 = 11: the lower index).
		{"lpt", []float64{3, 7, 5, 6, 4}, 2, []int{0, 0, 1, 1, 0}},
		{"more shards than cells", []float64{2, 1}, 4, []int{0, 1}},
		{"ties keep plan order", []float64{1, 1, 1, 1}, 2, []int{0, 1, 0, 1}},
	}
	for _, c := range cases {
		if got := AssignShards(c.costs, c.n); !slices.Equal(got, c.want) {
			t.Errorf("%s: AssignShards(%v, %d) = %v, want %v", c.name, c.costs, c.n, got, c.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "4/4", "-1/4", "0/0", "a/b", "1/2/3"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("3/7"); err != nil || s != (Shard{3, 7}) {
		t.Errorf("ParseShard(3/7) = %v, %v", s, err)
	}
}

// A shard killed mid-run resumes from its partial rows like any run, and
// the merge is still the single run's bytes.
func TestKilledShardResumes(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	single := t.TempDir()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: single, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	dirs := runShards(t, s, 2, Options{Jobs: 2})
	// Cut shard 1's rows in the middle of a cell, as a kill would leave
	// them.
	rows, _ := os.ReadFile(filepath.Join(dirs[1], RowsFile))
	os.Remove(filepath.Join(dirs[1], RowsFile))
	os.WriteFile(filepath.Join(dirs[1], PartialFile), rows[:len(rows)*2/3], 0o644)
	if _, err := Merge(testKinds, t.TempDir(), dirs, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "has not finished") {
		t.Fatalf("merge of an unfinished shard: %v, want a refusal saying so", err)
	}
	res, err := Run(context.Background(), testKinds, s, Options{OutDir: dirs[1], Shard: Shard{1, 2}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed == 0 {
		t.Errorf("the killed shard resumed no cell")
	}
	out := t.TempDir()
	if _, err := Merge(testKinds, out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, RowsFile))
	want, _ := os.ReadFile(filepath.Join(single, RowsFile))
	if !bytes.Equal(got, want) {
		t.Fatal("merge after a resumed shard differs from the single run")
	}
}

// Merge refuses, naming what is wrong, and writes nothing.
func TestMergeRefusals(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	dirs := runShards(t, s, 3, Options{Jobs: 2})
	otherSeed := runShards(t, s, 3, Options{Jobs: 2, Seed: 12, SeedSet: true})
	quick := runShards(t, s, 3, Options{Jobs: 2, Quick: true})
	four := runShards(t, s, 4, Options{Jobs: 2})
	otherSpec := runShards(t, writeShardSpec(t, strings.Replace(shardSpecTOML, "trials = 5", "trials = 4", 1)), 3, Options{Jobs: 2})
	// Shard 1 as another build would have written it.
	otherBuild := t.TempDir()
	for _, f := range []string{RowsFile, SpecFile} {
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(otherBuild, f), bytes.Replace(b, []byte(" build="+BuildID()), []byte(" build=sha256-0000000000000000"), 1), 0o644)
	}
	cases := []struct {
		name string
		dirs []string
		want string
	}{
		{"seed", []string{dirs[0], otherSeed[1], dirs[2]}, "seed (11 in " + dirs[0] + ", 12 in " + otherSeed[1] + ")"},
		{"scale", []string{dirs[0], quick[1], dirs[2]}, "scale (quick) (false in " + dirs[0] + ", true in " + quick[1] + ")"},
		{"spec", []string{dirs[0], otherSpec[1], dirs[2]}, "spec content ("},
		{"build", []string{dirs[0], otherBuild, dirs[2]}, "build (" + BuildID() + " in " + dirs[0] + ", sha256-0000000000000000 in " + otherBuild + ")"},
		{"count", []string{dirs[0], four[1], dirs[2]}, "different counts"},
		{"same shard twice", []string{dirs[0], dirs[1], dirs[1]}, "are both shard 1/3"},
		{"missing", []string{dirs[0], dirs[2]}, "in no shard (shard(s) 1 of 3 not given)"},
		{"not a shard", []string{t.TempDir()}, "no such file"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "merged")
		_, err := Merge(testKinds, out, c.dirs, MergeOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the refused merge created %s", c.name, out)
		}
	}
	// A missing cell is named by its key.
	_, err := Merge(testKinds, t.TempDir(), []string{dirs[0], dirs[2]}, MergeOptions{})
	if err == nil || !strings.Contains(err.Error(), "experiment=sharded;dataset=") {
		t.Errorf("missing cells not named: %v", err)
	}
	// A duplicated cell: shard 1's rows carry a cell of shard 0 as well.
	dup := t.TempDir()
	for _, f := range []string{RowsFile, SpecFile} {
		b, _ := os.ReadFile(filepath.Join(dirs[1], f))
		os.WriteFile(filepath.Join(dup, f), b, 0o644)
	}
	injectCell(t, filepath.Join(dup, RowsFile), filepath.Join(dirs[0], RowsFile), 5*2)
	_, err = Merge(testKinds, t.TempDir(), []string{dirs[0], dup, dirs[2]}, MergeOptions{})
	if err == nil || !strings.Contains(err.Error(), "is in both") || !strings.Contains(err.Error(), "experiment=sharded;") {
		t.Errorf("duplicated cell: got %v, want an error naming the cell and both directories", err)
	}
}

// injectCell appends the first cell (perCell rows) of src's rows to dst's,
// fixing dst's end line.
func injectCell(t *testing.T, dst, src string, perCell int) {
	t.Helper()
	d, _ := os.ReadFile(dst)
	s, _ := os.ReadFile(src)
	dl := strings.Split(strings.TrimSuffix(string(d), "\n"), "\n")
	sl := strings.Split(string(s), "\n")
	body := append(dl[:len(dl)-1:len(dl)-1], sl[2:2+perCell]...)
	n := len(body) - 2
	body = append(body, "# end records="+strconv.Itoa(n))
	if err := os.WriteFile(dst, []byte(strings.Join(body, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A spec with a dataset that `make data` has not fetched yet: every shard
// skips it, the merge plans without its cells (they are not "missing"),
// and the bytes are the single run's, skipped= line included.
func TestMergeWithSkippedDataset(t *testing.T) {
	body := shardSpecTOML + `
[[datasets]]
name = "absent, with a comma"
source = "file"
path = "sf_total_compensation.csv"
normalise = "minmax"
`
	s := writeShardSpec(t, body)
	single := t.TempDir()
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: single, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(single, RowsFile))
	if !bytes.Contains(want, []byte(" skipped=absent, with a comma (sf_total_compensation.csv)")) {
		t.Fatalf("the single run's first line does not name the skipped dataset:\n%.300s", want)
	}
	dirs := runShards(t, s, 3, Options{Jobs: 2})
	out := t.TempDir()
	if _, err := Merge(testKinds, out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, RowsFile))
	if !bytes.Equal(got, want) {
		t.Fatal("merged rows differ from the single run's")
	}
}

// costKind is the toy kind with its own cost model: a uniform cell costs
// a thousand gauss cells, and a zero or NaN estimate falls back on n.
type costKind struct {
	toyKind
	bad bool
}

func (k costKind) TrialCost(c *experiment.CellSpec) float64 {
	if k.bad {
		return math.NaN()
	}
	if c.Method == "uniform" {
		return 1000 * float64(c.N)
	}
	return float64(c.N)
}

// The shards follow the kind's experiment.CostEstimator when it has one,
// and n × dim when it has none or answers nonsense. Catches a harness that
// ignores the capability (a kind could never say that ULE costs more than
// UA at the same n).
func TestShardsUseKindCost(t *testing.T) {
	d := &datasets.Dataset{Name: "d", Values: make([]float64, 10)}
	specs := []*experiment.CellSpec{
		{Method: "gauss", N: 10, Dataset: d}, {Method: "uniform", N: 10, Dataset: d},
		{Method: "gauss", N: 20, Dataset: d}, {Method: "gauss", N: 30, Dataset: d},
	}
	cases := []struct {
		kind experiment.Kind
		want []float64
	}{
		{toyKind{}, []float64{20, 20, 40, 60}},
		{costKind{}, []float64{20, 20000, 40, 60}},
		{costKind{bad: true}, []float64{20, 20, 40, 60}},
	}
	for _, c := range cases {
		if got := cellCosts(c.kind, specs, 2); !slices.Equal(got, c.want) {
			t.Errorf("%T: costs %v, want %v", c.kind, got, c.want)
		}
	}
	// With the kind's costs the uniform cell has a shard to itself.
	if got := AssignShards(cellCosts(costKind{}, specs, 2), 2); !slices.Equal(got, []int{1, 0, 1, 1}) {
		t.Errorf("assignment %v, want the uniform cell alone on shard 0", got)
	}
}
