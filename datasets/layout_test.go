package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The UCI household power file: ';'-separated, a header line, '?' for a
// missing value, and the Voltage recipe that reads only the first rows data
// lines before dropping missing ones.
func TestFileLayoutHeaderMissingRows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "power.txt")
	body := "Date;Time;Voltage\n" +
		"16/12/2006;17:24:00;234.84\n" +
		"16/12/2006;17:25:00;?\n" +
		"16/12/2006;17:26:00;233.29\n" +
		"16/12/2006;17:27:00;233.74\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec Spec
		want []float64
		err  string
	}{
		{"header and missing", Spec{Header: true, Missing: "?"}, []float64{234.84, 233.29, 233.74}, ""},
		{"first 3 data lines, then drop missing", Spec{Header: true, Missing: "?", Rows: 3}, []float64{234.84, 233.29}, ""},
		{"no header: the header fails to parse", Spec{Missing: "?"}, nil, `power.txt:1: column 2 (field 3): cannot parse "Voltage"`},
		{"no missing marker: '?' fails to parse", Spec{Header: true}, nil, `power.txt:3: column 2 (field 3): cannot parse "?"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.spec
			s.Name, s.Source, s.Path, s.Column, s.Sep, s.Normalise = "power", SourceFile, path, 2, ";", RuleNone
			s.Normalise = RuleMinMax
			d, err := s.Build(0, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Values) != len(tt.want) {
				t.Fatalf("%d values, want %d", len(d.Values), len(tt.want))
			}
			for i, w := range tt.want {
				if got := d.Normalisation.Invert(d.Values[i]); abs(got-w) > 1e-9 {
					t.Errorf("value %d = %v, want %v", i, got, w)
				}
			}
		})
	}
	if err := (Spec{Name: "x", Source: SourceBeta, A: 2, B: 2, Header: true}).Validate(); err == nil || !strings.Contains(err.Error(), `"header"`) {
		t.Errorf("header on a synthetic source: %v", err)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
