package experiment

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParamType is the type of a parameter's value.
type ParamType int

const (
	// String is free text, checked by the kind (a list of services, a
	// mechanism name, a choice with a numeric alternative).
	String ParamType = iota
	// Int is an integer in [Min, Max].
	Int
	// Float is a finite number in [Min, Max], or in (Min, Max] with
	// OpenMin.
	Float
	// Bool is true or false (as strconv.ParseBool reads them).
	Bool
	// Enum is one of Values.
	Enum
)

// Param declares one key of the spec's axes.params that a kind accepts.
// Build it with StringParam, IntParam, FloatParam, PositiveParam, BoolParam
// or EnumParam.
type Param struct {
	Key      string
	Type     ParamType
	Min, Max float64  // Int and Float: the inclusive bounds
	OpenMin  bool     // Float: Min itself is excluded
	Values   []string // Enum: the accepted values
	// Doc says what the parameter does, its default and its unit, in one
	// line (printed by `ldpbench list kinds`).
	Doc string
}

// StringParam declares a free-text parameter, checked by the kind.
func StringParam(key, doc string) Param { return Param{Key: key, Type: String, Doc: doc} }

// IntParam declares an integer parameter in [lo, hi].
func IntParam(key string, lo, hi int, doc string) Param {
	return Param{Key: key, Type: Int, Min: float64(lo), Max: float64(hi), Doc: doc}
}

// FloatParam declares a finite number in [lo, hi].
func FloatParam(key string, lo, hi float64, doc string) Param {
	return Param{Key: key, Type: Float, Min: lo, Max: hi, Doc: doc}
}

// PositiveParam declares a finite number > 0.
func PositiveParam(key, doc string) Param {
	return Param{Key: key, Type: Float, Min: 0, Max: math.MaxFloat64, OpenMin: true, Doc: doc}
}

// BoolParam declares a true/false parameter.
func BoolParam(key, doc string) Param { return Param{Key: key, Type: Bool, Doc: doc} }

// EnumParam declares a parameter that takes one of values.
func EnumParam(key string, values []string, doc string) Param {
	return Param{Key: key, Type: Enum, Values: values, Doc: doc}
}

// Describe returns the parameter's type and bounds in a few words.
func (p Param) Describe() string {
	switch p.Type {
	case Int:
		return fmt.Sprintf("integer in [%d, %d]", int64(p.Min), int64(p.Max))
	case Float:
		switch {
		case p.OpenMin && p.Max == math.MaxFloat64:
			return fmt.Sprintf("number > %g", p.Min)
		case p.OpenMin:
			return fmt.Sprintf("number in (%g, %g]", p.Min, p.Max)
		}
		return fmt.Sprintf("number in [%g, %g]", p.Min, p.Max)
	case Bool:
		return "true or false"
	case Enum:
		return strings.Join(p.Values, " | ")
	}
	return "text"
}

// check returns the error of value v, or nil.
func (p Param) check(v string) error {
	switch p.Type {
	case Int:
		n, err := strconv.Atoi(v)
		if err != nil || float64(n) < p.Min || float64(n) > p.Max {
			return paramErrorf(p.Key, "%q: want an %s", v, p.Describe())
		}
	case Float:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < p.Min || x > p.Max || (p.OpenMin && x == p.Min) {
			return paramErrorf(p.Key, "%q: want a finite %s", v, p.Describe())
		}
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return paramErrorf(p.Key, "%q: want true or false", v)
		}
	case Enum:
		if !slices.Contains(p.Values, v) {
			return paramErrorf(p.Key, "%q: want %s", v, p.Describe())
		}
	}
	return nil
}

// ParamSet is the parameters a kind accepts.
type ParamSet []Param

// Keys returns the declared keys, sorted.
func (s ParamSet) Keys() []string {
	keys := make([]string, len(s))
	for i, p := range s {
		keys[i] = p.Key
	}
	slices.Sort(keys)
	return keys
}

// Lookup returns the declaration of key.
func (s ParamSet) Lookup(key string) (Param, bool) {
	for _, p := range s {
		if p.Key == key {
			return p, true
		}
	}
	return Param{}, false
}

// Without returns the set less the given keys (a kind that reuses another
// kind's parameters but not all of them).
func (s ParamSet) Without(keys ...string) ParamSet {
	return slices.DeleteFunc(slices.Clone(s), func(p Param) bool { return slices.Contains(keys, p.Key) })
}

// Parse checks a cell's raw parameter values (the spec's text, surrounding
// spaces ignored) against the set: an undeclared key, or a value outside
// its type and bounds, is an error that names the spec key. Keys are
// checked in sorted order, so the error is the same on every run.
func (s ParamSet) Parse(raw map[string]string) (Params, error) {
	vals := make(map[string]string, len(raw))
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		p, ok := s.Lookup(k)
		if !ok {
			valid := "none"
			if len(s) > 0 {
				valid = strings.Join(s.Keys(), ", ")
			}
			return Params{}, paramErrorf(k, "unknown parameter (valid: %s)", valid)
		}
		if err := p.check(strings.TrimSpace(raw[k])); err != nil {
			return Params{}, err
		}
		vals[k] = raw[k]
	}
	return Params{set: s, vals: vals}, nil
}

// MustParse is Parse for values known to be valid (tests, examples); it
// panics on an error.
func (s ParamSet) MustParse(raw map[string]string) Params {
	p, err := s.Parse(raw)
	if err != nil {
		panic(err)
	}
	return p
}

// Errorf returns an error about parameter key that names its spec key:
// "axes.params.<key>: <message>".
func (s ParamSet) Errorf(key, format string, args ...any) error {
	return paramErrorf(key, format, args...)
}

// ParamError is an error about one parameter.
type ParamError struct {
	Key string // the parameter, without the "axes.params." prefix
	Msg string
}

func (e *ParamError) Error() string { return "axes.params." + e.Key + ": " + e.Msg }

func paramErrorf(key, format string, args ...any) error {
	return &ParamError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Params are a cell's parameter values, checked against a ParamSet. The
// zero value has none, and every read of it returns the default. The typed
// accessors return the value given or the
// default def; they panic on a key the set does not declare or a type it
// does not declare it with, which is a bug in the kind, not in a spec.
type Params struct {
	set  ParamSet
	vals map[string]string
}

// Lookup returns the value of key as written (trimmed) and whether it was
// given.
func (p Params) Lookup(key string) (string, bool) {
	p.declared(key)
	v, ok := p.vals[key]
	return strings.TrimSpace(v), ok
}

// Has reports whether key was given.
func (p Params) Has(key string) bool {
	_, ok := p.Lookup(key)
	return ok
}

// String returns the value of key, or def.
func (p Params) String(key, def string) string {
	if v, ok := p.Lookup(key); ok {
		return v
	}
	return def
}

// Int returns the value of an Int parameter, or def.
func (p Params) Int(key string, def int) int {
	p.typed(key, Int)
	v, ok := p.vals[key]
	if !ok {
		return def
	}
	v = strings.TrimSpace(v)
	n, _ := strconv.Atoi(v) // checked by Parse
	return n
}

// Float returns the value of a Float parameter, or def.
func (p Params) Float(key string, def float64) float64 {
	p.typed(key, Float)
	v, ok := p.vals[key]
	if !ok {
		return def
	}
	v = strings.TrimSpace(v)
	x, _ := strconv.ParseFloat(v, 64) // checked by Parse
	return x
}

// Bool returns the value of a Bool parameter, or def.
func (p Params) Bool(key string, def bool) bool {
	p.typed(key, Bool)
	v, ok := p.vals[key]
	if !ok {
		return def
	}
	v = strings.TrimSpace(v)
	b, _ := strconv.ParseBool(v) // checked by Parse
	return b
}

// Values returns a copy of the given values as written in the spec (not
// trimmed: what a trial key or a row records), by key.
func (p Params) Values() map[string]string { return maps.Clone(p.vals) }

// Set returns the declarations the values were checked against.
func (p Params) Set() ParamSet { return p.set }

func (p Params) declared(key string) Param {
	if p.set == nil {
		// The zero Params (a CellSpec built by hand without parameters):
		// nothing is given, every read returns its default.
		return Param{Key: key, Type: -1}
	}
	d, ok := p.set.Lookup(key)
	if !ok {
		panic(fmt.Sprintf("experiment: parameter %q is not declared by the kind (declared: %v)", key, p.set.Keys()))
	}
	return d
}

func (p Params) typed(key string, t ParamType) {
	if d := p.declared(key); d.Type != t && d.Type != -1 {
		panic(fmt.Sprintf("experiment: parameter %q is declared with type %d, read as %d", key, d.Type, t))
	}
}

// ParseRange parses an interval written "lo:hi" (a params value such as
// range = "0:100") with finite lo < hi; the error says what was expected.
func ParseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ":")
	if ok {
		lo, err = strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err == nil {
			hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
		}
	}
	if !ok || err != nil || !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, fmt.Errorf("%q: want lo:hi with finite lo < hi", s)
	}
	return lo, hi, nil
}
