package estimators

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkZZM(b *testing.B) {
	for _, m := range []int{6, 9} {
		eps := make([]float64, m)
		for i := range eps {
			eps[i] = 0.1
		}
		ms := uleMechs(b, eps...)
		rng := rand.New(rand.NewPCG(7, uint64(m)))
		reports := uleReports(b, uleBenchInputs(b, 1_000_000), ms, rng)
		svcs := uleServices(b, ms, DefaultBins)
		for rep := 0; rep < 2; rep++ {
			for _, k := range []string{"", "explicit"} {
				c0 := cpuNow()
				_, info, _ := ULE(reports, svcs, EMOptions{MaxIter: 60, kernel: k, Workers: 1})
				cpu := cpuNow() - c0 - info.Setup
				b.Logf("m=%d kernel %q: cpu/pass %.4f s (wall %.4f), setup %.2f s", m, k, cpu.Seconds()/61, info.PerIter.Seconds(), info.Setup.Seconds())
			}
		}
	}
}
