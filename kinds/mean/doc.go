// Package mean holds the experiment kinds of one- and multi-dimensional mean
// estimation under ε-LDP, and the closed-form theory of the mechanisms:
//
//	kind      type    serves
//	mean      Mean    runs/mean-synthetic.toml: every mechanism's MSE beside
//	                  its exact theory (1/n²)·Σ Var(Y | xᵢ)
//	mean-ht   HT      Baek & Chung (N-output) Fig. 3 and the Voltage panel:
//	                  runs/noutput-mean*.toml (per-record dimension sampling;
//	                  methods aaa and np-aaa, the two-phase protocols of
//	                  package aaa, with the subset mean: ht_aaa.go)
//	mean-md   MD      Zhao et al. Figs 6, 7, 11, 14 (multi-dimensional data,
//	                  Algorithm 6) and the discretised reports of Algorithm 5:
//	                  runs/zhao-synthetic.toml, runs/zhao-discretize.toml
//	theory    Theory  closed forms, no sampling: Zhao et al. Figs 1, 3, 5
//	                  (runs/zhao-worst-case.toml, zhao-fig3.toml,
//	                  zhao-fig5.toml), Baek & Chung Fig. 2 and Tables 1–2
//	                  (runs/noutput-theory.toml, noutput-tables.toml)
//
// The mechanisms are those of package mechanisms, by registry name; every
// kind here accepts the method "*" (experiment.MethodLister). The per-paper
// detail is in docs/noutput.md, docs/aaa.md and docs/zhao.md.
package mean
