package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A finished rows.csv or summary.csv ends with an end line, "# end
// records=N", N the number of records above it. A file cut at a line
// boundary (a full disk, a copy interrupted, a kill during a non-atomic
// write) is otherwise a valid CSV file with cells missing; the end line is
// how a reader knows the file is whole. CSV readers skip it as a comment.
const endPrefix = "# end records="

// ErrIncomplete says that a results file has no end line, or one that does
// not match its records: it was cut short, or written by an ldpbench older
// than the end line.
var ErrIncomplete = errors.New("incomplete: no end line matching its records (cut short, or written by an earlier ldpbench)")

// WriteEnd writes the end line of a file of n records.
func WriteEnd(w io.Writer, n int) error {
	_, err := fmt.Fprintf(w, "%s%d\n", endPrefix, n)
	return err
}

// endRecords returns the N of the file's end line (its last line, which
// must end in a newline).
func endRecords(raw []byte) (int, bool) {
	if !bytes.HasSuffix(raw, []byte("\n")) {
		return 0, false
	}
	body := raw[:len(raw)-1]
	last := string(body[bytes.LastIndexByte(body, '\n')+1:])
	s, ok := strings.CutPrefix(last, endPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// readCompleteFile reads the records of a finished file: its end line must
// be there and count them. Errors name the file.
func readCompleteFile[T any](path string) ([]T, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	want, ok := endRecords(raw)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrIncomplete)
	}
	out, err := readCSV[T](bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) != want {
		return nil, fmt.Errorf("%s: the end line counts %d records, the file holds %d: %w", path, want, len(out), ErrIncomplete)
	}
	return out, nil
}

// Complete reports whether the file at path ends with an end line (it does
// not count the records: readers do).
func Complete(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	const tail = 128
	off := max(0, st.Size()-tail)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return false, err
	}
	if off > 0 {
		// The end line is shorter than the tail read; start at a line.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	_, ok := endRecords(buf)
	return ok, nil
}
