package mean

// MethodLabel implements experiment.MethodLabeler for the mean-ht kind's
// two protocols (Baek & Chung §4.3); its other methods are registered
// mechanisms, labelled as such.
func (HT) MethodLabel(method string) (string, bool) {
	switch method {
	case "aaa":
		return "AAA", true
	case "np-aaa":
		return "NP-AAA", true
	}
	return "", false
}
