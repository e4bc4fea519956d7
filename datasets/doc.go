// Package datasets supplies the data that ldpbench perturbs: synthetic
// generators, a loader for numeric columns of fetched files, the
// normalisation of raw values onto the mechanism domain [-1, 1], and the
// provenance that every result row records.
//
// # Datasets
//
// A [Dataset] holds one attribute: Values already on [-1, 1], the
// [Normalisation] that put them there (rule and bounds, printed by its String
// method for result rows), a human-readable Source and a Substitute flag for
// stand-ins that are not the paper's own data. Ground truth is the dataset's
// own statistic ([Dataset.Mean], [Dataset.Variance]), never a generator
// parameter.
//
// # Synthetic generators
//
// Every generator takes a caller-supplied *rand.Rand (math/rand/v2), returns
// raw values on its natural domain and samples its law exactly (no
// approximations, no clipping):
//
//   - [Beta]: u ~ Beta(a, b) on [0, 1] (gonum distuv.Beta, Src = the rng).
//   - [BetaSin]: density on [0, 1]
//     f(u) ∝ Beta(a,b).pdf(u) · (1 + A·sin(2π·F·u)), by default a = 2, b = 5,
//     A = 0.5, F = 10; sampled by rejection from Beta(a, b) with acceptance
//     probability (1 + A·sin(2π·F·u)) / (1 + |A|).
//   - [TruncNormal]: N(μ, σ) truncated to [lo, hi] by rejection, which keeps
//     the truncated-normal law (clipping would put atoms at lo and hi).
//   - [Uniform]: uniform on [lo, hi].
//
// # Normalisation
//
// Three rules map raw values x to [-1, 1], each the rule of one or more of
// the papers:
//
//   - "fixed": 2(x − lo)/(hi − lo) − 1 with a-priori bounds; for synthetic
//     data the generator's range (Beta: [0, 1], so x = 2u − 1); values outside
//     [lo, hi] are an error unless Clip is set, which clips them first.
//   - "minmax": the same map with lo, hi = the data's own min and max (paper
//     000 for real data, 004 also for synthetic Beta(2,5)).
//   - "none": values are used as they are and must already lie in [-1, 1].
//
// # Specs and the catalogue
//
// A [Spec] describes a dataset as a TOML table (decoded by the harness with
// github.com/BurntSushi/toml), validates it with errors naming the offending
// key, and builds it with [Spec.Build]. [Catalogue] lists the named datasets
// of `ldpbench list datasets`; [Lookup] finds one by name.
//
// # Grouped data
//
// Paper 002 (group means under LDP) needs each user's group with a raw value
// on a fixed a-priori range: a [Grouped] dataset, whose Sizes and Means are
// the truth n_g and m_g on the raw values and whose Scaled writes
// T(x) = 2(x − lo)/(hi − lo) − 1, x clipped to [lo, hi] (App. C). Three
// sources:
//
//   - [SyntheticGrouped]: the paper's uniform, normal (σ = 0.2(hi − lo)/d,
//     ERRATA E2.3, clipped), constant and extremum shapes, group means
//     [GroupMean], sizes from [EqualSizes] or [ImbalancedSizes], rows
//     permuted; one seed gives affine images on every range.
//   - a file with group_column: a categorical column's labels, sorted,
//     become the groups of [Dataset.Groups] and [Dataset.GroupLabels]; the
//     values stay raw and [Dataset.Grouped] scales them with the spec's
//     fixed lo, hi (never the data's min and max).
//   - source "standin": labelled stand-ins for the access-restricted
//     MIMIC-IV groups ([Standins]): the printed group sizes and category
//     names with synthetic ages; always marked Substitute.
//
// # Files
//
// [LoadColumn] streams one numeric column of a CSV or whitespace-separated
// file. [Find] locates a data file by name in $LDPBENCH_DATA, data/,
// ../shared/data/ and the same two directories beside the module root.
// ../shared/data/ exists only beside a developer checkout; setting
// $LDPBENCH_NO_SHARED ([EnvNoShared]) to any non-empty value stops Find
// from looking there, so that a developer (and CI, which runs `make test`
// with LDPBENCH_NO_SHARED=1) sees what a user's clone sees.
//
// # Test fixtures
//
// Tests never depend on ../shared/data. Package datatest generates small
// stand-ins for the real files the loaders read (magic04.data,
// shuttle.tst) in their formats, deterministically, and points
// $LDPBENCH_DATA at them (datatest.Use); the tests of the loaders and of
// the shipped specs over those files run on them. Checks of a real file's
// own numbers skip, naming the file and `make data`, when it is absent.
package datasets
