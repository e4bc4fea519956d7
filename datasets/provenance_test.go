package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/datasets/datatest"
)

// sha256File is the digest of the whole file, as sha256sum prints it; when
// the sha256sum program is there it is asked too, so that the test does not
// only agree with itself.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	want := hex.EncodeToString(sum[:])
	if prog, err := exec.LookPath("sha256sum"); err == nil {
		out, err := exec.Command(prog, path).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got, _, _ := strings.Cut(string(out), " "); got != want {
			t.Fatalf("sha256sum %s = %s, crypto/sha256 %s", path, got, want)
		}
	}
	return want
}

// writeFixture writes content into a fresh directory under name.
func writeFixture(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every file dataset records its file: base name, where it was found, the
// SHA-256 of the whole file (equal to sha256sum's) and the rows read,
// dropped (by reason) and used. Cases: a generated magic04.data read in
// full and cut at n = 10 (catches a digest of only the bytes parsed before
// the limit, and rows_in_file counted only that far); a file with a
// header, comments, missing values and values outside the keep window
// (catches drops not counted, or counted under the wrong reason, and the
// header or comments counted as rows); a grouped file cut to n (catches
// rows_used left at the rows loaded before the cut).
func TestFileProvenance(t *testing.T) {
	magic := datatest.Magic04(200, 7)
	magicPath := filepath.Join(t.TempDir(), magic.Name)
	if err := magic.Write(filepath.Dir(magicPath)); err != nil {
		t.Fatal(err)
	}
	// 8 data lines under a header, with a blank line and comments: 2
	// missing ("?"), 3 outside [10, 20] (5, 25, 30), 3 kept.
	bad := "# power readings\nDate;Time;V\n1;a;12\n1;b;?\n\n1;c;5\n1;d;15\n# gap\n1;e;25\n1;f;?\n1;g;30\n1;h;18\n"
	badPath := writeFixture(t, "household.txt", bad)
	grouped := "1,a\n2,b\n3,a\n4,b\n5,a\n6,b\n"
	groupedPath := writeFixture(t, "grouped.csv", grouped)

	cases := []struct {
		name string
		spec Spec
		n    int
		path string
		want FileProvenance
	}{
		{"magic, all rows", Spec{Source: SourceFile, Path: magicPath, Column: 0, Sep: ","}, 0, magicPath,
			FileProvenance{RowsInFile: 200, RowsRead: 200, Used: 200}},
		{"magic, first 10 (a quick run)", Spec{Source: SourceFile, Path: magicPath, Column: 0, Sep: ","}, 10, magicPath,
			FileProvenance{RowsInFile: 200, RowsRead: 10, Used: 10}},
		{"missing and filtered", Spec{Source: SourceFile, Path: badPath, Column: 2, Sep: ";", Header: true, Missing: "?", KeepLo: 10, KeepHi: 20}, 0, badPath,
			FileProvenance{RowsInFile: 8, RowsRead: 8, Missing: 2, Filtered: 3, Used: 3}},
		{"missing and filtered, first 6 rows", Spec{Source: SourceFile, Path: badPath, Column: 2, Sep: ";", Header: true, Missing: "?", Rows: 6, KeepLo: 10, KeepHi: 20}, 0, badPath,
			FileProvenance{RowsInFile: 8, RowsRead: 6, Missing: 2, Filtered: 2, Used: 2}},
		{"grouped, cut to 4", Spec{Source: SourceFile, Path: groupedPath, Column: 0, Sep: ",", GroupColumn: ColumnAt(1), Lo: 0, Hi: 10}, 4, groupedPath,
			FileProvenance{RowsInFile: 6, RowsRead: 6, Used: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Name = "d"
			d, err := tc.spec.Build(tc.n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.File == nil {
				t.Fatal("no provenance for a file dataset")
			}
			want := tc.want
			want.File, want.Found, want.SHA256 = filepath.Base(tc.path), FoundPath, sha256File(t, tc.path)
			st, _ := os.Stat(tc.path)
			want.Bytes = st.Size()
			if *d.File != want {
				t.Errorf("provenance\n got %+v\nwant %+v", *d.File, want)
			}
			if d.Rows() != want.Used {
				t.Errorf("%d rows in the dataset, provenance says %d used", d.Rows(), want.Used)
			}
			f := d.File.Fields()
			for _, field := range []string{
				"file=" + strconv.Quote(want.File), "found=path", "sha256=" + want.SHA256,
				"dropped=" + strconv.Itoa(want.Missing+want.Filtered), "dropped_missing=" + strconv.Itoa(want.Missing),
				"dropped_filtered=" + strconv.Itoa(want.Filtered), "rows_used=" + strconv.Itoa(want.Used),
			} {
				if !strings.Contains(f, field) {
					t.Errorf("Fields() = %q, want %q in it", f, field)
				}
			}
		})
	}
	// A synthetic dataset has none.
	if d, err := (Spec{Name: "b", Source: SourceBeta, A: 2, B: 2}).BuildSeed(10, 1); err != nil || d.File != nil {
		t.Errorf("beta: File = %+v, %v; want nil", d.File, err)
	}
}

// One run hashes a file once, however many datasets read it and in
// whatever order of n: the later reads take the digest and the row count
// from the cache and agree with the first. Catches a cache that is never
// hit (Hashed 3), one keyed by name only (the second file would share the
// first's digest), and a hit after a read cut at n that reports the rows
// seen so far instead of the file's.
func TestFileDigestsHashOnce(t *testing.T) {
	dir := t.TempDir()
	if err := datatest.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvData, dir)
	t.Setenv(EnvNoShared, "1")
	magic := filepath.Join(dir, "magic04.data")
	shuttle := filepath.Join(dir, "shuttle.tst")
	digests := NewFileDigests()
	var got []*FileProvenance
	for i, c := range []struct {
		path   string
		column int
		sep    string
		n      int
	}{
		{"magic04.data", 0, ",", 5}, // cut first: the tail is still hashed
		{"magic04.data", 3, ",", 0},
		{"magic04.data", 8, ",", 7},
		{"shuttle.tst", 0, "", 0},
	} {
		s := Spec{Name: "d" + strconv.Itoa(i), Source: SourceFile, Path: c.path, Column: c.column, Sep: c.sep}
		d, err := s.BuildWith(c.n, nil, digests)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.File)
	}
	if h := digests.Hashed(); h != 2 {
		t.Errorf("hashed %d times for 2 files", h)
	}
	for i, p := range got[:3] {
		if p.SHA256 != sha256File(t, magic) || p.RowsInFile != datatest.MagicRows || p.Found != FoundEnv {
			t.Errorf("magic04.data read %d: %+v; want sha256 %s, %d rows, found %s", i, *p, sha256File(t, magic), datatest.MagicRows, FoundEnv)
		}
	}
	if p := got[3]; p.SHA256 != sha256File(t, shuttle) || p.RowsInFile != datatest.ShuttleRows {
		t.Errorf("shuttle.tst: %+v; want its own digest and %d rows", *p, datatest.ShuttleRows)
	}
}

// A file with fewer data rows than the spec's rows key is an error naming
// the file and both counts, at any n (a quick run reads fewer values, but
// the file must hold what the spec says); a file holding exactly rows is
// fine. Catches the check made only at full scale, made against the values
// kept (after drops) instead of the data lines, and the header counted as
// a row.
func TestShortFileIsAnError(t *testing.T) {
	var b strings.Builder
	b.WriteString("# generated\nvalue\n")
	for i := range 50 {
		if i%10 == 3 {
			b.WriteString("?\n") // a missing value still counts as a row
		} else {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
	}
	path := writeFixture(t, "taxi.csv", b.String())
	cases := []struct {
		rows, n int
		ok      bool
	}{
		{100, 0, false},
		{100, 10, false}, // quick scale
		{51, 1, false},   // off by one: the header is not a row
		{50, 0, true},
		{50, 10, true},
	}
	for _, tc := range cases {
		s := Spec{Name: "taxi", Source: SourceFile, Path: path, Header: true, Missing: "?", Rows: tc.rows}
		_, err := s.Build(tc.n, nil)
		if tc.ok {
			if err != nil {
				t.Errorf("rows = %d, n = %d: %v", tc.rows, tc.n, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("rows = %d, n = %d: no error for a file of 50 rows", tc.rows, tc.n)
			continue
		}
		for _, want := range []string{path, "50 data rows", strconv.Itoa(tc.rows), "key rows"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("rows = %d, n = %d: error %q does not name %q", tc.rows, tc.n, err, want)
			}
		}
	}
}

// Locate labels where it found a file, with no directory in the label.
// Catches a label taken from the wrong step (the data/ label for a file
// in $LDPBENCH_DATA).
func TestLocateFound(t *testing.T) {
	env := t.TempDir()
	writeIn := func(dir, name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeIn(env, "in-env.csv")
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(filepath.Join(work, "data"), "in-data.csv")
	base := t.TempDir()
	writeIn(base, "in-base.csv")
	t.Chdir(work)
	t.Setenv(EnvData, env)
	t.Setenv(EnvNoShared, "1")
	for _, tc := range []struct{ base, name, want string }{
		{"", "in-env.csv", FoundEnv},
		{"", "in-data.csv", FoundData},
		{base, "in-base.csv", FoundBase},
		{"", filepath.Join("data", "in-data.csv"), FoundPath},
		{"", filepath.Join(env, "in-env.csv"), FoundPath},
	} {
		if _, found, err := Locate(tc.base, tc.name); err != nil || found != tc.want {
			t.Errorf("Locate(%q, %q) found %q, %v; want %q", tc.base, tc.name, found, err, tc.want)
		}
	}
}
