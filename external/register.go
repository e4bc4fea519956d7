package external

import (
	"context"
	"fmt"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// Taken reports whether name is in the mechanisms registry already.
func Taken(name string) bool {
	_, ok := mechanisms.Lookup(name)
	return ok
}

// Register starts the program and registers its mechanism under
// cfg.Name, as a spec's [[mechanisms]] entry is for the duration of a run;
// stop unregisters it and closes the program (Close's error).
func Register(ctx context.Context, cfg Config) (stop func() error, err error) {
	if Taken(cfg.Name) {
		return nil, fmt.Errorf("external mechanism %q: %w", cfg.Name, mechanisms.ErrNameTaken)
	}
	p, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	unregister, err := mechanisms.Register(p.Info())
	if err != nil {
		p.Close()
		return nil, err
	}
	return func() error { unregister(); return p.Close() }, nil
}

// RegisterName registers cfg.Name without starting the program, for a
// caller that only plans (the names "*" expands to): building the
// mechanism is an error.
func RegisterName(cfg Config) (unregister func(), err error) {
	return mechanisms.Register(mechanisms.Info{
		Name:    cfg.Name,
		Summary: "external (not started)",
		New: func(float64) (mechanisms.Mechanism, error) {
			return nil, fmt.Errorf("external mechanism %q is not started here", cfg.Name)
		},
	})
}

// ErrNameTaken is wrapped by Register's error for a name already
// registered.
var ErrNameTaken = mechanisms.ErrNameTaken
