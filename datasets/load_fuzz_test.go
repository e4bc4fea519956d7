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
// and every file dataset's Build) arbitrary file contents, columns,
// separators and layouts (header, missing marker, rows limit, keep window,
// a value limit and a value check as Build's fixed range is), and checks:
//
//   - it never panics;
//   - what it accepts is at least one value, every one finite, no more than
//     the limit, inside the keep window and passing the check;
//   - an error starts with the file name, and names the line (file:line:)
//     when a line is at fault; the file's bytes appear in it only quoted
//     (no raw control character or invalid UTF-8);
//   - values and errors agree with refLoadColumn, a plain re-implementation
//     of LoadColumn's documented rules (strings.Split over whole lines): the
//     same values, or an error at the same line.
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
	} {
		f.Add([]byte(s.content), s.column, s.sep, s.header, s.missing, s.rows, s.limit,
			s.keep, s.keepLo, s.keepHi, s.check, s.checkLo, s.checkHi)
	}
	path := filepath.Join(f.TempDir(), "data.csv")
	f.Fuzz(func(t *testing.T, content []byte, column int, sep string, header bool, missing string,
		rows, limit int, keep bool, keepLo, keepHi float64, check bool, checkLo, checkHi float64) {
		if column > 64 {
			column %= 64
		}
		if column < -1 {
			column = -1
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
		got, err := loadColumn(path, column, sep, limit, checkFn, layout)
		want, wantLine, wantErr := refLoadColumn(string(content), column, sep, limit, checkFn, layout)
		in := fmt.Sprintf("loadColumn(%q, column %d, sep %q, limit %d, check %v, %+v)", content, column, sep, limit, check, layout)

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

// refLoadColumn is what LoadColumn's documentation says, written plainly:
// the values, or the 1-based line at fault (0 for a problem of the whole
// file) and an error.
func refLoadColumn(content string, column int, sep string, limit int, check func(float64) error, l fileLayout) ([]float64, int, error) {
	if column < 0 {
		return nil, 0, errors.New("negative column")
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
		return nil, 0, errors.New("bad separator")
	}
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") || content == "" {
		lines = lines[:len(lines)-1]
	}
	var out []float64
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
			return nil, n, errors.New("column missing")
		}
		if l.missing != "" && fs[column] == l.missing {
			continue
		}
		x, err := strconv.ParseFloat(fs[column], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, n, fmt.Errorf("%q: not a finite number", fs[column])
		}
		if l.keep && !(x >= l.keepLo && x <= l.keepHi) {
			continue
		}
		if check != nil {
			if err := check(x); err != nil {
				return nil, n, err
			}
		}
		out = append(out, x)
		if limit > 0 && len(out) == limit {
			return out, 0, nil
		}
	}
	if len(out) == 0 {
		return nil, 0, errors.New("no data rows")
	}
	return out, 0, nil
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
