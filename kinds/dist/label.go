package dist

// methodLabels are Baek & Chung's names of the distribution estimators
// (§5, Fig. 4): HM-NP with its two-phase EM, and the frequency oracles.
var methodLabels = map[string]string{"hm-np": "HM-NP + 2PEM", "de": "DE", "oue": "OUE"}

// MethodLabel implements experiment.MethodLabeler; a method named after a
// registered mechanism keeps that mechanism's label.
func (Kind) MethodLabel(method string) (string, bool) {
	l, ok := methodLabels[method]
	return l, ok
}
