package fl

import (
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/fedlearn"
)

// TrialCost implements experiment.CostEstimator: what one trial computes,
// in model coordinates touched (a gradient, an update, a report or a
// prediction of d coordinates is d), from the table's size, not from n
// (kind fl takes n = 1 and reads the whole table):
//
//   - clients: clientsCost, the whole training run of params.rounds
//     rounds (whichever round the cell reads: the cells of one run share
//     it, CostShareKey);
//   - erm: one pass over the rows, gradient and report, then the test
//     fold: rows × the model's dimension;
//   - mean: every row reports its numeric attributes: rows × d_n.
//
// It is 0 (the harness then takes n × dimension) when the table cannot be
// loaded: Check reports that.
func (Kind) TrialCost(c *experiment.CellSpec) float64 {
	td, err := loadTable(c.Dataset.Name)
	if err != nil {
		return 0
	}
	tab := td.tab
	rows := tab.Rows()
	switch task(c) {
	case TaskClients:
		m, err := fedlearn.NewMultinomial(tab.P, max(len(tab.Classes), 2))
		if err != nil {
			return 0
		}
		proto := fedlearn.BaekChung(m, nil)
		proto.Rounds = c.Params.Int("rounds", proto.Rounds)
		return clientsCost(proto, rows)
	case TaskMean:
		dn := tab.Numeric
		if td.yReg != nil {
			dn++
		}
		return float64(rows) * float64(dn)
	}
	model, err := fedlearn.NewModel(c.Params.String("model", "logistic"), tab.P, c.Params.Bool("intercept", true), 0)
	if err != nil {
		return 0
	}
	return float64(rows) * float64(model.Dim())
}

// clientsCost is the cost of one training run of Baek & Chung's protocol
// on a table of rows rows, 80 % of them for training (prepareClients): in
// each of Rounds rounds, PerRound clients run Epochs epochs over their
// shard of train/Clients rows (a gradient of d coordinates per row), and
// the test rows are scored once (d per row).
func clientsCost(c fedlearn.Clients, rows int) float64 {
	d := float64(c.Model.Dim())
	test := float64(rows) * 0.2
	train := float64(rows) - test
	shard := train / float64(c.Clients)
	perRound := float64(c.PerRound)*float64(c.Epochs)*shard*d + test*d
	return float64(c.Rounds) * perRound
}

// CostShareKey implements experiment.CostSharer: the clients cells that
// differ only in params.round read one training run per trial (their
// TrialKey, under which Trial memoises the run's accuracy curve); the
// other tasks share nothing.
func (Kind) CostShareKey(c *experiment.CellSpec) string {
	if task(c) != TaskClients {
		return ""
	}
	return Kind{}.TrialKey(c)
}
