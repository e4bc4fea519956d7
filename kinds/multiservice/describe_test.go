package multiservice

import "testing"

func TestMethodLabel(t *testing.T) {
	for _, c := range []struct{ method, want string }{
		{"ua", "UA"}, {"uwa", "UWA"}, {"uwa-oracle", "UWA (oracle weights)"}, {"ule", "ULE"},
		{"single-best", "Single best"}, {"ems-best", "Single best"},
		{"single-sr", "SR"}, {"single-duchi", "SR"}, {"single-lap", "Laplace"}, {"ems-pm", "PM"},
		{"single-2", "service 2"}, {"ems-12", "service 12"}, {"raw-sw", "SW (raw report)"},
	} {
		got, ok := Kind{}.MethodLabel(c.method)
		if !ok || got != c.want {
			t.Errorf("MethodLabel(%q) = %q, %v; want %q", c.method, got, ok, c.want)
		}
		if md, _ := (MD{}).MethodLabel(c.method); md != got {
			t.Errorf("MD labels %q as %q, Kind as %q", c.method, md, got)
		}
	}
	if got, ok := (Kind{}).MethodLabel("single-"); ok {
		t.Errorf("MethodLabel(single-) = %q, want none", got)
	}
}
