package compare

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadBaseline: a baseline file is outside input (edited by hand,
// cut by a full disk). Whatever the bytes, ReadBaseline returns an error
// or a baseline whose α is in (0, 1) and whose cells each hold their
// values; it never panics. What it accepts, written again, reads back the
// same (to the 10 digits a baseline keeps).
func FuzzReadBaseline(f *testing.F) {
	f.Add([]byte("# ldpbench baseline spec=s alpha=0.001\n# rows: # ldpbench rows experiment=s seed=1\n# reason: r\nexperiment,dataset,method,eps,n,params,metric,values\ns,d,m,1,10,,mse,0.5 0.25\n# end records=1\n"))
	f.Add([]byte("# ldpbench baseline spec=s alpha=2\n"))
	f.Add([]byte("experiment,dataset,method,eps,n,params,metric,values\n\"a,b\",d,m,1e-3,1,k=v,abs,1 +Inf\n# end records=1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "b.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadBaseline(p)
		if err != nil {
			return
		}
		if !(b.Alpha > 0 && b.Alpha < 1) || b.Spec == "" {
			t.Fatalf("accepted α = %v, spec %q", b.Alpha, b.Spec)
		}
		q := filepath.Join(dir, "c.csv")
		if err := b.Write(q); err != nil {
			return // a field CSV cannot hold (a carriage return) is refused on write
		}
		c, err := ReadBaseline(q)
		if err != nil {
			t.Fatalf("a baseline written from an accepted one does not read back: %v", err)
		}
		if len(c.Cells) != len(b.Cells) {
			t.Fatalf("%d cells read back as %d", len(b.Cells), len(c.Cells))
		}
		for i := range b.Cells {
			if c.Cells[i].Metric != b.Cells[i].Metric || len(c.Cells[i].Values) != len(b.Cells[i].Values) {
				t.Fatalf("cell %d read back differently", i)
			}
			for j, v := range b.Cells[i].Values {
				w := c.Cells[i].Values[j]
				if !(v == w || sameValue(v, w) || (math.IsNaN(v) && math.IsNaN(w))) && math.Abs(v-w) > 5e-10*math.Abs(v) {
					t.Fatalf("value %v read back as %v", v, w)
				}
			}
		}
	})
}
