package groupmean

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/mechanisms"
	"github.com/ldpbench/ldpbench/mechanisms/group"
)

// baseMethods are the method names the kind takes, besides "value:<name>"
// (any registered 1-D mechanism as the value mechanism).
var baseMethods = []string{"laplace", "bernoulli", "nprr", "pw"}

// optionKeys are the group mechanism's options, which a method name may
// carry inline ("nprr(k=16)", "pw(split=ratio:0.3)") or the params axis may
// give for every method: inline options let one spec compare NPRR at three
// k beside the other methods (E3) without a cross product.
var optionKeys = []string{"k", "neutral", "split", "ratio"}

// methodConfig parses a method name with its inline options and merges the
// params axis' options into a group.Config at budget eps with d groups.
// An option given both inline and as a parameter is an error, as is an
// option the method does not take.
func methodConfig(method string, eps float64, d int, p experiment.Params) (group.Config, error) {
	name, inline, err := splitMethod(method)
	if err != nil {
		return group.Config{}, err
	}
	cfg := group.Config{Eps: eps, D: d}
	switch {
	case strings.HasPrefix(name, "value:"):
		cfg.Method = "value"
		cfg.Value = strings.TrimPrefix(name, "value:")
		if _, ok := mechanisms.Lookup(cfg.Value); !ok {
			return cfg, fmt.Errorf("method %q: no registered mechanism %q (known: %s)", method, cfg.Value, strings.Join(mechanisms.Names(), ", "))
		}
		// The capabilities do not depend on ε: a budget the mechanism
		// refuses is reported where it is built, at its share ε2.
		if m, err := mechanisms.New(cfg.Value, eps); err == nil {
			if err := valueNeeds.Check(Kind{}.Name(), m); err != nil {
				return cfg, err
			}
		}
	case contains(baseMethods, name):
		cfg.Method = name
	default:
		return cfg, fmt.Errorf("method %q: unknown; want one of %s or value:<mechanism>, optionally with options as in nprr(k=16)", method, strings.Join(baseMethods, ", "))
	}
	takes := map[string][]string{
		"laplace": nil, "bernoulli": nil,
		"nprr": {"k", "neutral"}, "pw": {"split"}, "value": {"ratio"},
	}[cfg.Method]
	opts := map[string]string{}
	for k, v := range inline {
		if !contains(takes, k) {
			return cfg, fmt.Errorf("method %q: option %q does not apply to %s (it takes %s)", method, k, cfg.Method, describe(takes))
		}
		if p.Has(k) {
			return cfg, fmt.Errorf("method %q: option %q is also set by axes.params.%s; give it once", method, k, k)
		}
		opts[k] = v
	}
	for _, k := range takes {
		if _, ok := opts[k]; !ok && p.Has(k) {
			opts[k] = p.String(k, "")
		}
	}
	for k, v := range opts {
		switch k {
		case "k":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1<<16 {
				return cfg, fmt.Errorf("method %q: k = %q: want a whole number in [1, 65536]", method, v)
			}
			cfg.K = n
		case "neutral":
			cfg.Neutral = v
		case "split":
			// A bare number r is ratio:r, so that a spec's split axis is
			// numeric (a figure's x, a table's columns).
			if r, err := strconv.ParseFloat(v, 64); err == nil {
				v = "ratio:" + strconv.FormatFloat(r, 'g', -1, 64)
			}
			cfg.Split = v
		case "ratio":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || !(r > 0 && r < 1) {
				return cfg, fmt.Errorf("method %q: ratio = %q: want a number in (0, 1)", method, v)
			}
			cfg.Ratio = r
		}
	}
	return cfg, nil
}

// splitMethod splits "name(k1=v1,k2=v2)" into its name and options.
func splitMethod(method string) (string, map[string]string, error) {
	open := strings.IndexByte(method, '(')
	if open < 0 {
		return method, nil, nil
	}
	if !strings.HasSuffix(method, ")") || open == 0 {
		return "", nil, fmt.Errorf("method %q: want name(key=value,...)", method)
	}
	opts := map[string]string{}
	for _, kv := range strings.Split(method[open+1:len(method)-1], ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return "", nil, fmt.Errorf("method %q: option %q: want key=value", method, kv)
		}
		if !contains(optionKeys, k) {
			return "", nil, fmt.Errorf("method %q: unknown option %q (options: %s)", method, k, strings.Join(optionKeys, ", "))
		}
		if _, dup := opts[k]; dup {
			return "", nil, fmt.Errorf("method %q: option %q given twice", method, k)
		}
		opts[k] = v
	}
	return method[:open], opts, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func describe(keys []string) string {
	if len(keys) == 0 {
		return "no options"
	}
	return strings.Join(keys, ", ")
}
