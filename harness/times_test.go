package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimesRecorded: a run writes one times.csv row with its cells,
// trials, scale, workers and positive times; a second call that finds the
// run up to date adds none; --fresh starts the record again; the merge of
// 3 shards holds the shards' three rows, each naming its shard. Catches a
// record that a re-draw appends to (times that count nothing run), one
// that --fresh keeps from the old rows, and a merge that drops the shards'
// times.
func TestTimesRecorded(t *testing.T) {
	s := writeShardSpec(t, shardSpecTOML)
	dir := t.TempDir()
	res, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadTimes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows after one run, want 1", len(rows))
	}
	r := rows[0]
	if r.Cells != res.Cells || r.Trials != res.Trials || r.Trials == 0 || r.Resumed != 0 || r.Jobs != 2 || r.Scale != "full" || r.Shard != "" || r.Build != BuildID() {
		t.Errorf("row %+v, want cells %d, trials %d, jobs 2, full scale, no shard, build %s", r, res.Cells, res.Trials, BuildID())
	}
	if !(r.Wall > 0) || r.CPU < 0 || r.CPUs < 1 || r.Started.IsZero() {
		t.Errorf("row %+v: want a positive wall time, CPUs and a start", r)
	}
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if rows, _ := ReadTimes(dir); len(rows) != 1 {
		t.Errorf("%d rows after an up-to-date call, want still 1", len(rows))
	}
	if _, err := Run(context.Background(), testKinds, s, Options{OutDir: dir, Jobs: 1, Fresh: true}); err != nil {
		t.Fatal(err)
	}
	if rows, _ := ReadTimes(dir); len(rows) != 1 || rows[0].Jobs != 1 {
		t.Errorf("after --fresh: %+v, want the new run's row alone", rows)
	}

	dirs := runShards(t, s, 3, Options{Jobs: 1})
	out := t.TempDir()
	if _, err := Merge(testKinds, out, dirs, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	rows, err = ReadTimes(out)
	if err != nil {
		t.Fatal(err)
	}
	var shards []string
	for _, r := range rows {
		shards = append(shards, r.Shard)
	}
	if strings.Join(shards, " ") != "0/3 1/3 2/3" {
		t.Errorf("merged times name shards %q, want 0/3 1/3 2/3", shards)
	}
}

// TestReadTimesErrors: a file that is not a times file, and a bad value,
// are errors naming the file (and line); no file wraps os.ErrNotExist.
func TestReadTimesErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadTimes(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no file: %v, want os.ErrNotExist", err)
	}
	for _, tc := range []struct{ body, want string }{
		{"a,b\n1,2\n", "not a times file"},
		{strings.Join(TimesHeader, ",") + "\n2026-11-28T12:00:00Z,b,full,,2,2,cpu,3,0,9,1.5,x\n", "times.csv:2:"},
		{strings.Join(TimesHeader, ",") + "\nyesterday,b,full,,2,2,cpu,3,0,9,1.5,2\n", "times.csv:2:"},
	} {
		if err := os.WriteFile(filepath.Join(dir, TimesFile), []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTimes(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want one containing %q", tc.body, err, tc.want)
		}
	}
	// A row written and read back is the same row.
	want := Times{Build: "b", Scale: "quick", Shard: "1/4", Jobs: 2, CPUs: 8, CPUModel: "a, b", Cells: 3, Resumed: 1, Trials: 90, Wall: 1.25, CPU: 2.5}
	os.Remove(filepath.Join(dir, TimesFile))
	if err := AppendTimes(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTimes(dir)
	if err != nil || len(got) != 1 || got[0].CPUModel != want.CPUModel || got[0].Trials != 90 || got[0].CPU != 2.5 || got[0].Shard != "1/4" {
		t.Errorf("round trip: %+v, %v; want %+v", got, err, want)
	}
}
