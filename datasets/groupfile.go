package datasets

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// OptionalColumn is a 0-based column index that may be absent. Its zero
// value is "no column", so that a spec can name column 0 (group_column = 0)
// and still tell it from an absent key; it stays comparable, so Specs
// compare with ==.
type OptionalColumn struct {
	Set   bool
	Index int
}

// ColumnAt returns the OptionalColumn naming 0-based column i.
func ColumnAt(i int) OptionalColumn { return OptionalColumn{Set: true, Index: i} }

// UnmarshalTOML decodes a TOML integer (github.com/BurntSushi/toml calls it
// for the group_column key). Anything else is an error; a negative index is
// left to Spec.Validate, which names the key.
func (c *OptionalColumn) UnmarshalTOML(v any) error {
	i, ok := v.(int64)
	if !ok {
		return fmt.Errorf("want an integer column index (0-based), got %s", tomlKind(v))
	}
	if int64(int(i)) != i {
		return fmt.Errorf("column index %d does not fit an int", i)
	}
	*c = ColumnAt(int(i))
	return nil
}

// tomlKind names the kind of a decoded TOML value, without the value (it may
// hold control characters).
func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	default:
		return "a date or time"
	}
}

// validateGroupColumn checks the keys of a resolved file spec with
// group_column set.
func (s Spec) validateGroupColumn(bad func(key, format string, args ...any)) {
	if s.GroupColumn.Index < 0 {
		bad("group_column", "must be >= 0 (0-based), got %d", s.GroupColumn.Index)
	} else if s.GroupColumn.Index == s.Column {
		bad("group_column", "is column %d, the value column: the groups must come from another column", s.Column)
	}
	switch s.Normalise {
	case RuleFixed:
	case RuleMinMax, RuleNone:
		bad("normalise", "group_column keeps the values raw, to be scaled by the attribute's fixed range: want %q (the default) with lo, hi, got %q (Raab et al. never scales by the data's min and max)", RuleFixed, s.Normalise)
	}
}

// buildFileGrouped builds a resolved, validated file spec with group_column
// from the file at path: every row, then the first n (see Build).
func (s Spec) buildFileGrouped(n int, path string, rd *fileRead) (*Dataset, error) {
	nm, err := Fixed(s.Lo, s.Hi, s.Clip)
	if err != nil {
		return nil, err
	}
	layout := fileLayout{header: s.Header, missing: s.Missing, rows: s.Rows}
	if s.keeps() {
		layout.keep, layout.keepLo, layout.keepHi = true, s.KeepLo, s.KeepHi
	}
	values, groups, labels, err := loadGroupedFrom(path, s.Column, s.GroupColumn.Index, s.Sep, nm.check, layout, MaxGroups, rd)
	if err != nil {
		return nil, err
	}
	if len(labels) < 2 {
		return nil, fmt.Errorf("%s: group column %d: one label (%q) in %d rows; group means need at least 2 groups", path, s.GroupColumn.Index, labels[0], len(values))
	}
	labels = sortGroups(groups, labels)
	if n > 0 && n < len(values) {
		values, groups = values[:n:n], groups[:n:n]
	}
	rd.prov.Used = len(values)
	for _, x := range values {
		if x < nm.Lo || x > nm.Hi {
			nm.Clipped++
		}
	}
	return &Dataset{
		Name:          s.Name,
		Values:        values,
		Groups:        groups,
		GroupLabels:   labels,
		Dims:          1,
		Normalisation: nm,
		Source: fmt.Sprintf("file %s column %d groups column %d sep=%q rows 1-%d (%d groups)",
			path, s.Column, s.GroupColumn.Index, s.Sep, len(values), len(labels)),
		Substitute: s.Substitute,
		File:       &rd.prov,
	}, nil
}

// sortGroups puts labels (in first-seen order, groups indexing them) in
// sorted order and renumbers groups to match; it returns the sorted labels.
// The order is numeric when every label parses as a finite number (class
// codes 1 … 7, and 10 after 9), ties and otherwise by bytes (MIMIC's
// categories alphabetically, as Raab et al.'s Table 7).
func sortGroups(groups []int32, labels []string) []string {
	num := make([]float64, len(labels))
	numeric := true
	for i, l := range labels {
		x, err := strconv.ParseFloat(l, 64)
		if err != nil || !finite(x) {
			numeric = false
			break
		}
		num[i] = x
	}
	order := make([]int, len(labels)) // order[rank] = old id
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if numeric {
			if c := cmp.Compare(num[a], num[b]); c != 0 {
				return c
			}
		}
		return cmp.Compare(labels[a], labels[b])
	})
	rank := make([]int32, len(labels))
	sorted := make([]string, len(labels))
	for r, old := range order {
		rank[old] = int32(r)
		sorted[r] = labels[old]
	}
	for i, g := range groups {
		groups[i] = rank[g]
	}
	return sorted
}
