package estimators

import "testing"

func BenchmarkZZ1M200(b *testing.B) {
	d := uleBenchSetup(b, 1_000_000, 0.1)
	b.ResetTimer()
	var info EMInfo
	for b.Loop() {
		_, info, _ = ULE(d.reports, d.svcs, EMOptions{MaxIter: 200, Workers: 1})
	}
	b.ReportMetric(info.PerIter.Seconds()*1e3, "ms/iter")
}

func BenchmarkZZ10M(b *testing.B) { benchULE(b, 10_000_000, 0.1) }
