package datasets

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLoadColumn feeds the data-file loader (loadColumn, behind LoadColumn
// and every file dataset's Build; loadGrouped when a group column is given,
// behind grouped file datasets) arbitrary file contents, columns, group
// columns, separators and layouts (header, missing marker, rows limit, keep
// window, a value limit and a value check as Build's fixed range is, a bound
// on the number of groups), and checks:
//
//   - it never panics;
//   - what it accepts is at least one value, every one finite, no more than
//     the limit, inside the keep window and passing the check;
//   - an error starts with the file name, and names the line (file:line:)
//     when a line is at fault; the file's bytes appear in it only quoted
//     (no raw control character or invalid UTF-8);
//   - values and errors agree with refLoadColumn, a plain re-implementation
//     of LoadColumn's documented rules (strings.Split over whole lines): the
//     same values, or an error at the same line;
//   - with a group column: every row's label is the reference's, labels are
//     distinct, non-empty and numbered in first-seen order, and there are
//     no more than the bound.
//
// Seeds: the first lines of the two real files in ../shared/data
// (magic04.data, comma-separated; shuttle.tst, whitespace) as literals, and
// edge cases.
func FuzzLoadColumn(f *testing.F) {
	const magic = "28.7967,16.0021,2.6449,0.3918,0.1982,27.7004,22.011,-8.2027,40.092,81.8828,g\n" +
		"31.6036,11.7235,2.5185,0.5303,0.3773,26.2722,23.8238,-9.9574,6.3609,205.261,g\n" +
		"162.052,136.031,4.0612,0.0374,0.0187,116.741,-64.858,-45.216,76.96,256.788,g\n"
	const shuttle = "55 0 81 0 -6 11 25 88 64 4\n56 0 96 0 52 -4 40 44 4 4\n50 -1 89 -7 50 0 39 40 2 1\n"
	type seed struct {
		content          string
		column           int
		grouped          bool // with a group column
		group, maxGroups int
		sep              string
		header           bool
		missing          string
		rows, limit      int
		keep             bool
		keepLo, keepHi   float64
		check            bool
		checkLo, checkHi float64
	}
	for _, s := range []seed{
		{content: magic, column: 0, sep: ","},
		{content: magic, column: 8, sep: ",", limit: 2},
		{content: magic, column: 10, sep: ","}, // "g": not a number
		{content: magic, column: 11, sep: ","}, // no such column
		{content: magic, column: 9, sep: ",", keep: true, keepLo: 100, keepHi: 300},
		{content: magic, column: 0, sep: ",", check: true, checkLo: 0, checkHi: 100},
		{content: shuttle, column: 0, sep: ""},
		{content: shuttle, column: 9, sep: "whitespace", rows: 2},
		{content: shuttle, column: 9, sep: "whitespace", rows: 4, limit: 1}, // 3 rows: short, past the limit too
		{content: shuttle, column: 3, sep: " ", header: true},
		{content: strings.ReplaceAll(shuttle, " ", "\t"), column: 1, sep: "\t"},
		{content: "Date;Time;Voltage\n1/1;00:00;234.8\n1/1;00:01;?\n1/1;00:02;233.3\n", column: 2, sep: ";", header: true, missing: "?", rows: 2},
		{content: "# c\r\n\r\n 1 , 2 \r\n3,4\r\n", column: 1, sep: ","},
		{content: "1\n2", column: 0, sep: ","},
		{content: "", column: 0, sep: ","},
		{content: "# only\n\n   \n", column: 0, sep: ""},
		{content: "1\nNaN\n", column: 0, sep: ","},
		{content: "1\n1e999\n-Inf\n", column: 0, sep: ","},
		{content: "1,2\n3\n", column: 1, sep: ","},
		{content: "1\n\v\n2\n", column: 0, sep: ""},
		{content: "\"1\",\"2\"\n", column: 0, sep: ","},
		{content: "0x1p-2 -0 1_0 +5 .5 5.\n", column: 1, sep: ""},
		{content: "1,2\n", column: -1, sep: ","},
		{content: "1,2\n", column: 0, sep: ",,"},
		{content: "1#2\n3#4\n", column: 1, sep: "#"},
		// Group columns: the class columns of the two files, a missing
		// marker in either column, labels that must be refused, a bound on
		// the number of groups.
		{grouped: true, content: magic, column: 8, group: 10, sep: ","},
		{grouped: true, content: magic, column: 8, group: 10, sep: ",", maxGroups: 1},
		{grouped: true, content: magic, column: 8, group: 11, sep: ","},
		{grouped: true, content: shuttle, column: 0, group: 9, sep: "", keep: true, keepLo: 50, keepHi: 60},
		{grouped: true, content: shuttle, column: 0, group: 9, sep: "", check: true, checkLo: 0, checkHi: 52},
		{grouped: true, content: "1,a\n2,?\n?,b\n4,b\n", column: 0, group: 1, sep: ",", missing: "?"},
		{grouped: true, content: "1,a\n2,\n", column: 0, group: 1, sep: ","},
		{grouped: true, content: "1,a\n2,b\x1bc\n3,\xff\n", column: 0, group: 1, sep: ","},
		{grouped: true, content: "1,x\n2,y\n3,z\n4,x\n", column: 0, group: 1, sep: ",", maxGroups: 2},
		{grouped: true, content: "1 a\n2\n", column: 0, group: 1, sep: ""},
		{grouped: true, content: "1,1\n", column: 0, group: 0, sep: ","},
	} {
		group := -1
		if s.grouped {
			group = s.group
		}
		f.Add([]byte(s.content), s.column, group, s.maxGroups, s.sep, s.header, s.missing, s.rows, s.limit,
			s.keep, s.keepLo, s.keepHi, s.check, s.checkLo, s.checkHi)
	}
	path := filepath.Join(f.TempDir(), "data.csv")
	f.Fuzz(func(t *testing.T, content []byte, column, group, maxGroups int, sep string, header bool, missing string,
		rows, limit int, keep bool, keepLo, keepHi float64, check bool, checkLo, checkHi float64) {
		if column > 64 {
			column %= 64
		}
		if column < -1 {
			column = -1
		}
		if group > 64 {
			group %= 64
		}
		if group < -1 {
			group = -1
		}
		if maxGroups < 1 || maxGroups > MaxGroups {
			maxGroups = MaxGroups
		}
		if rows < 0 || limit < 0 {
			return
		}
		rows, limit = rows%64, limit%64
		layout := fileLayout{header: header, missing: missing, rows: rows, keep: keep, keepLo: keepLo, keepHi: keepHi}
		var checkFn func(float64) error
		if check {
			checkFn = func(x float64) error {
				if !(x >= checkLo && x <= checkHi) {
					return fmt.Errorf("value %v is outside [%v, %v]", x, checkLo, checkHi)
				}
				return nil
			}
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		var (
			got      []float64
			err      error
			ids      []int32
			labels   []string
			in       string
			refGroup = -1
		)
		if group >= 0 && column >= 0 {
			// A grouped load reads every row: no limit.
			limit = 0
			refGroup = group
			got, ids, labels, err = loadGrouped(path, column, group, sep, checkFn, layout, maxGroups)
			in = fmt.Sprintf("loadGrouped(%q, column %d, group %d, sep %q, check %v, %+v, max %d)", content, column, group, sep, check, layout, maxGroups)
		} else {
			got, err = loadColumn(path, column, sep, limit, checkFn, layout)
			in = fmt.Sprintf("loadColumn(%q, column %d, sep %q, limit %d, check %v, %+v)", content, column, sep, limit, check, layout)
		}
		want, wantLabels, wantLine, wantErr := refLoadColumn(string(content), column, refGroup, maxGroups, sep, limit, checkFn, layout)

		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, path+":") {
				t.Fatalf("%s: error %q does not start with the file name", in, msg)
			}
			if bad := unprintable(strings.TrimPrefix(msg, path)); bad != "" {
				t.Fatalf("%s: error %q holds %s", in, msg, bad)
			}
			if wantErr == nil {
				t.Fatalf("%s: error %q; the reference accepts %v", in, msg, want)
			}
			prefix := path + ": "
			if wantLine > 0 {
				prefix = fmt.Sprintf("%s:%d: ", path, wantLine)
			}
			if !strings.HasPrefix(msg, prefix) {
				t.Fatalf("%s: error %q; want it to start %q (%v)", in, msg, prefix, wantErr)
			}
			return
		}
		if wantErr != nil {
			t.Fatalf("%s accepted %v; the reference says line %d: %v", in, got, wantLine, wantErr)
		}
		if len(got) == 0 {
			t.Fatalf("%s: no values and no error", in)
		}
		if limit > 0 && len(got) > limit {
			t.Fatalf("%s: %d values, limit %d", in, len(got), limit)
		}
		for i, x := range got {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				t.Fatalf("%s: value %d is %v", in, i, x)
			case keep && !(x >= keepLo && x <= keepHi):
				t.Fatalf("%s: value %d = %v outside the keep window", in, i, x)
			case check && checkFn(x) != nil:
				t.Fatalf("%s: value %d = %v fails the check", in, i, x)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s = %v; the reference reads %v", in, got, want)
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%s = %v; the reference reads %v", in, got, want)
			}
		}
		if refGroup < 0 {
			return
		}
		if len(ids) != len(got) || len(labels) > maxGroups {
			t.Fatalf("%s: %d groups for %d values, %d labels (bound %d)", in, len(ids), len(got), len(labels), maxGroups)
		}
		next := int32(0) // ids are given in first-seen order
		seen := map[string]bool{}
		for i, id := range ids {
			if id < 0 || int(id) >= len(labels) || id > next {
				t.Fatalf("%s: row %d has group %d of %d (next new id %d)", in, i, id, len(labels), next)
			}
			if id == next {
				next++
			}
			if labels[id] != wantLabels[i] {
				t.Fatalf("%s: row %d label %q; the reference reads %q", in, i, labels[id], wantLabels[i])
			}
		}
		for _, l := range labels {
			if seen[l] || l == "" || unprintable(l) != "" {
				t.Fatalf("%s: label %q repeated, empty or unprintable in %q", in, l, labels)
			}
			seen[l] = true
		}
		if int(next) != len(labels) {
			t.Fatalf("%s: %d labels, %d used", in, len(labels), next)
		}
	})
}

// unprintable describes the first character of s that must not reach a
// terminal raw: invalid UTF-8, a C0 control other than newline and tab, DEL
// or a C1 control; "" when there is none.
func unprintable(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
			return fmt.Sprintf("invalid UTF-8 (byte %#02x at %d)", s[i], i)
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return fmt.Sprintf("the control character %U at byte %d", r, i)
		}
	}
	return ""
}

// refLoadColumn is what LoadColumn's and loadGrouped's documentation says,
// written plainly: the values and, when group ≥ 0, each row's label; or the
// 1-based line at fault (0 for a problem of the whole file) and an error.
func refLoadColumn(content string, column, group, maxGroups int, sep string, limit int, check func(float64) error, l fileLayout) ([]float64, []string, int, error) {
	if column < 0 {
		return nil, nil, 0, errors.New("negative column")
	}
	var fields func(line string) []string
	switch {
	case sep == "" || sep == SepWhitespace || sep == " ":
		fields = func(line string) []string {
			return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\v' || r == '\f' })
		}
	case len(sep) == 1 && sep != "\n" && sep != "\r" && sep != "#":
		fields = func(line string) []string {
			fs := strings.Split(line, sep)
			for i := range fs {
				fs[i] = strings.Trim(fs[i], " \t")
			}
			return fs
		}
	default:
		return nil, nil, 0, errors.New("bad separator")
	}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") || content == "" {
		lines = lines[:len(lines)-1]
	}
	// A file with fewer data lines than l.rows is refused, whatever the
	// limit: the data lines of the whole file are counted.
	inFile := 0
	for _, line := range lines {
		if t := strings.TrimLeft(strings.TrimRight(line, "\r"), " \t"); t != "" && t[0] != '#' {
			inFile++
		}
	}
	if l.header && inFile > 0 {
		inFile--
	}
	short := l.rows > 0 && inFile < l.rows
	var out []float64
	var labels []string
	distinct := map[string]bool{}
	header, data := l.header, 0
	for i, line := range lines {
		n := i + 1
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimLeft(line, " \t"); t == "" || t[0] == '#' {
			continue
		}
		if header {
			header = false
			continue
		}
		if l.rows > 0 && data == l.rows {
			break
		}
		data++
		fs := fields(line)
		if column >= len(fs) {
			return nil, nil, n, errors.New("column missing")
		}
		if group >= len(fs) {
			return nil, nil, n, errors.New("group column missing")
		}
		label := ""
		if group >= 0 {
			label = fs[group]
		}
		if l.missing != "" && (fs[column] == l.missing || (group >= 0 && label == l.missing)) {
			continue
		}
		x, err := strconv.ParseFloat(fs[column], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, n, fmt.Errorf("%q: not a finite number", fs[column])
		}
		if group >= 0 && (label == "" || !utf8.ValidString(label) || strings.ContainsFunc(label, func(r rune) bool {
			return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
		})) {
			return nil, nil, n, fmt.Errorf("label %q refused", label)
		}
		if l.keep && !(x >= l.keepLo && x <= l.keepHi) {
			continue
		}
		if check != nil {
			if err := check(x); err != nil {
				return nil, nil, n, err
			}
		}
		if group >= 0 && !distinct[label] {
			if len(distinct) == maxGroups {
				return nil, nil, n, errors.New("too many labels")
			}
			distinct[label] = true
		}
		out = append(out, x)
		labels = append(labels, label)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	if short {
		return nil, nil, 0, errors.New("fewer data lines than rows")
	}
	if len(out) == 0 {
		return nil, nil, 0, errors.New("no data rows")
	}
	return out, labels, 0, nil
}

// TestLoadColumnNoFields: a line of blanks other than spaces and tabs has
// no whitespace-separated field; the error said "line has 0 fields
// (columns 0--1)" (found by FuzzLoadColumn).
func TestLoadColumnNoFields(t *testing.T) {
	p := writeTemp(t, "vt.txt", "1 2\n\v\f\n3 4\n")
	_, err := LoadColumn(p, 0, "")
	if want := p + ":2: column 0 missing: line has no fields"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
