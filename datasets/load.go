package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"
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

// A fileRead is what a load needs besides the layout, and what it found:
// the digest cache of the run and where the file was found, in; the
// file's provenance, out.
type fileRead struct {
	digests *FileDigests // nil: hash this read, cache nothing
	found   string
	prov    FileProvenance
}

// fileLayout describes what a file holds besides numbers.
type fileLayout struct {
	// header skips the first data line (a column header).
	header bool
	// missing is a field value that marks a missing number ("?" in the UCI
	// household power file); such rows are dropped and counted.
	missing string
	// rows, when > 0, reads only the first rows data lines, counting those
	// with missing values (the Voltage recipe: Baek & Chung's 1,044,506
	// samples are presumably what remains of the file's first 1,048,575
	// rows, a spreadsheet's limit, once the missing ones are dropped). A
	// file with fewer data lines is an error, whatever the limit: a quick
	// run reads fewer values, but the file must hold what the spec says.
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
	return loadRows(path, column, sep, limit, check, layout, nil, nil)
}

// groupSink collects the group label of every row loadRows keeps: the
// trimmed field of column, interned in first-seen order (ids index labels).
type groupSink struct {
	column int
	// max is the most distinct labels accepted (MaxGroups in Build).
	max    int
	ids    map[string]int32
	labels []string
	rows   []int32
}

// loadGrouped reads every row of the file (no limit: the groups of a
// dataset are the labels of all its rows, whatever prefix is used later)
// with the value of column and the label of groupColumn. rows[i] indexes
// labels, which are in first-seen order. On top of loadColumn's rules, per
// data line and in this order: the group field must exist; a row whose
// value or group field equals layout.missing is dropped; a label must be
// non-empty, valid UTF-8 and free of control characters; past maxGroups
// distinct labels the file is refused (a continuous column named as the
// group column would otherwise make a group per user).
func loadGrouped(path string, column, groupColumn int, sep string, check func(float64) error, layout fileLayout, maxGroups int) (values []float64, rows []int32, labels []string, err error) {
	return loadGroupedFrom(path, column, groupColumn, sep, check, layout, maxGroups, nil)
}

// loadGroupedFrom is loadGrouped with the run's digests and the file's
// provenance (rd, may be nil).
func loadGroupedFrom(path string, column, groupColumn int, sep string, check func(float64) error, layout fileLayout, maxGroups int, rd *fileRead) (values []float64, rows []int32, labels []string, err error) {
	if groupColumn < 0 {
		return nil, nil, nil, fmt.Errorf("%s: group column must be >= 0, got %d", path, groupColumn)
	}
	gs := &groupSink{column: groupColumn, max: maxGroups, ids: make(map[string]int32)}
	values, err = loadRows(path, column, sep, 0, check, layout, gs, rd)
	if err != nil {
		return nil, nil, nil, err
	}
	return values, gs.rows, gs.labels, nil
}

// loadRows is loadColumn, and with gs not nil also the group labels; rd
// (nil: none) gives the run's digest cache and receives the provenance.
//
// The file is read to its end whatever the limit, its bytes hashed on the
// way (io.TeeReader under the scanner: one pass), unless rd's cache holds
// the file's digest already: the provenance names the whole file, and a
// file with fewer data lines than layout.rows is refused at any limit.
// Past the limit the lines are only counted, not parsed.
func loadRows(path string, column int, sep string, limit int, check func(float64) error, layout fileLayout, gs *groupSink, rd *fileRead) ([]float64, error) {
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
	if rd == nil {
		rd = &fileRead{}
	}
	key, keyed := digestKeyOf(path, f)
	cached, hit := fileDigest{}, false
	if keyed {
		cached, hit = rd.digests.lookup(key)
	}
	var in io.Reader = f
	h := sha256.New()
	var size countWriter
	if !hit {
		in = io.TeeReader(f, io.MultiWriter(h, &size))
	}

	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []float64
	line, dataLines := 0, 0
	// content counts the lines that are neither blank nor comments, the
	// header included (what fileDigest caches).
	content, missing, filtered := 0, 0, 0
	skipHeader := layout.header
	for sc.Scan() {
		line++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		t := bytes.TrimLeft(b, " \t")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		content++
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
		var label []byte
		if gs != nil {
			var gnf int
			label, gnf, ok = split(b, gs.column)
			if !ok {
				if gnf == 0 {
					return nil, fmt.Errorf("%s:%d: group column %d missing: line has no fields", path, line, gs.column)
				}
				return nil, fmt.Errorf("%s:%d: group column %d missing: line has %s (columns 0-%d)", path, line, gs.column, plural(gnf, "field"), gnf-1)
			}
		}
		if layout.missing != "" && (string(field) == layout.missing || (gs != nil && string(label) == layout.missing)) {
			missing++
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
		if gs != nil {
			if why := badLabel(label); why != "" {
				return nil, fmt.Errorf("%s:%d: group column %d (field %d): label %q %s", path, line, gs.column, gs.column+1, label, why)
			}
		}
		if layout.keep && !(x >= layout.keepLo && x <= layout.keepHi) {
			filtered++
			continue
		}
		if check != nil {
			if cerr := check(x); cerr != nil {
				return nil, fmt.Errorf("%s:%d: column %d (field %d): %v", path, line, column, column+1, cerr)
			}
		}
		if gs != nil {
			id, seen := gs.ids[string(label)]
			if !seen {
				if len(gs.labels) == gs.max {
					return nil, fmt.Errorf("%s:%d: group column %d (field %d): more than %d distinct labels; is it a class column?", path, line, gs.column, gs.column+1, gs.max)
				}
				id = int32(len(gs.labels))
				gs.ids[string(label)] = id
				gs.labels = append(gs.labels, string(label))
			}
			gs.rows = append(gs.rows, id)
		}
		out = append(out, x)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	if !hit && sc.Err() == nil {
		// The rest of the file: counted and hashed, not parsed. (Not
		// after an error: a Scanner then hands out what it buffered.)
		for sc.Scan() {
			line++
			t := bytes.TrimLeft(bytes.TrimRight(sc.Bytes(), "\r"), " \t")
			if len(t) > 0 && t[0] != '#' {
				content++
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", path, line+1, maxLine)
		}
		return nil, fmt.Errorf("%s:%d: read: %w", path, line+1, err)
	}
	if hit {
		content = cached.content
	} else {
		cached = fileDigest{sum: hex.EncodeToString(h.Sum(nil)), bytes: size.n, content: content}
		if keyed {
			rd.digests.store(key, cached)
		}
	}
	inFile := content
	if layout.header && inFile > 0 {
		inFile-- // the header line
	}
	if layout.rows > 0 && inFile < layout.rows {
		return nil, fmt.Errorf("%s: holds %s, fewer than the %d the spec reads (key rows): cut short, or another file of that name?", path, plural(inFile, "data row"), layout.rows)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no data rows (empty, or only blank and '#' lines)", path)
	}
	rd.prov = FileProvenance{
		File: filepath.Base(path), Found: rd.found, SHA256: cached.sum, Bytes: cached.bytes,
		RowsInFile: inFile, RowsRead: dataLines, Missing: missing, Filtered: filtered, Used: len(out),
	}
	return out, nil
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

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

// badLabel says why a group label is refused ("is empty", "holds a control
// character", "is not valid UTF-8"), or "" if it is fine: labels name groups
// in result rows and figures.
func badLabel(b []byte) string {
	switch {
	case len(b) == 0:
		return "is empty"
	case !utf8.Valid(b):
		return "is not valid UTF-8"
	case bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }):
		return "holds a control character"
	}
	return ""
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
