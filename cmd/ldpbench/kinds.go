package main

import (
	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/kinds/central"
	"github.com/ldpbench/ldpbench/kinds/dist"
	"github.com/ldpbench/ldpbench/kinds/fl"
	"github.com/ldpbench/ldpbench/kinds/groupmean"
	"github.com/ldpbench/ldpbench/kinds/mean"
	"github.com/ldpbench/ldpbench/kinds/multiservice"
)

// kinds lists every experiment kind the command runs: a spec's kind key
// names one of them. A new kind is a package under kinds/ and one line here.
var kinds = experiment.Registry{
	mean.Mean{},         // mean: one-dimensional mean estimation
	mean.HT{},           // mean-ht: with per-record dimension sampling (Baek & Chung)
	mean.MD{},           // mean-md: multi-dimensional, Algorithms 5-6 (Zhao et al.)
	mean.Theory{},       // theory: closed forms, no sampling
	multiservice.Kind{}, // multiservice: Du et al., "Privacy for Free"
	multiservice.MD{},   // multiservice-md: its d-dimensional experiment
	groupmean.Kind{},    // groupmean: group means, group and value private (Raab et al.)
	central.Kind{},      // central-mean: central DP, add-remove model (Kulesza et al.)
	fl.Kind{},           // fl: federated learning with LDP gradients (Zhao et al.; Baek & Chung Fig. 5)
	dist.Kind{},         // noutput-dist: distribution, variance, deciles (Baek & Chung Fig. 4)
}
