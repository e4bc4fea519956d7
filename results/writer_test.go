package results

import (
	"bytes"
	"strings"
	"testing"
)

// What WriteRows writes, ReadRows reads back as written: a first field
// starting with '#' (it would read as a comment line) and fields spanning
// lines, one of which starts with '#'. A carriage return, which CSV turns
// from "\r\n" into "\n", is refused rather than silently changed.
func TestWriteRowsRoundTrip(t *testing.T) {
	rows := []Row{
		{Experiment: "#x", Dataset: "d", Method: "m", Eps: 1, N: 2, Metric: "mse", Value: 1},
		{Experiment: "e", Dataset: "a\n#b", Method: "m,\"q\"", Eps: 1, N: 2, Metric: "mse", Value: 2},
		{Experiment: "#", Dataset: "", Method: "m", Eps: 1, N: 2, Metric: "mse", Value: 3},
	}
	var b bytes.Buffer
	if err := WriteRows(&b, rows, true); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRows(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("read %d rows back, wrote %d:\n%s", len(back), len(rows), b.String())
	}
	for i := range rows {
		if back[i].Experiment != rows[i].Experiment || back[i].Dataset != rows[i].Dataset || back[i].Method != rows[i].Method {
			t.Errorf("row %d: read %+v, wrote %+v", i, back[i], rows[i])
		}
	}
	err = WriteRows(&b, []Row{{Experiment: "e", Dataset: "a\r\nb"}}, false)
	if err == nil || !strings.Contains(err.Error(), "carriage return") {
		t.Errorf("a carriage return: %v, want a refusal", err)
	}
}
