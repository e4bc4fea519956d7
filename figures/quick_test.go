package figures

import (
	"strings"
	"testing"
)

// TestQuickMarked: a figure drawn from a quick run says so in its title
// and caption, and one drawn from a full run does not. The bug caught: a
// quick figure (20 trials, a pipeline check) that a reader takes for the
// paper's scale, as every quick PNG looked before summary.csv had its
// quick column.
func TestQuickMarked(t *testing.T) {
	spec := Spec{Name: "f", Title: "MSE vs ε", Metric: "mse", X: "eps", Series: "method", Panel: "dataset"}
	for _, quick := range []bool{false, true} {
		s := sweep()
		for i := range s {
			s[i].Quick = quick
		}
		fig, err := Project(s, spec)
		if err != nil {
			t.Fatal(err)
		}
		title, caption := fig.title(), strings.Join(fig.caption(), "\n")
		if got := strings.Contains(title, quickTag); got != quick {
			t.Errorf("quick=%v: title %q marked=%v", quick, title, got)
		}
		if got := strings.Contains(caption, "Quick scale (--quick)"); got != quick {
			t.Errorf("quick=%v: caption marked=%v:\n%s", quick, got, caption)
		}
	}
	// One quick summary among full ones marks the figure: a mixed
	// projection is not the paper's scale either.
	s := sweep()
	s[2].Quick = true // an mse summary (the sweep alternates mse, abs)
	fig, err := Project(s, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !fig.Quick {
		t.Error("a figure with one quick summary is not marked quick")
	}
}
