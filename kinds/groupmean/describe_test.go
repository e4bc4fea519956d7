package groupmean

import "testing"

func TestMethodLabel(t *testing.T) {
	for _, c := range []struct{ method, want string }{
		{"laplace", "Laplace"}, {"bernoulli", "Bernoulli"}, {"pw", "Piecewise"}, {"nprr", "NPRR"},
		{"nprr(k=8)", "NPRR (k = 8)"},
		{"nprr(neutral=uniform-grid,k=16)", "NPRR (k = 16, neutral = uniform-grid)"}, // options in optionKeys' order
		{"pw(split=ratio:0.3)", "Piecewise (split = ratio:0.3)"},
		{"value:pm-sub(ratio=0.4)", "PM-SUB (value, ratio = 0.4)"},
	} {
		got, ok := Kind{}.MethodLabel(c.method)
		if !ok || got != c.want {
			t.Errorf("MethodLabel(%q) = %q, %v; want %q", c.method, got, ok, c.want)
		}
	}
	for _, bad := range []string{"nope", "nprr(k=8"} {
		if got, ok := (Kind{}).MethodLabel(bad); ok {
			t.Errorf("MethodLabel(%q) = %q, want none", bad, got)
		}
	}
}
