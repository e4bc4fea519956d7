// Package estimators holds the aggregator side: what a collector computes
// from the reports it receives (means now; UA/UWA, EM/EMS/ULE, group means
// and central estimators as the papers are added), and the exact theory of
// each estimator's error.
//
// It may import mechanisms; it never imports the harness.
package estimators
