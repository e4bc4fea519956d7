package experiment

import (
	"fmt"
	"slices"
	"strings"
)

// Registry is the list of kinds a program knows, in the order given.
type Registry []Kind

// Lookup returns the kind named name; the error lists the valid names.
func (r Registry) Lookup(name string) (Kind, error) {
	for _, k := range r {
		if k.Name() == name {
			return k, nil
		}
	}
	return nil, fmt.Errorf("unknown kind %q (valid: %s)", name, strings.Join(r.Names(), ", "))
}

// Names returns the names of the kinds, sorted.
func (r Registry) Names() []string {
	names := make([]string, len(r))
	for i, k := range r {
		names[i] = k.Name()
	}
	slices.Sort(names)
	return names
}

// Methods returns the methods of a spec's method axis: methods as given, or
// every method of the kind when methods is ["*"] and the kind is a
// MethodLister.
func Methods(k Kind, methods []string) []string {
	if len(methods) == 1 && methods[0] == "*" {
		if l, ok := k.(MethodLister); ok {
			return l.AllMethods()
		}
	}
	return methods
}
