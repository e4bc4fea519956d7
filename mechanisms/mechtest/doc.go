// Package mechtest holds the statistical and exact checks that every
// mechanism of package mechanisms is tested with, and [Suite], which runs
// all of them on one mechanism: package mechanisms runs it over every
// registered mechanism, and a user's mechanism, registered with
// mechanisms.Register, runs it in its own test. The suite reads what it
// needs of a mechanism from the mechanism's methods, never from its name:
// the words a report takes ([mechanisms.WordCounter], and
// [mechanisms.BatchOrder] if its batch is not its Perturb calls) and,
// for an unbounded output, its tail quantiles
// ([mechanisms.TailQuantiler]). Adding a mechanism is so one file, one
// line in the registry and its own test file.
//
// Each check returns an error instead of failing a test, so that a test can
// also show that a deliberately broken mechanism is caught:
//
//	if err := mechtest.Unbiased(m, x, 200_000, rng, mechtest.DefaultAlpha); err != nil {
//		t.Error(err)
//	}
//
// Monte Carlo checks ([Unbiased], [Variance]) derive their tolerance from
// the mechanism's closed-form variance and a stated false-failure
// probability alpha (per check; [DefaultAlpha] = 1e-6), never from a
// tolerance tuned until the test passes. Their doc comments state the
// approximation behind alpha. Exact checks ([ProbabilitiesSumToOne],
// [DiscreteLDP], [DensityLDP], [BucketsSumToOne], [BucketsMatchDensity],
// [CDFConsistent]) take a numerical tolerance and have no false-failure
// probability.
//
// Use a fixed seed (rand.New(rand.NewPCG(1, 2))) so that a run is
// reproducible; alpha then bounds the chance that a correct mechanism fails
// for a seed picked in advance.
package mechtest
