package central

import "testing"

func TestMethodLabel(t *testing.T) {
	for _, c := range []struct{ method, want string }{
		{"central-alg1", "Alg. 1"}, {"central-alg3-lap", "Alg. 3 (Laplace)"}, {"central-alg3-hg", "Alg. 3 (hourglass)"},
		{"lower-bound", "lower bound"}, {"ldp:pm-sub", "PM-SUB (local)"}, {"ldp:duchi", "Duchi et al. (local)"},
	} {
		got, ok := Kind{}.MethodLabel(c.method)
		if !ok || got != c.want {
			t.Errorf("MethodLabel(%q) = %q, %v; want %q", c.method, got, ok, c.want)
		}
	}
}
