package harness

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// checkKeys checks every key of a decoded TOML document against the Spec
// type before the document is decoded into it, in the order the keys stand
// in the file, so that the first problem is reported and always the same one
// (the decoder's own type errors depend on map order when there are two):
//
//   - a key must match its field's toml tag exactly: the decoder matches
//     case-insensitively, so TRIALS = 7 was taken as trials, and of
//     trials = 2 and Trials = 7 either won;
//   - a value must have its field's TOML type (a string for a string, an
//     integer for an int, a number for a float, a table for a table, ...).
//
// Keys that match no field are left to the decoder's Undecoded check; free
// maps (axes.params, a figure's filter) and types that decode themselves
// (toml.Unmarshaler) are not looked into.
func checkKeys(md toml.MetaData, doc map[string]any) error {
	for _, key := range md.Keys() {
		t := reflect.TypeFor[Spec]()
		for i, name := range key {
			t = deref(t)
			if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
				break
			}
			switch t.Kind() {
			case reflect.Struct:
				f, ok := fieldByTag(t, name, false)
				if !ok {
					if g, ok := fieldByTag(t, name, true); ok {
						return fmt.Errorf("key %q: keys are case-sensitive: did you mean %q?", key.String(), strings.Join(append(slicesClone(key[:i]), tagName(g)), "."))
					}
					t = nil // unknown: Undecoded names it
				} else {
					t = f.Type
				}
			case reflect.Map:
				t = t.Elem()
			default:
				t = nil
			}
			if t == nil {
				break
			}
			if i == len(key)-1 {
				for _, v := range valuesAt(doc, key) {
					if err := checkValue(key.String(), v, t); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[toml.Unmarshaler]()

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && deref2(t.Elem()).Kind() == reflect.Struct {
		return deref2(t.Elem()) // an array of tables: its elements' keys
	}
	return t
}

func deref2(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fieldByTag finds the field of struct t whose toml tag (or, untagged, name)
// is name, exactly or ignoring case; embedded structs are searched too.
func fieldByTag(t reflect.Type, name string, fold bool) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && deref2(f.Type).Kind() == reflect.Struct && f.Tag.Get("toml") == "" {
			if g, ok := fieldByTag(deref2(f.Type), name, fold); ok {
				return g, true
			}
			continue
		}
		tag := tagName(f)
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == name || (fold && strings.EqualFold(tag, name)) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if tag == "" {
		return f.Name
	}
	return tag
}

func slicesClone(k toml.Key) []string { return append([]string(nil), k...) }

// valuesAt returns the values at key in the decoded document, one per
// element of every array of tables on the way, in document order.
func valuesAt(doc map[string]any, key toml.Key) []any {
	cur := []any{doc}
	for _, name := range key {
		var next []any
		for _, c := range cur {
			switch c := c.(type) {
			case map[string]any:
				if v, ok := c[name]; ok {
					next = append(next, v)
				}
			case []map[string]any:
				for _, m := range c {
					if v, ok := m[name]; ok {
						next = append(next, v)
					}
				}
			}
		}
		cur = next
	}
	return cur
}

// checkValue checks a decoded TOML value against the Go type it decodes
// into, the elements of an array one by one.
func checkValue(key string, v any, t reflect.Type) error {
	t = deref2(t)
	if t == reflect.TypeFor[MethodList]() {
		// One method name or a list of them (MethodList.UnmarshalTOML).
		if _, ok := v.(string); ok {
			return nil
		}
		if _, ok := v.([]any); !ok {
			return fmt.Errorf("key %q: want a method name or a list of them, got %s", key, tomlTypeName(v))
		}
		return checkValue(key, v, reflect.TypeFor[[]string]())
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	var want string
	ok := false
	switch t.Kind() {
	case reflect.String:
		_, ok = v.(string)
		want = "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		_, ok = v.(int64)
		want = "an integer"
	case reflect.Float32, reflect.Float64:
		switch v := v.(type) {
		case float64:
			ok = true
		case int64:
			// The decoder refuses an integer a float64 cannot hold exactly.
			if v > 1<<53 || v < -(1<<53) {
				return fmt.Errorf("key %q: %d is beyond ±2^53, where float64 is exact: write it as a float", key, v)
			}
			ok = true
		}
		want = "a number"
	case reflect.Bool:
		_, ok = v.(bool)
		want = "true or false"
	case reflect.Slice, reflect.Array:
		want = "an array"
		switch v := v.(type) {
		case []any:
			for i, e := range v {
				if err := checkValue(fmt.Sprintf("%s[%d]", key, i), e, t.Elem()); err != nil {
					return err
				}
			}
			return nil
		case []map[string]any:
			return nil // an array of tables: its keys are checked one by one
		}
	case reflect.Struct, reflect.Map:
		_, ok = v.(map[string]any)
		want = "a table"
	default:
		return nil
	}
	if !ok {
		return fmt.Errorf("key %q: want %s, got %s", key, want, tomlTypeName(v))
	}
	return nil
}

// tomlTypeName names the TOML type of a decoded value.
func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	}
	return fmt.Sprintf("a %T", v)
}
