package harness

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/datasets"
	"github.com/ldpbench/ldpbench/experiment"
)

// memoryLimit returns the bytes a run may plan to use: opt.MemoryLimit when
// set, else the Go memory limit (GOMEMLIMIT) when set, else the machine's
// physical memory (Linux /proc/meminfo), else 0 for unknown.
func memoryLimit(opt Options) int64 {
	if opt.MemoryLimit > 0 {
		return opt.MemoryLimit
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return l
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// datasetBytes estimates the memory of the spec's synthetic datasets, built
// at the largest n: n rows of dims float64 values, twice (the raw draws and
// the normalised values). A file dataset is bounded by its file and is
// checked when loaded.
func datasetBytes(s *Spec) (int64, string) {
	maxN := 0
	for _, n := range s.Axes.N {
		maxN = max(maxN, n)
	}
	var total float64
	var what []string
	for _, d := range s.Datasets {
		if d.Source == datasets.SourceFile {
			continue
		}
		dims := max(d.Dims, 1)
		b := 2 * 8 * float64(maxN) * float64(dims)
		total += b
		what = append(what, fmt.Sprintf("dataset %q: %d × %d values", d.Name, maxN, dims))
	}
	return clampBytes(total), strings.Join(what, ", ")
}

// cellBytes estimates the memory of the cells and trials alive at once:
// with jobs workers, at most jobs cells are prepared and jobs trials run.
func cellBytes(kind experiment.Kind, specs []*experiment.CellSpec, jobs int) int64 {
	est, ok := kind.(experiment.MemoryEstimator)
	if !ok {
		return 0
	}
	var prep, trial int64
	for _, c := range specs {
		p, t := est.CellBytes(c)
		prep, trial = max(prep, p), max(trial, t)
	}
	live := int64(min(jobs, len(specs)))
	return clampBytes(float64(live) * (float64(prep) + float64(trial)))
}

func clampBytes(b float64) int64 {
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}

// checkMemory refuses a plan of need bytes over the limit; what says where
// the bytes go, key names the spec key to lower.
func checkMemory(s *Spec, need, limit int64, what string) error {
	if limit <= 0 || need <= limit {
		return nil
	}
	return s.errorf("axes.n", "the run needs about %s (%s), more than the %s this process may use (GOMEMLIMIT, or Options.MemoryLimit): lower n, or -j to run fewer cells at once",
		formatBytes(need), what, formatBytes(limit))
}

// formatBytes prints a byte count in binary units.
func formatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 5; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
