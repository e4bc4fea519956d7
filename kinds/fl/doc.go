// Package fl holds kind fl: models trained by federated learning with
// locally private gradients or updates (package fl), and the real-data
// mean panels of the same paper.
//
//	task     serves
//	erm      Zhao et al. (IEEE IoT J.) Figs 8 (logistic regression,
//	         misclassification vs ε), 9 (linear regression, test MSE),
//	         10 (SVM on Vehicle), 12–13 (discretised, ε = 4), 14–15 (vs
//	         output levels): LDP-FedSGD (Algorithm 1), one pass over the
//	         training users, 10-fold cross-validation repeated 5 times
//	         (trial t is fold t mod 10 of repeat ⌊t/10⌋; every method sees
//	         the same folds)
//	clients  Baek & Chung (N-output paper) Fig. 5: federated averaging of
//	         multinomial logistic regression on MAGIC Gamma and Shuttle, test
//	         accuracy after each round (params.round); the cells of one
//	         configuration that differ in round share their runs
//	mean     Zhao et al. Fig. 6: mean estimation of a table's numeric
//	         attributes at the numeric share of ε (Section VII-A), exact
//	         theory
//
// Data: the [[datasets]] entry's name selects the table of
// datasets.LoadTable (gamma, shuttle, vehicle, wisdm, ipums-br-standin,
// ipums-mx-standin); the entry itself only gives the harness a dataset of
// one row: a file source on the same file for gamma and shuttle, on the
// plain-text copy `make data` unpacks for vehicle and wisdm (so that a
// missing file is skipped with a message, as everywhere), a placeholder
// for the synthetic stand-ins. Check refuses a cell whose table file is
// absent with an error naming the file and `make data`. Every task uses the whole table: axes.n must be
// [1] (the column n of rows.csv then reads 1). Zhao et al.'s tasks map numeric features and
// a numeric response by min–max onto [−1, 1] (categorical attributes are
// binarised to ±1); a binary label is class 1 (h for Gamma, class 1 of
// Vehicle) or "income above its median" for the IPUMS stand-ins. Baek &
// Chung's task standardises on the training part of an 80/20 split.
//
// Methods (described once in Methods: ldpbench list kinds -v,
// docs/kinds.md): non-private, duchi, laplace and any registered 1-D
// mechanism through Algorithm 6. For task clients, params.compat = true
// reproduces the authors' code (E0.27).
//
// Unstated parameters (ERRATA E3.17) are params with documented defaults:
// eta 0.1, group 1,000, clip 1, lambda 1e-4, theta0 0, intercept true,
// folds 10, repeats 5 (a spec that sets them records them in every row's
// params column; docs/fl.md lists the defaults).
//
// Metrics: misclassification_rate and accuracy (classifiers), test_mse
// (linear regression), accuracy (clients), mse (mean; with exact theory).
package fl
