package harness

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// The spec loader reads outside input (a TOML file a user wrote). Three
// fuzz targets exercise it, all seeded with every shipped spec in runs/:
//
//   - FuzzLoadSpec: LoadSpec never panics; a spec it accepts validates,
//     hashes without panicking, and loading the same bytes again gives the
//     same Spec (deeply equal, NaN equal to NaN) with the same Hash, and
//     never holds two keys that differ only in case (caseTwins); an error is
//     never empty.
//   - FuzzLoadSpecErrorText: an error is printable as it is: no raw control
//     character (C0 other than newline and tab, DEL, C1) and no invalid
//     UTF-8 (binary garbage as a spec once echoed raw control bytes to
//     the terminal).
//   - FuzzLoadSpecErrorStable: loading the same bytes again gives the same
//     error (not another of the spec's problems).
//
// make test runs all three briefly (FuzzLoadSpecErrorStable passes since
// LoadSpec checks the keys in file order before decoding, checkKeys, and
// Validate walks maps in sorted order). Run them with -fuzzminimizetime 0
// (as make test does):
// one call costs about a millisecond (file writes and loads), and the default
// minimisation of every new corpus entry stalls a short run for seconds.
//
// All three apply, besides the raw bytes, structured mutations of the spec
// driven by a second fuzz input (the program; see mutateSpec): the bytes are
// decoded as TOML, values at key paths are replaced by fuzzed strings,
// numbers (NaN, ±Inf, -0, huge, negative), booleans, arrays and tables, keys
// are deleted, misspelt, moved to another table or set from the vocabulary
// of spec keys, tables of arrays duplicated, and the re-encoded text has
// lines duplicated or fuzzed bytes inserted.

// fuzzSpecSeeds adds every runs/*.toml to the corpus, raw and with a few
// mutation programs.
func fuzzSpecSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "runs", "*.toml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no shipped specs in ../runs (%v)", err)
	}
	key := func(k string) byte { return byte(slices.Index(specKeys, k)) }
	str := func(v string) byte { return byte(slices.Index(fuzzStrings, v)) }
	// Programs (see mutateSpec): an opcode, a place, operands.
	progs := [][]byte{
		nil,
		{7, 9, 0},                     // place 9 becomes NaN
		{7, 3, 1, 2, 20, 0},           // place 3 becomes +Inf; a number at 20 negated or NaN
		{4, 40},                       // duplicate a table of an array of tables, or an element
		{3, 6, 3, 12},                 // delete two keys
		{9, 2, key("dims"), 1, 1, 16}, // dims = MaxInt64 in some table
		{0, 5, 0, 0, str("\x1b[31m")}, // a string with an escape sequence
		{11, 0, 0, 5, 5, 8, 1},        // duplicate line 5 of the text; misspell a key (+"s")
		{9, 0, key("keep_lo"), 2, 1, 0, 9, 1, key("normalise"), 0, 0, str("none")},
	}
	for i, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, progs[i%len(progs)])
		if i < len(progs) {
			f.Add(b, []byte(nil))
		}
	}
	f.Add([]byte(goodSpec), []byte{0, 1, 2, 1})
	f.Add([]byte(goodSpec), []byte{7, 0, 13, 2, 0x00, 0x1b})
	f.Add([]byte(goodSpec+externalSpecTail), []byte(nil))
	f.Add([]byte(goodSpec+externalSpecTail), []byte{3, 6, 3, 12})
}

// specFuzzer loads spec bytes from one file in a directory of its own
// (a fuzz worker runs its inputs one at a time).
type specFuzzer struct{ path string }

func newSpecFuzzer(f *testing.F) *specFuzzer {
	return &specFuzzer{path: filepath.Join(f.TempDir(), "fuzz.toml")}
}

func (z *specFuzzer) load(t *testing.T, b []byte) (*Spec, error) {
	t.Helper()
	if err := os.WriteFile(z.path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadSpec(z.path)
}

// specInputs returns the raw bytes and, when the program is not empty and the
// bytes decode as TOML, the mutated spec.
func specInputs(data, prog []byte) [][]byte {
	in := [][]byte{data}
	if m, ok := mutateSpec(data, prog); ok {
		in = append(in, m)
	}
	return in
}

func FuzzLoadSpec(f *testing.F) {
	fuzzSpecSeeds(f)
	z := newSpecFuzzer(f)
	f.Fuzz(func(t *testing.T, data, prog []byte) {
		for _, b := range specInputs(data, prog) {
			checkLoadSpec(t, z, b)
		}
	})
}

func FuzzLoadSpecErrorText(f *testing.F) {
	fuzzSpecSeeds(f)
	z := newSpecFuzzer(f)
	f.Fuzz(func(t *testing.T, data, prog []byte) {
		for _, b := range specInputs(data, prog) {
			if _, err := z.load(t, b); err != nil {
				if bad := unprintable(err.Error()); bad != "" {
					t.Fatalf("LoadSpec(%q): the error holds %s: %q", b, bad, err)
				}
			}
		}
	})
}

func FuzzLoadSpecErrorStable(f *testing.F) {
	fuzzSpecSeeds(f)
	z := newSpecFuzzer(f)
	f.Fuzz(func(t *testing.T, data, prog []byte) {
		for _, b := range specInputs(data, prog) {
			_, err := z.load(t, b)
			if err == nil {
				continue
			}
			_, err2 := z.load(t, b)
			if err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("LoadSpec(%q) twice: error %q, then %v", b, err, err2)
			}
		}
	})
}

func checkLoadSpec(t *testing.T, z *specFuzzer, b []byte) {
	t.Helper()
	s, err := z.load(t, b)
	if err != nil {
		if s != nil {
			t.Errorf("LoadSpec returned a spec and the error %v", err)
		}
		if err.Error() == "" {
			t.Fatalf("LoadSpec(%q): empty error", b)
		}
		return
	}
	if s == nil {
		t.Fatalf("LoadSpec(%q): nil spec and nil error", b)
	}
	if verr := s.Validate(); verr != nil {
		t.Fatalf("LoadSpec(%q) accepted a spec that Validate rejects: %v", b, verr)
	}
	h := s.Hash()
	again, err := z.load(t, b)
	if err != nil {
		t.Fatalf("LoadSpec(%q): accepted once, then %v", b, err)
	}
	same := equalNaN(reflect.ValueOf(s), reflect.ValueOf(again))
	if same && caseTwins(b) != "" {
		t.Fatalf("LoadSpec(%q) accepted keys that differ only in case: %s", b, caseTwins(b))
	}
	if h2 := again.Hash(); h2 != h {
		t.Fatalf("LoadSpec(%q): Hash %s, then %s", b, h, h2)
	}
	if !same {
		t.Fatalf("LoadSpec(%q) twice: %+v, then %+v", b, s, again)
	}
}

// caseTwins returns two keys of one table of the TOML text b that differ
// only in case, or "". The TOML decoder matches keys to fields ignoring
// case, so a spec holding both trials = 2 and Trials = 7 was accepted with
// either value, by map order (found by FuzzLoadSpec); LoadSpec now refuses
// a key whose case differs from its field's (checkKeys).
func caseTwins(b []byte) string {
	var m map[string]any
	if _, err := toml.Decode(string(b), &m); err != nil {
		return ""
	}
	var locs []loc
	var tables []map[string]any
	walk(m, &locs, &tables)
	for _, t := range tables {
		seen := map[string]string{}
		for k := range t {
			if o, ok := seen[strings.ToLower(k)]; ok {
				return fmt.Sprintf("%q and %q", o, k)
			}
			seen[strings.ToLower(k)] = k
		}
	}
	return ""
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

// equalNaN is reflect.DeepEqual for the plain values a Spec holds, with
// NaN equal to NaN (a claim's paper_min may be NaN: compare validates it).
func equalNaN(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	// Read by kind, not through Interface, which an unexported field
	// (Spec's text) refuses.
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalNaN(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !equalNaN(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalNaN(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			v := b.MapIndex(k)
			if !v.IsValid() || !equalNaN(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
}

// progReader hands out the bytes of a mutation program; past its end it
// returns zeros and done reports true.
type progReader struct {
	p []byte
	i int
}

func (r *progReader) done() bool { return r.i >= len(r.p) }

func (r *progReader) byte() byte {
	if r.i >= len(r.p) {
		r.i++
		return 0
	}
	r.i++
	return r.p[r.i-1]
}

func (r *progReader) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.byte()) % n
}

// bytes returns a fuzzed byte string: a length byte, then that many bytes.
func (r *progReader) bytes() []byte {
	n := int(r.byte()) % 24
	end := min(r.i+n, len(r.p))
	if r.i >= end {
		r.i += n
		return nil
	}
	b := r.p[r.i:end]
	r.i += n
	return b
}

func (r *progReader) u64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = r.byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

var (
	fuzzInts = []int64{0, 1, -1, 2, 3, 100, 1 << 16, 1<<16 + 1, 1 << 31, 1<<53 + 1,
		math.MaxInt32, math.MinInt32, 1e6, 1e7, 1e9, math.MinInt64, math.MaxInt64}
	fuzzFloats = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0,
		5e-324, math.SmallestNonzeroFloat64, 1e308, math.MaxFloat64, -1, 0.5, 1, 2, -0.5, 1e-300}
	fuzzStrings = []string{"", " ", "*", "mse", "rmse", "abs", "toy", "mean", "beta", "beta-sin",
		"gaussian", "uniform", "file", "fixed", "minmax", "none", ",", "whitespace", "\t",
		"#", "\n", "a=b", "a;b", "..", "/", `\`, "é", "\x1b[31m", "\x00", "\xff", "magic04.data",
		"eps", "n", "method", "dataset", "svg", "pdf", "pm", "duchi"}
	// specKeys is the vocabulary of keys a spec may hold, at any level.
	specKeys = []string{"name", "title", "description", "kind", "seed", "trials", "metrics",
		"axes", "method", "eps", "n", "params", "datasets", "quick", "figures", "claims",
		"source", "a", "b", "mu", "sigma", "lo", "hi", "amplitude", "frequency", "path",
		"column", "sep", "header", "missing", "rows", "keep_lo", "keep_hi", "normalise",
		"clip", "substitute", "dims", "metric", "x", "series", "panel", "filter", "logx",
		"logy", "theory", "band", "lines_only", "xlabel", "ylabel", "columns", "formats",
		"reference", "label", "y", "against", "against_best", "paper_min", "paper_max",
		"where", "note", "mechanisms", "command", "timeout", "cells", "exclude", "timing"}
)

// value returns a fuzzed TOML value of a kind the program chooses.
func (r *progReader) value(depth int) any {
	switch r.intn(8) {
	case 0:
		if r.intn(2) == 0 {
			return fuzzStrings[r.intn(len(fuzzStrings))]
		}
		return string(r.bytes())
	case 1:
		if r.intn(4) == 0 {
			return int64(r.u64())
		}
		return fuzzInts[r.intn(len(fuzzInts))]
	case 2:
		if r.intn(4) == 0 {
			return math.Float64frombits(r.u64())
		}
		return fuzzFloats[r.intn(len(fuzzFloats))]
	case 3:
		return r.intn(2) == 1
	case 4, 5:
		n := r.intn(4)
		a := make([]any, n)
		for i := range a {
			if depth > 1 {
				a[i] = fuzzStrings[r.intn(len(fuzzStrings))]
			} else {
				a[i] = r.value(depth + 1)
			}
		}
		return a
	case 6:
		m := map[string]any{}
		if depth < 2 && r.intn(2) == 0 {
			m[specKeys[r.intn(len(specKeys))]] = r.value(depth + 1)
		}
		return m
	default:
		return []map[string]any{{specKeys[r.intn(len(specKeys))]: r.value(depth + 1)}}
	}
}

// tweak changes a number: NaN, ±Inf, negated, huge, off by one, or text.
func (r *progReader) tweak(v any) any {
	switch x := v.(type) {
	case int64:
		switch r.intn(5) {
		case 0:
			return -x
		case 1:
			return x + 1
		case 2:
			return x - 1
		case 3:
			return float64(x)
		default:
			return fmt.Sprint(x)
		}
	case float64:
		switch r.intn(6) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*r.intn(2))
		case 2:
			return -x
		case 3:
			return x * 1e300
		case 4:
			return int64(x)
		default:
			return fmt.Sprint(x)
		}
	case string:
		return x + string(r.bytes())
	case []any:
		if len(x) > 0 {
			x = slices.Clone(x)
			i := r.intn(len(x))
			x[i] = r.tweak(x[i])
			return x
		}
	}
	return r.value(1)
}

// loc is one place in a decoded spec: a key of a table, or an element of an
// array.
type loc struct {
	table map[string]any // the key's table, or nil for an array element
	key   string
	arr   []any // the element's array (its slots are written in place)
	idx   int
}

func (l loc) get() any {
	if l.table != nil {
		return l.table[l.key]
	}
	return l.arr[l.idx]
}

func (l loc) set(v any) {
	if l.table != nil {
		l.table[l.key] = v
	} else {
		l.arr[l.idx] = v
	}
}

// walk lists the places of a decoded spec and its tables, in a
// deterministic order (sorted keys).
func walk(m map[string]any, locs *[]loc, tables *[]map[string]any) {
	*tables = append(*tables, m)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		*locs = append(*locs, loc{table: m, key: k})
		walkValue(m[k], locs, tables)
	}
}

func walkValue(v any, locs *[]loc, tables *[]map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		walk(x, locs, tables)
	case []map[string]any:
		for _, t := range x {
			walk(t, locs, tables)
		}
	case []any:
		for i := range x {
			*locs = append(*locs, loc{arr: x, idx: i})
			walkValue(x[i], locs, tables)
		}
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = deepCopy(e)
		}
		return c
	case []map[string]any:
		c := make([]map[string]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e).(map[string]any)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}

// mutateSpec decodes data as TOML and applies the program's mutations, at
// most 12, each an opcode byte and its operands; it returns the re-encoded
// text, and false when the program is empty or data is not TOML.
func mutateSpec(data, prog []byte) ([]byte, bool) {
	if len(prog) == 0 {
		return nil, false
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, false
	}
	r := &progReader{p: prog}
	var textOps [][2]int // line edits, applied after encoding
	var inserts [][]byte
	for step := 0; step < 12 && !r.done(); step++ {
		var locs []loc
		var tables []map[string]any
		walk(m, &locs, &tables)
		op := r.intn(12)
		if len(locs) == 0 && op < 9 {
			op = 9
		}
		var l loc
		if len(locs) > 0 {
			l = locs[r.intn(len(locs))]
		}
		switch op {
		case 0, 1: // replace a value
			l.set(r.value(0))
		case 2: // change a number (NaN, Inf, negative, huge) or extend a string
			l.set(r.tweak(l.get()))
		case 3: // delete a key, or empty an array element
			if l.table != nil {
				delete(l.table, l.key)
			} else {
				l.set(r.value(1))
			}
		case 4: // duplicate a table of an array of tables, or an array element
			switch x := l.get().(type) {
			case []map[string]any:
				if len(x) > 0 {
					l.set(append(x, deepCopy(x[r.intn(len(x))]).(map[string]any)))
				}
			case []any:
				if len(x) > 0 {
					l.set(append(x, deepCopy(x[r.intn(len(x))])))
				}
			default:
				if l.table != nil { // the key again, misspelt
					l.table[l.key+string(r.bytes())+"_"] = deepCopy(x)
				}
			}
		case 5: // misspell a key
			if l.table != nil {
				v := l.table[l.key]
				delete(l.table, l.key)
				k := l.key
				switch r.intn(4) {
				case 0:
					k = k[:max(len(k)-1, 0)]
				case 1:
					k += "s"
				case 2:
					k = strings.ToUpper(k)
				default:
					k = string(r.bytes())
				}
				l.table[k] = v
			}
		case 6: // move a key to another table
			if l.table != nil {
				t := tables[r.intn(len(tables))]
				v := l.table[l.key]
				delete(l.table, l.key)
				t[l.key] = v
			}
		case 7: // a number at the place becomes NaN, ±Inf, -0 or huge
			l.set(fuzzFloats[r.intn(6)])
		case 8: // wrap the value in an array, or unwrap an array
			if x, ok := l.get().([]any); ok && len(x) > 0 {
				l.set(x[0])
			} else {
				l.set([]any{l.get()})
			}
		case 9, 10: // set a key of the spec vocabulary in some table
			t := tables[r.intn(len(tables))]
			t[specKeys[r.intn(len(specKeys))]] = r.value(0)
		default: // text: duplicate a line, or insert fuzzed bytes at one
			if r.intn(2) == 0 {
				textOps = append(textOps, [2]int{r.intn(256), -1})
			} else {
				textOps = append(textOps, [2]int{r.intn(256), len(inserts)})
				inserts = append(inserts, r.bytes())
			}
		}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(m); err != nil {
		return nil, false
	}
	out := buf.Bytes()
	for _, e := range textOps {
		lines := bytes.SplitAfter(out, []byte("\n"))
		i := e[0] % len(lines)
		add := lines[i]
		if e[1] >= 0 {
			add = append(slices.Clone(inserts[e[1]]), '\n')
		}
		lines = slices.Insert(lines, i, add)
		out = bytes.Join(lines, nil)
	}
	return out, true
}

// TestMutateSpec checks that the mutator changes the shipped specs and that
// its output is mostly still TOML, so that the structured fuzzing reaches
// past the parser.
func TestMutateSpec(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "runs", "*.toml"))
	if len(files) == 0 {
		t.Fatal("no shipped specs")
	}
	changed, parsed, loaded := 0, 0, 0
	dir := t.TempDir()
	for i, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 10 {
			prog := []byte{byte(i), byte(j), byte(i * j), byte(3 * j), byte(i + j), 0x1b, 'x'}
			out, ok := mutateSpec(data, prog)
			if !ok {
				t.Fatalf("%s: shipped spec not decoded", p)
			}
			var m map[string]any
			var orig map[string]any
			toml.Decode(string(data), &orig)
			if _, err := toml.Decode(string(out), &m); err == nil {
				parsed++
				if !reflect.DeepEqual(m, orig) {
					changed++
				}
			}
			q := filepath.Join(dir, "m.toml")
			os.WriteFile(q, out, 0o644)
			if _, err := LoadSpec(q); err == nil {
				loaded++
			}
		}
	}
	total := 10 * len(files)
	t.Logf("%d mutants: %d parse as TOML, %d of them changed, %d load as specs", total, parsed, changed, loaded)
	if parsed < total/3 || changed < parsed/2 {
		t.Errorf("the mutator is too destructive or too timid: %d of %d parse, %d changed", parsed, total, changed)
	}
}
