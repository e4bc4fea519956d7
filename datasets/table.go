package datasets

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Table is a multi-column dataset for training models (Zhao et al.'s
// LDP-FedSGD, Baek & Chung's federated learning): rows of P features and a
// response. Features are stored row-major in X; numeric ones come first
// (Numeric of them), categorical attributes after them, binarised
// (Binarise). Y is the response: a class index 0…len(Classes)−1 for a
// classification table, a number for a regression one, nil when the table
// has none (WISDM, used for mean estimation only).
type Table struct {
	Name    string
	X       []float64
	P       int
	Numeric int
	// Categorical is the number of categorical attributes behind the
	// binarised columns (Zhao et al. splits the budget by attributes, not
	// columns, following Wang et al.: Section VII-A).
	Categorical int
	Y           []float64
	// Classes names the classes of a classification table in index order;
	// nil for a regression table.
	Classes []string
	// Source says where the rows came from and what was done to them.
	Source string
	// Substitute marks a stand-in for data the paper used but that is not
	// available (IPUMS).
	Substitute bool
	// Rejected counts input records that did not parse (WISDM's raw file
	// has malformed lines), skipped rather than fatal.
	Rejected int
}

// Rows returns the number of rows.
func (t *Table) Rows() int {
	if t.P == 0 {
		return 0
	}
	return len(t.X) / t.P
}

// Row returns row i of X (a sub-slice, not a copy).
func (t *Table) Row(i int) []float64 { return t.X[i*t.P : (i+1)*t.P : (i+1)*t.P] }

// Binarise writes the k − 1 binary coordinates of level l (0 ≤ l < k) of
// a categorical attribute to dst[:k−1] (Zhao et al., Section VII-B): level
// l < k − 1 puts +1 on coordinate l and −1 on the others; the last level is
// −1 everywhere.
func Binarise(dst []float64, l, k int) {
	for j := range k - 1 {
		dst[j] = -1
	}
	if l < k-1 {
		dst[l] = 1
	}
}

// MinMaxColumns maps every column j < cols of the row-major X (p columns)
// onto [−1, 1] by its own min and max, 2(x − m)/(M − m) − 1 (Zhao et al.'s
// "normalise the domain of each numeric attribute to [−1, 1]", Section VII,
// min–max by default); a constant column becomes 0. It returns the
// (min, max) of each column, for the record.
func MinMaxColumns(X []float64, p, cols int) [][2]float64 {
	n := len(X) / p
	out := make([][2]float64, cols)
	for j := range cols {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			v := X[i*p+j]
			lo, hi = min(lo, v), max(hi, v)
		}
		out[j] = [2]float64{lo, hi}
		for i := range n {
			if hi > lo {
				X[i*p+j] = 2*(X[i*p+j]-lo)/(hi-lo) - 1
			} else {
				X[i*p+j] = 0
			}
		}
	}
	return out
}

// TableNames lists the tables LoadTable knows, in a fixed order.
func TableNames() []string {
	return []string{"gamma", "shuttle", "vehicle", "wisdm", "ipums-br-standin", "ipums-mx-standin"}
}

// TableFiles returns the data files a table is read from (none for a
// stand-in).
func TableFiles(name string) []string {
	switch name {
	case "gamma":
		return []string{"magic04.data"}
	case "shuttle":
		return []string{"shuttle.tst"}
	case "vehicle":
		return []string{"vehicle_combined_scale.bz2", "vehicle_combined_scale.t.bz2"}
	case "wisdm":
		return []string{"WISDM_ar_latest.tar.gz"}
	}
	return nil
}

// LoadTable builds the table named name (TableNames), raw (not
// normalised: callers standardise or min–max as their paper does):
//
//	gamma             UCI MAGIC Gamma: 10 features, classes g → 0, h → 1 (19,020 rows)
//	shuttle           UCI Statlog Shuttle test split: 9 features, classes 1…7 → 0…6 (14,500 rows)
//	vehicle           SensIT Vehicle (LIBSVM combined_scale + .t): 100 features on [−1, 1],
//	                  the multiclass label mapped to ±1: class 1 → +1, classes 2 and 3 → −1
//	                  (one class against the rest; Zhao et al. uses a binary label, Section VII-B)
//	wisdm             WISDM v1.1 raw: x, y, z, then user (36 levels) and activity (6)
//	                  binarised: 43 columns, no response; malformed records counted in Rejected
//	ipums-br-standin  synthetic stand-in for IPUMS Brazil (see IPUMSStandin)
//	ipums-mx-standin  synthetic stand-in for IPUMS Mexico
//
// A missing file gives an error wrapping ErrNotFound that names it and
// `make data`.
func LoadTable(name string) (*Table, error) {
	switch name {
	case "gamma":
		return loadUCIClass(name, "magic04.data", ',', 10, func(s string) (int, string, bool) {
			switch s {
			case "g":
				return 0, "g", true
			case "h":
				return 1, "h", true
			}
			return 0, "", false
		}, []string{"g", "h"})
	case "shuttle":
		return loadUCIClass(name, "shuttle.tst", ' ', 9, func(s string) (int, string, bool) {
			c, err := strconv.Atoi(s)
			if err != nil || c < 1 || c > 7 {
				return 0, "", false
			}
			return c - 1, s, true
		}, []string{"1", "2", "3", "4", "5", "6", "7"})
	case "vehicle":
		return loadVehicle()
	case "wisdm":
		path, err := Find("WISDM_ar_latest.tar.gz")
		if err != nil {
			return nil, fmt.Errorf("table wisdm: %w", err)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ReadWISDMArchive(f, path)
	case "ipums-br-standin":
		return IPUMSStandin("br", DefaultStandinRows, 2003)
	case "ipums-mx-standin":
		return IPUMSStandin("mx", DefaultStandinRows, 2004)
	}
	return nil, fmt.Errorf("unknown table %q (valid: %s)", name, strings.Join(TableNames(), ", "))
}

// loadUCIClass reads a UCI file of p numeric features followed by a class
// field (sep ',' or ' ' for runs of blanks).
func loadUCIClass(name, file string, sep byte, p int, class func(string) (int, string, bool), classes []string) (*Table, error) {
	path, err := Find(file)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", name, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name, P: p, Numeric: p, Classes: classes}
	for ln, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		var fields []string
		if sep == ' ' {
			fields = strings.Fields(s)
		} else {
			fields = strings.Split(s, string(sep))
		}
		if len(fields) != p+1 {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, ln+1, len(fields), p+1)
		}
		for _, f := range fields[:p] {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: feature %q is not a finite number", path, ln+1, f)
			}
			t.X = append(t.X, v)
		}
		c, _, ok := class(strings.TrimSpace(fields[p]))
		if !ok {
			return nil, fmt.Errorf("%s:%d: class %q unknown", path, ln+1, fields[p])
		}
		t.Y = append(t.Y, float64(c))
	}
	t.Source = fmt.Sprintf("file %s, %d rows, %d features, classes %s", path, t.Rows(), p, strings.Join(classes, "/"))
	return t, nil
}

// VehiclePositive is the SensIT Vehicle class mapped to +1 (the others to
// −1); Zhao et al. does not say which (E3.17).
const VehiclePositive = 1

func loadVehicle() (*Table, error) {
	t := &Table{Name: "vehicle", P: 100, Numeric: 100, Classes: []string{"-1", "+1"}}
	var paths []string
	for _, file := range TableFiles("vehicle") {
		path, err := Find(file)
		if err != nil {
			return nil, fmt.Errorf("table vehicle: %w", err)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		err = ReadLIBSVM(bzip2.NewReader(f), 100, t, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	// ReadLIBSVM stores the raw label; map it to ±1, as class index 0/1.
	for i, y := range t.Y {
		t.Y[i] = 0
		if int(y) == VehiclePositive {
			t.Y[i] = 1
		}
	}
	t.Source = fmt.Sprintf("files %s, %d rows, 100 features; label %d → +1, others → −1", strings.Join(paths, " + "), t.Rows(), VehiclePositive)
	return t, nil
}

// ReadLIBSVM appends the examples of a LIBSVM sparse text stream
// ("label index:value …", 1-based indices, absent features 0) with p
// features to t.X and their raw labels to t.Y; where names the stream in
// errors.
func ReadLIBSVM(r io.Reader, p int, t *Table, where string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	ln := 0
	for sc.Scan() {
		ln++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		y, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return fmt.Errorf("%s:%d: label %q", where, ln, fields[0])
		}
		row := make([]float64, p)
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, ":")
			j, err1 := strconv.Atoi(k)
			x, err2 := strconv.ParseFloat(v, 64)
			if !ok || err1 != nil || err2 != nil || j < 1 || j > p || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s:%d: feature %q (want index:value, 1 ≤ index ≤ %d)", where, ln, f, p)
			}
			row[j-1] = x
		}
		t.X = append(t.X, row...)
		t.Y = append(t.Y, y)
	}
	return sc.Err()
}

// ReadWISDMArchive reads WISDM_ar_v1.1_raw.txt from the gzipped tar
// archive r (WISDM_ar_latest.tar.gz) with ReadWISDM.
func ReadWISDMArchive(r io.Reader, where string) (*Table, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: no WISDM_ar_v1.1_raw.txt in the archive", where)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if strings.HasSuffix(h.Name, "WISDM_ar_v1.1_raw.txt") {
			return ReadWISDM(tr, where+":"+h.Name)
		}
	}
}

// WISDMActivities are the six activities of WISDM v1.1, in the order of
// their binarised coordinates (the last is all −1).
var WISDMActivities = []string{"Walking", "Jogging", "Upstairs", "Downstairs", "Sitting", "Standing"}

// ReadWISDM parses WISDM v1.1's raw records, "user,activity,timestamp,x,y,z;"
// (several may share a line, a line may lack its ';'), leniently: a record
// that does not have six fields, a user outside 1…36, an unknown activity
// or a non-finite acceleration is counted in Rejected and skipped. The
// table has x, y, z (raw, m/s²·10/g as recorded) then user (36 levels) and
// activity (6) binarised: 3 + 35 + 5 = 43 columns
// (Zhao et al., Section VII-B; E3.16); the timestamp is dropped.
func ReadWISDM(r io.Reader, where string) (*Table, error) {
	const users = 36
	t := &Table{Name: "wisdm", P: 3 + users - 1 + len(WISDMActivities) - 1, Numeric: 3, Categorical: 2}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	row := make([]float64, t.P)
	for _, rec := range strings.FieldsFunc(string(data), func(c rune) bool { return c == ';' || c == '\n' || c == '\r' }) {
		rec = strings.TrimSpace(rec)
		if rec == "" {
			continue
		}
		f := strings.Split(rec, ",")
		if len(f) != 6 {
			t.Rejected++
			continue
		}
		u, err := strconv.Atoi(strings.TrimSpace(f[0]))
		a := slices.Index(WISDMActivities, strings.TrimSpace(f[1]))
		if err != nil || u < 1 || u > users || a < 0 {
			t.Rejected++
			continue
		}
		ok := true
		for j := range 3 {
			v, err := strconv.ParseFloat(strings.TrimSpace(f[3+j]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				ok = false
				break
			}
			row[j] = v
		}
		if !ok {
			t.Rejected++
			continue
		}
		Binarise(row[3:3+users-1], u-1, users)
		Binarise(row[3+users-1:], a, len(WISDMActivities))
		t.X = append(t.X, row...)
	}
	if t.Rows() == 0 {
		return nil, fmt.Errorf("%s: no valid WISDM record (%d rejected)", where, t.Rejected)
	}
	t.Source = fmt.Sprintf("file %s, %d records, %d rejected (malformed)", where, t.Rows(), t.Rejected)
	return t, nil
}
