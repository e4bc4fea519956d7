//go:build unix

package external_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ldpbench/ldpbench/external"
	"github.com/ldpbench/ldpbench/mechanisms"
)

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
	fakeDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
	os.Exit(code)
}

// fake builds internal/fakemech once and returns its path.
func fake(t testing.TB) string {
	t.Helper()
	fakeOnce.Do(func() {
		fakeDir, fakeErr = os.MkdirTemp("", "fakemech")
		if fakeErr != nil {
			return
		}
		fakeBin = filepath.Join(fakeDir, "fakemech")
		out, err := exec.Command("go", "build", "-o", fakeBin, "./internal/fakemech").CombinedOutput()
		if err != nil {
			fakeErr = fmt.Errorf("go build ./internal/fakemech: %v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

func start(t *testing.T, cfg external.Config) *external.Program {
	t.Helper()
	p, err := external.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestSameLawAsBuiltin: through the protocol, fakemech's pm and duchi give
// the reports the built-in mechanisms draw from the request's seed, bit for
// bit, the same variance, density, CDF, bucket probabilities and discrete
// law, and exactly the capabilities they declare (a kind asks by type
// assertion). A byte-order, framing or argument-order mistake on either
// side fails here.
func TestSameLawAsBuiltin(t *testing.T) {
	bin := fake(t)
	for _, tc := range []struct {
		mech       string
		eps        float64
		discrete   bool
		continuous bool
	}{{"pm", 1.5, false, true}, {"duchi", 0.7, true, false}, {"laplace", 2, false, true}} {
		t.Run(tc.mech, func(t *testing.T) {
			p := start(t, external.Config{Name: "ext-" + tc.mech, Command: []string{bin, "-mech", tc.mech}})
			m, err := p.Mechanism(tc.eps)
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := mechanisms.New(tc.mech, tc.eps)
			if m.Name() != "ext-"+tc.mech || m.Epsilon() != tc.eps {
				t.Errorf("name %q eps %v", m.Name(), m.Epsilon())
			}
			if _, ok := m.(mechanisms.Variancer); !ok {
				t.Errorf("not a Variancer")
			}
			_, isD := m.(mechanisms.Discrete)
			_, isC := m.(mechanisms.Continuous)
			if isD != tc.discrete || isC != tc.continuous {
				t.Errorf("Discrete %t Continuous %t, want %t %t", isD, isC, tc.discrete, tc.continuous)
			}
			// 1,000 inputs, not a power of two, -1, 0 and 1 among them.
			xs := make([]float64, 1000)
			for i := range xs {
				xs[i] = -1 + 2*float64(i)/float64(len(xs)-1)
			}
			xs[500] = 0
			rng := rand.New(rand.NewPCG(1, 2))
			got := make([]float64, len(xs))
			if err := m.PerturbBatch(got, xs, rng); err != nil {
				t.Fatal(err)
			}
			seed := rand.New(rand.NewPCG(1, 2)).Uint64()
			want := make([]float64, len(xs))
			ref.PerturbBatch(want, xs, rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)))
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("report %d = %v, want %v", i, got[i], want[i])
				}
			}
			if y := m.Perturb(0.3, rng); math.IsNaN(y) {
				t.Fatalf("Perturb: NaN: %v", p.Err())
			}
			v, rv := m.(mechanisms.Variancer), ref.(mechanisms.Variancer)
			for _, x := range []float64{-1, -0.3, 0, 0.77, 1} {
				if v.Variance(x) != rv.Variance(x) {
					t.Errorf("Variance(%v) = %v, want %v", x, v.Variance(x), rv.Variance(x))
				}
			}
			if v.WorstCaseVariance() != rv.WorstCaseVariance() {
				t.Errorf("WorstCaseVariance = %v, want %v", v.WorstCaseVariance(), rv.WorstCaseVariance())
			}
			if tc.continuous {
				c, rc := m.(mechanisms.Continuous), ref.(mechanisms.Continuous)
				if lo, hi := c.OutputRange(); [2]float64{lo, hi} != func() [2]float64 { a, b := rc.OutputRange(); return [2]float64{a, b} }() {
					t.Errorf("OutputRange = %v, %v", lo, hi)
				}
				for _, q := range [][2]float64{{-2, 0.5}, {0.1, 0.5}, {3, -1}} {
					if c.Density(q[0], q[1]) != rc.Density(q[0], q[1]) || c.CDF(q[0], q[1]) != rc.CDF(q[0], q[1]) {
						t.Errorf("Density/CDF(%v) = %v/%v, want %v/%v", q, c.Density(q[0], q[1]), c.CDF(q[0], q[1]), rc.Density(q[0], q[1]), rc.CDF(q[0], q[1]))
					}
				}
				if got, want := c.BucketGivenBin(-0.5, 1.25, -0.25, 0.5), rc.BucketGivenBin(-0.5, 1.25, -0.25, 0.5); got != want {
					t.Errorf("BucketGivenBin = %v, want %v", got, want)
				}
			}
			if tc.discrete {
				d, rd := m.(mechanisms.Discrete), ref.(mechanisms.Discrete)
				if fmt.Sprint(d.Outputs()) != fmt.Sprint(rd.Outputs()) {
					t.Errorf("Outputs = %v, want %v", d.Outputs(), rd.Outputs())
				}
				a, b := make([]float64, len(rd.Outputs())), make([]float64, len(rd.Outputs()))
				d.Probabilities(0.4, a)
				rd.Probabilities(0.4, b)
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("Probabilities = %v, want %v", a, b)
				}
			}
			// An input outside the domain is refused before any draw.
			before := *rng
			var ie *mechanisms.InputError
			if err := m.PerturbBatch(got[:2], []float64{0, 1.5}, rng); !errors.As(err, &ie) || ie.Index != 1 {
				t.Errorf("input 1.5: %v, want an *InputError at index 1", err)
			}
			if *rng != before {
				t.Errorf("a refused batch drew from the generator")
			}
		})
	}
}

// TestNoCapabilities: a program that declares none is a plain Mechanism,
// and the kinds that need a variance refuse it (mechanisms.Unbiased).
func TestNoCapabilities(t *testing.T) {
	p := start(t, external.Config{Name: "ext-bare", Command: []string{fake(t), "-nocaps"}})
	m, err := p.Mechanism(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(mechanisms.Variancer); ok {
		t.Errorf("a Variancer without the capability")
	}
	if _, ok := m.(mechanisms.Continuous); ok {
		t.Errorf("Continuous without the capability")
	}
	if _, err := mechanisms.Unbiased(m); err == nil {
		t.Errorf("Unbiased took a mechanism without a variance")
	}
}

// TestMisbehaviour: each way a program can fail is an error that names the
// mechanism, what went wrong, and the program's last stderr lines.
func TestMisbehaviour(t *testing.T) {
	bin := fake(t)
	for _, tc := range []struct {
		flags  []string
		want   string // in the error
		stderr string // in the error: the program's own line
	}{
		{[]string{"-crash-after", "1"}, "exit status 3", "crashing at batch 1"},
		{[]string{"-short-after", "0"}, "stdout ended before the reply's values", "a short reply at batch 0"},
		{[]string{"-count-after", "0"}, "announces 99 values, want 100", "announcing one value fewer"},
		{[]string{"-nan-after", "0"}, "report 50 = NaN", "a NaN at batch 0"},
		{[]string{"-outside-after", "0"}, "report 0 = 1e+06", "outside the range at batch 0"},
		{[]string{"-print-after", "0"}, "did the program print to stdout?", "started"},
	} {
		t.Run(tc.flags[0], func(t *testing.T) {
			name := "bad" + strings.TrimPrefix(tc.flags[0], "-")
			p := start(t, external.Config{Name: name, Command: append([]string{bin}, tc.flags...), Timeout: 5 * time.Second})
			m, err := p.Mechanism(1)
			if err != nil {
				t.Fatal(err)
			}
			xs, dst := make([]float64, 100), make([]float64, 100)
			rng := rand.New(rand.NewPCG(3, 4))
			for range 3 {
				if err = m.PerturbBatch(dst, xs, rng); err != nil {
					break
				}
			}
			checkErr(t, err, name, tc.want, tc.stderr)
		})
	}
	t.Run("variance", func(t *testing.T) {
		p := start(t, external.Config{Name: "bad-var", Command: []string{bin, "-bad-variance"}})
		m, _ := p.Mechanism(1)
		if v := m.(mechanisms.Variancer).Variance(0.5); !math.IsNaN(v) {
			t.Errorf("Variance = %v, want NaN", v)
		}
		checkErr(t, p.Err(), "bad-var", "value 0 = -1: want finite and ≥ 0", "started")
	})
	t.Run("sum", func(t *testing.T) {
		p := start(t, external.Config{Name: "bad-sum", Command: []string{bin, "-mech", "duchi", "-bad-sum"}})
		m, _ := p.Mechanism(1)
		err := m.(interface {
			ProbabilitiesBatch(dst, xs []float64) error
		}).ProbabilitiesBatch(make([]float64, 2), []float64{0.5})
		checkErr(t, err, "bad-sum", "sums to 1.000001", "started")
	})
	t.Run("version", func(t *testing.T) {
		_, err := external.Start(context.Background(), external.Config{Name: "bad-version", Command: []string{bin, "-version", "2"}})
		checkErr(t, err, "bad-version", "protocol version 2, but this ldpbench speaks version 1", "")
	})
	t.Run("missing", func(t *testing.T) {
		_, err := external.Start(context.Background(), external.Config{Name: "no-such", Command: []string{filepath.Join(t.TempDir(), "absent")}})
		checkErr(t, err, "no-such", "no such file", "")
	})
	t.Run("refusal", func(t *testing.T) {
		p := start(t, external.Config{Name: "refuses", Command: []string{bin, "-refuse-above", "10"}})
		_, err := p.Mechanism(20)
		checkErr(t, err, "refuses", "the program refused: ε = 20 is above 10", "started")
		// A refusal is the request's error, not the program's failure.
		if _, err := p.Mechanism(1); err != nil || p.Err() != nil {
			t.Errorf("after a refusal: %v, %v", err, p.Err())
		}
	})
}

func checkErr(t *testing.T, err error, name, want, stderr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", want)
	}
	msg := err.Error()
	var e *external.Error
	if !errors.As(err, &e) {
		t.Errorf("%v: not an *external.Error", err)
	}
	for _, s := range []string{strconv.Quote(name), want} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q\nlacks %q", msg, s)
		}
	}
	if stderr != "" && (!strings.Contains(msg, "| fakemech: ") || !strings.Contains(msg, stderr)) {
		t.Errorf("error %q\nlacks the stderr line %q", msg, stderr)
	}
	t.Logf("%v", msg)
}

// TestTimeout: a program that stops answering is killed after the timeout,
// and the error says so; so is one whose hello does not come.
func TestTimeout(t *testing.T) {
	bin := fake(t)
	p := start(t, external.Config{Name: "hangs", Command: []string{bin, "-hang-after", "0"}, Timeout: 300 * time.Millisecond})
	m, err := p.Mechanism(1)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	err = m.PerturbBatch(make([]float64, 10), make([]float64, 10), rand.New(rand.NewPCG(1, 1)))
	if !errors.Is(err, external.ErrTimeout) {
		t.Fatalf("%v, want ErrTimeout", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("the timeout of 300ms took %v", d)
	}
	checkErr(t, err, "hangs", "no reply within the timeout (300ms); killed", "hanging at batch 0")
	// The failure is sticky: the program is not asked again.
	if err := m.PerturbBatch(make([]float64, 1), make([]float64, 1), rand.New(rand.NewPCG(1, 1))); !errors.Is(err, external.ErrTimeout) {
		t.Errorf("after the timeout: %v", err)
	}
	_, err = external.Start(context.Background(), external.Config{Name: "slow-hello", Command: []string{bin, "-slow-hello", "10s"}, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, external.ErrTimeout) {
		t.Errorf("slow hello: %v, want ErrTimeout", err)
	}
}

// TestPool: concurrent batches run in at most MaxProcs processes, each
// reused, and Close leaves none running.
func TestPool(t *testing.T) {
	dir := t.TempDir()
	p, err := external.Start(context.Background(), external.Config{Name: "pool", Command: []string{fake(t), "-piddir", dir}, MaxProcs: 3})
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.Mechanism(2)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			xs, dst := make([]float64, 4096), make([]float64, 4096)
			for range 20 {
				if err := m.PerturbBatch(dst, xs, rng); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	pids := pidsIn(t, dir)
	if len(pids) < 1 || len(pids) > 3 {
		t.Errorf("%d processes, want 1 to 3", len(pids))
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	checkGone(t, pids)
}

func pidsIn(t testing.TB, dir string) []int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkGone fails if any of pids is still a process (running or a zombie
// not reaped).
func checkGone(t testing.TB, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there after Close (kill 0: %v)", pid, err)
		}
	}
}
