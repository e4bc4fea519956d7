package harness

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ldpbench/ldpbench/external"
)

// ExternalMechanism is one [[mechanisms]] entry of a spec: a program that
// speaks the protocol of docs/external.md, named like a registered
// mechanism for the duration of a run.
type ExternalMechanism struct {
	// Name is the registry name that methods (and "*") use.
	Name string `toml:"name" json:"name"`
	// Command is the program and its arguments, run as given, without a
	// shell, in the working directory of ldpbench: a relative path is
	// relative to where ldpbench runs (as a dataset's path is), not to
	// the spec file.
	Command []string `toml:"command" json:"command"`
	// Timeout bounds each request, as a Go duration ("90s", "5m");
	// default 60s. It changes no row, so it is not part of the hash.
	Timeout string `toml:"timeout" json:"-"`
}

// externalName is what an external mechanism's name may be: a registry
// name (mechanisms.Register).
var externalName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// validateExternal checks the [[mechanisms]] entries on their own; whether
// a name is taken is known when they are registered.
func (s *Spec) validateExternal() error {
	seen := map[string]int{}
	for i, m := range s.Mechanisms {
		key := fmt.Sprintf("mechanisms[%d]", i)
		if m.Name == "" {
			return s.errorf(key+".name", "is required")
		}
		if !externalName.MatchString(m.Name) {
			return s.errorf(key+".name", "%q: a mechanism's name is lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", m.Name)
		}
		if j, ok := seen[m.Name]; ok {
			return s.errorf(key+".name", "%q is mechanisms[%d].name again", m.Name, j)
		}
		seen[m.Name] = i
		if len(m.Command) == 0 || m.Command[0] == "" {
			return s.errorf(key+".command", "is required: the program and its arguments, e.g. [\"python3\", \"examples/python/piecewise.py\"]")
		}
		for j, a := range m.Command {
			if strings.ContainsFunc(a, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return s.errorf(fmt.Sprintf("%s.command[%d]", key, j), "%q holds a control character", a)
			}
		}
		if _, err := m.timeout(); err != nil {
			return s.errorf(key+".timeout", "%v", err)
		}
	}
	return nil
}

func (m ExternalMechanism) timeout() (time.Duration, error) {
	if m.Timeout == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(m.Timeout)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a positive Go duration such as \"90s\" or \"5m\"", m.Timeout)
	}
	return d, nil
}

// startExternal starts the spec's external mechanisms, at most procs
// processes each, and registers them; stop unregisters them and ends their
// processes. With start false the names are registered without starting
// anything (for Merge, which only plans): building such a mechanism is an
// error.
func startExternal(ctx context.Context, s *Spec, procs int, start bool) (stop func() error, err error) {
	var undo []func() error
	stop = func() error {
		var errs []error
		for i := len(undo) - 1; i >= 0; i-- {
			errs = append(errs, undo[i]())
		}
		undo = nil
		return errors.Join(errs...)
	}
	for i, m := range s.Mechanisms {
		key := fmt.Sprintf("mechanisms[%d]", i)
		if external.Taken(m.Name) {
			stop()
			return nil, s.errorf(key+".name", "%q is taken by a registered mechanism: name the program otherwise", m.Name)
		}
		timeout, _ := m.timeout() // validated
		cfg := external.Config{Name: m.Name, Command: m.Command, Timeout: timeout, MaxProcs: procs}
		if !start {
			unregister, err := external.RegisterName(cfg)
			if err != nil {
				stop()
				return nil, s.errorf(key+".name", "%v", err)
			}
			undo = append(undo, func() error { unregister(); return nil })
			continue
		}
		end, err := external.Register(ctx, cfg)
		if err != nil {
			stop()
			return nil, fmt.Errorf("%s: key %q: %w", s.where(), key, err)
		}
		undo = append(undo, end)
	}
	return stop, nil
}
