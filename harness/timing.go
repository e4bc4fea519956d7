package harness

// Timing specs: a spec whose metrics are wall times (Du et al.'s Table 1
// times ULE's and UWA's aggregation) is meaningless when other trials
// share the machine during a timed one: at -j 2 a cell read 157–174 s that
// takes 60–73 s alone. The runner runs a timing spec's trials one at a
// time, whatever -j, with no other trial or preparation of any run of the
// process in flight, and records the machine in rows.csv (a "# timing"
// line), which the figures' captions and the tables' notes repeat.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ldpbench/ldpbench/figures"
	"github.com/ldpbench/ldpbench/tables"
)

// wallTimeMetrics are the per-trial metrics that are wall times: a spec
// that records one is a timing spec.
var wallTimeMetrics = []string{"aggregation_seconds"}

// IsTiming reports whether the spec is a timing spec: timing = true, or a
// metric that is a wall time.
func (s *Spec) IsTiming() bool {
	if s.Timing != nil && *s.Timing {
		return true
	}
	return slices.ContainsFunc(s.Metrics, func(m string) bool { return slices.Contains(wallTimeMetrics, m) })
}

// checkTiming refuses timing = false beside a wall-time metric: its times
// would be taken with other trials running.
func (s *Spec) checkTiming() error {
	if s.Timing == nil || *s.Timing {
		return nil
	}
	for i, m := range s.Metrics {
		if slices.Contains(wallTimeMetrics, m) {
			return s.errorf("timing", "false, but metrics[%d] = %q is a wall time: a spec that records one times its trials one at a time (leave the key out)", i, m)
		}
	}
	return nil
}

// trialGate keeps a timed trial alone in the process: every trial and
// cell preparation of every run holds it shared, a timing spec's
// exclusively (sync.RWMutex: a waiting writer stops new readers, so a
// timed trial waits only for those in flight).
var trialGate sync.RWMutex

// gate holds the trial gate in the spec's mode and returns its release.
func (r *runner) gate() func() {
	if r.timing {
		trialGate.Lock()
		return trialGate.Unlock
	}
	trialGate.RLock()
	return trialGate.RUnlock
}

// timingPrefix starts rows.csv's record of the machine a timing spec ran
// on, after the data lines.
const timingPrefix = "# timing "

// timingLine is this machine's timing line: trials one at a time, the
// CPUs (runtime.NumCPU), the Go threads a trial may use (GOMAXPROCS; a
// kind's threads parameter defaults to them), the platform and the
// processor's name from /proc/cpuinfo where there is one.
func timingLine() string {
	line := fmt.Sprintf("%sserial cpus=%d gomaxprocs=%d goos=%s goarch=%s", timingPrefix, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	if m := procCPUModel(); m != "" {
		line += " cpu_model=" + strconv.Quote(m)
	}
	return line
}

// procCPUModel is the processor's name in /proc/cpuinfo ("model name"),
// "" where there is none (no such file, or an architecture that does not
// name it).
func procCPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// splitTiming separates a rows file's '#' lines after the first into its
// data lines and its timing lines.
func splitTiming(lines []string) (data, timing []string) {
	for _, l := range lines {
		if strings.HasPrefix(l, timingPrefix) {
			timing = append(timing, l)
		} else {
			data = append(data, l)
		}
	}
	return data, timing
}

// timingFields splits a timing line into its fields (a quoted value
// unquoted); the first, "serial", maps to "".
func timingFields(line string) map[string]string {
	out := map[string]string{}
	rest := strings.TrimPrefix(line, timingPrefix)
	for rest != "" {
		rest = strings.TrimLeft(rest, " ")
		k, v, _ := strings.Cut(rest, "=")
		if strings.ContainsRune(k, ' ') || !strings.Contains(rest, "=") {
			// A bare word ("serial").
			word, tail, _ := strings.Cut(rest, " ")
			out[word], rest = "", tail
			continue
		}
		if strings.HasPrefix(v, `"`) {
			if q, err := strconv.QuotedPrefix(v); err == nil {
				u, _ := strconv.Unquote(q)
				out[k], rest = u, v[len(q):]
				continue
			}
		}
		val, tail, _ := strings.Cut(v, " ")
		out[k], rest = val, tail
	}
	return out
}

// machine describes a timing line's machine: `AMD EPYC (2 CPUs,
// GOMAXPROCS 2, linux/amd64)`.
func machine(line string) string {
	f := timingFields(line)
	model := f["cpu_model"]
	if model == "" {
		model = "a processor /proc/cpuinfo does not name"
	}
	return fmt.Sprintf("%s (%s CPUs, GOMAXPROCS %s, %s/%s)", model, f["cpus"], f["gomaxprocs"], f["goos"], f["goarch"])
}

// TimingNote is the sentence a timing spec's figures and tables end with:
// that its trials were timed one at a time, and on which machine (each
// shard's, when the merged shards ran on different ones); "" without
// timing lines.
func TimingNote(lines []string) string {
	switch len(lines) {
	case 0:
		return ""
	case 1:
		return "Timed one trial at a time (no other trial in flight, whatever -j) on " + machine(lines[0]) + "."
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = "shard " + timingFields(l)["shard"] + " on " + machine(l)
	}
	return "Timed one trial at a time (no other trial in flight, whatever -j), the shards on different machines: " + strings.Join(parts, "; ") + "."
}

// TimingIn returns the timing lines of the rows in dir (none when dir
// holds no rows or they are not of a timing spec).
func TimingIn(dir string) []string {
	_, lines, err := headerLines(filepath.Join(dir, RowsFile))
	if err != nil {
		return nil
	}
	_, timing := splitTiming(lines)
	return timing
}

// withNote appends note to a caption or table note.
func withNote(old, note string) string {
	if note == "" {
		return old
	}
	if old == "" {
		return note
	}
	return old + " " + note
}

// timedFigures returns figs, each with the timing note at the end of its
// caption.
func timedFigures(figs []figures.Spec, note string) []figures.Spec {
	if note == "" {
		return figs
	}
	out := slices.Clone(figs)
	for i := range out {
		out[i].Note = withNote(out[i].Note, note)
	}
	return out
}

// TimedTables returns tabs, each with the timing note of the run in dir
// at the end of its note (tabs as they are for another run).
func TimedTables(tabs []tables.Spec, dir string) []tables.Spec {
	return timedTables(tabs, TimingNote(TimingIn(dir)))
}

func timedTables(tabs []tables.Spec, note string) []tables.Spec {
	if note == "" {
		return tabs
	}
	out := slices.Clone(tabs)
	for i := range out {
		out[i].Note = withNote(out[i].Note, note)
	}
	return out
}

// mergeTiming returns the merged rows' timing lines: the shards' one line
// when they agree (as a single run writes it), else each shard's, in
// shard order, marked with its shard.
func mergeTiming(shards []shardOut) []string {
	var first []string
	same := true
	for i, sh := range shards {
		_, t := splitTiming(sh.data)
		if i == 0 {
			first = t
		} else if !slices.Equal(t, first) {
			same = false
		}
	}
	if same {
		return first
	}
	sorted := slices.Clone(shards)
	slices.SortFunc(sorted, func(a, b shardOut) int { return a.shard.Index - b.shard.Index })
	var out []string
	for _, sh := range sorted {
		_, t := splitTiming(sh.data)
		for _, l := range t {
			out = append(out, l+" shard="+sh.shard.String())
		}
	}
	return out
}
