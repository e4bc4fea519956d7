// Package dist is kind noutput-dist: distribution, variance and decile
// estimation from ε-LDP reports, Baek & Chung's Figure 4 (PVLDB 2025,
// Sec. 5.2; 2PEM of Sec. 4.2).
//
// A cell is one dataset, one method, one ε. A trial keeps each of the n
// records with probability 1/dim (the paper's dimension sampling: one
// attribute of dim, k = 1; Beta 10, Voltage 9, NYtaxi 19), the kept
// records report at the full ε, and the collector estimates the histogram
// over `bins` (1024) equal bins of [-1, 1], by the method: HM-NP with
// 2PEM, the frequency oracles DE and OUE, or EM on a mechanism's exact
// transition matrix (described once in Methods: ldpbench list kinds -v,
// docs/kinds.md).
//
// Figure 4 maps onto the metrics (rows of the paper's 3×3 grid; one spec per
// dataset, runs/noutput-fig4*.toml, because n and dim differ):
//
//	w1                   Wasserstein-1 on the data grid (ERRATA E0.2: the
//	                     correct distance between the distributions)
//	w1-authors           the authors' plotted quantity (mean |difference| of
//	                     the sorted bin probabilities), for their magnitudes
//	var-mse              squared error of the variance; var-rmse is derived
//	quantile-mse-centre  squared error of the 9 deciles at bin centres,
//	                     averaged over the deciles (E0.3); quantile-rmse-centre
//	                     derived
//
// The truth is the same statistic of the true histogram of all n records
// in the same bins: the plain variance Σp c² − (Σp c)² and the first bin
// centre whose cumulative mass reaches q. With params.var_rule = "paper"
// (default) HM-NP's variance is the authors' rule Σπ̂ c² − m̂², m̂ the
// Horvitz–Thompson mean of the HM-NP reports (dim/n times their sum), and
// its truth Σp c² − μ², μ the data mean; the other methods use the plain
// rule. "plain" uses the plain rule everywhere.
//
// Also recorded: em_iterations (2PEM: both phases; 0 for de and oue, which
// have no EM), em_stop_max_iter (1 if
// an EM phase hit its cap, 10,000), reporting (the fraction of records kept;
// theory 1/dim). No other metric has a theory.
package dist
