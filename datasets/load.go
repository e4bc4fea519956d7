package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// SepWhitespace is the separator name for files whose fields are separated by
// runs of spaces and tabs (shuttle.tst). The empty separator means the same.
const SepWhitespace = "whitespace"

// maxLine is the longest line LoadColumn accepts.
const maxLine = 16 << 20

// LoadColumn reads the numeric column with 0-based index column from a text
// file and returns its values in file order.
//
// sep is "," for CSV, "" or "whitespace" (or " ") for fields separated by runs
// of spaces and tabs, or any other single character such as ";" or "\t".
// Fields are trimmed of surrounding spaces and tabs; quoted fields are not
// supported. Blank lines and lines whose first non-blank character is '#'
// are skipped (they still count in line numbers); a trailing '\r' (CRLF
// files) is ignored. The file is streamed through bufio, so memory is that
// of the result; lines may be up to 16 MiB long.
//
// Every value must parse with strconv.ParseFloat and be finite. Errors name
// the file and the 1-based line, the column (0-based, as given) and its
// 1-based field number, e.g.
//
//	../shared/data/x.csv:17: column 3 (field 4): cannot parse "abc" as a number
//	../shared/data/x.csv:5: column 10 missing: line has 10 fields (columns 0-9)
//	../shared/data/x.csv: no data rows (empty, or only blank and '#' lines)
//	../shared/data/x.csv: cannot open: no such file or directory
//
// The last wraps the underlying error, so errors.Is(err, fs.ErrNotExist)
// works.
func LoadColumn(path string, column int, sep string) ([]float64, error) {
	return loadColumn(path, column, sep, 0, nil, fileLayout{})
}

// fileLayout describes what a file holds besides numbers.
type fileLayout struct {
	// header skips the first data line (a column header).
	header bool
	// missing is a field value that marks a missing number ("?" in the UCI
	// household power file); such rows are dropped and counted.
	missing string
	// rows, when > 0, reads only the first rows data lines, counting those
	// with missing values (the Voltage recipe of datasets.md §3.2).
	rows int
	// keep, when true, drops values outside [keepLo, keepHi] (they still
	// count towards rows).
	keep           bool
	keepLo, keepHi float64
}

// loadColumn reads at most limit values (all when limit ≤ 0). check, if not
// nil, vets every parsed value; its error is reported with file, line and
// column like a parse error.
func loadColumn(path string, column int, sep string, limit int, check func(float64) error, layout fileLayout) ([]float64, error) {
	if column < 0 {
		return nil, fmt.Errorf("%s: column must be >= 0, got %d", path, column)
	}
	split, err := splitter(sep)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot open: %w", path, err)
	}
	defer f.Close()

	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []float64
	line, dataLines := 0, 0
	skipHeader := layout.header
	for sc.Scan() {
		line++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		t := bytes.TrimLeft(b, " \t")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if skipHeader {
			skipHeader = false
			continue
		}
		if layout.rows > 0 && dataLines == layout.rows {
			break
		}
		dataLines++
		field, nf, ok := split(b, column)
		if !ok {
			if nf == 0 { // only blanks other than spaces and tabs (\v, \f)
				return nil, fmt.Errorf("%s:%d: column %d missing: line has no fields", path, line, column)
			}
			return nil, fmt.Errorf("%s:%d: column %d missing: line has %s (columns 0-%d)", path, line, column, plural(nf, "field"), nf-1)
		}
		if layout.missing != "" && string(field) == layout.missing {
			continue
		}
		s := string(field)
		x, perr := strconv.ParseFloat(s, 64)
		switch {
		case errors.Is(perr, strconv.ErrRange):
			return nil, fmt.Errorf("%s:%d: column %d (field %d): %q is out of the float64 range", path, line, column, column+1, s)
		case perr != nil:
			return nil, fmt.Errorf("%s:%d: column %d (field %d): cannot parse %q as a number", path, line, column, column+1, s)
		case !finite(x):
			return nil, fmt.Errorf("%s:%d: column %d (field %d): %q is not a finite number", path, line, column, column+1, s)
		}
		if layout.keep && !(x >= layout.keepLo && x <= layout.keepHi) {
			continue
		}
		if check != nil {
			if cerr := check(x); cerr != nil {
				return nil, fmt.Errorf("%s:%d: column %d (field %d): %v", path, line, column, column+1, cerr)
			}
		}
		out = append(out, x)
		if limit > 0 && len(out) == limit {
			return out, nil
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", path, line+1, maxLine)
		}
		return nil, fmt.Errorf("%s:%d: read: %w", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no data rows (empty, or only blank and '#' lines)", path)
	}
	return out, nil
}

// splitter returns a function that finds field col of a line: the trimmed
// field and ok = true, or ok = false and the line's field count when the
// line is too short.
func splitter(sep string) (func(line []byte, col int) ([]byte, int, bool), error) {
	switch {
	case sep == "" || sep == SepWhitespace || sep == " ":
		return whitespaceField, nil
	case len(sep) == 1 && sep[0] != '\n' && sep[0] != '\r' && sep[0] != '#':
		c := sep[0]
		return func(line []byte, col int) ([]byte, int, bool) { return sepField(line, col, c) }, nil
	default:
		return nil, fmt.Errorf("separator %q: want \",\", \"whitespace\" (or \"\") or another single character", sep)
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

func whitespaceField(line []byte, col int) ([]byte, int, bool) {
	k := 0 // fields seen
	i := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			return nil, k, false
		}
		j := i
		for j < len(line) && !isBlank(line[j]) {
			j++
		}
		if k == col {
			return line[i:j], k + 1, true
		}
		k++
		i = j
	}
}

func sepField(line []byte, col int, sep byte) ([]byte, int, bool) {
	k := 0
	for {
		j := bytes.IndexByte(line, sep)
		if k == col {
			if j >= 0 {
				line = line[:j]
			}
			return bytes.Trim(line, " \t"), k + 1, true
		}
		k++
		if j < 0 {
			return nil, k, false
		}
		line = line[j+1:]
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
