package fl

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ldpbench/ldpbench/datasets"
)

// tableData is a loaded table with the derived columns Zhao et al.'s
// experiments read: numeric features min–max to [−1, 1] (binarised ones
// are ±1 already), the numeric response min–max to [−1, 1], and labels ±1.
type tableData struct {
	tab  *datasets.Table
	xz   []float64 // features on [−1, 1]
	yReg []float64 // numeric response on [−1, 1]; nil for a classification table
	yBin []float64 // ±1 labels; nil when the table has none
	note string    // how yBin was made
}

type tableEntry struct {
	once sync.Once
	data *tableData
	err  error
}

// tables caches loaded tables by name for the process: every cell of a
// run reads the same table, and a stand-in takes a second to build.
var tables sync.Map

// loadTable returns the named table and its derived columns.
func loadTable(name string) (*tableData, error) {
	e, _ := tables.LoadOrStore(name, &tableEntry{})
	entry := e.(*tableEntry)
	entry.once.Do(func() {
		tab, err := datasets.LoadTable(name)
		if err != nil {
			entry.err = err
			return
		}
		entry.data = derive(tab)
	})
	return entry.data, entry.err
}

func derive(tab *datasets.Table) *tableData {
	d := &tableData{tab: tab, xz: slices.Clone(tab.X)}
	datasets.MinMaxColumns(d.xz, tab.P, tab.Numeric)
	switch {
	case tab.Y == nil:
	case tab.Classes == nil:
		d.yReg = slices.Clone(tab.Y)
		datasets.MinMaxColumns(d.yReg, 1, 1)
		med := median(tab.Y)
		d.yBin = make([]float64, len(tab.Y))
		for i, y := range tab.Y {
			d.yBin[i] = -1
			if y > med {
				d.yBin[i] = 1
			}
		}
		d.note = fmt.Sprintf("label +1 where the response exceeds its median %g", med)
	case len(tab.Classes) == 2:
		d.yBin = make([]float64, len(tab.Y))
		for i, y := range tab.Y {
			d.yBin[i] = 2*y - 1
		}
		d.note = fmt.Sprintf("label +1 for class %s", tab.Classes[1])
	}
	return d
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
