package mechanisms_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// TestRegister: a registered mechanism is found by Names, Lookup and New
// like a built-in one, and gone after unregister; a taken, empty or
// malformed name and a nil constructor are refused. Catches a Register
// that shadows a built-in and an unregister that removes the wrong entry.
func TestRegister(t *testing.T) {
	before := mechanisms.Names()
	info := mechanisms.Info{Name: "test-pm-copy", Summary: "pm under another name", New: func(eps float64) (mechanisms.Mechanism, error) {
		return mechanisms.NewPM(eps)
	}}
	unregister, err := mechanisms.Register(info)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(mechanisms.Names(), "test-pm-copy") {
		t.Fatalf("Names() lacks the registered name: %v", mechanisms.Names())
	}
	m, err := mechanisms.New("test-pm-copy", 1)
	if err != nil || m.Epsilon() != 1 {
		t.Fatalf("New: %v, %v", m, err)
	}
	for _, bad := range []mechanisms.Info{
		{Name: "pm", New: info.New},
		{Name: "test-pm-copy", New: info.New},
		{Name: "", New: info.New},
		{Name: "Has Space", New: info.New},
		{Name: "no-constructor"},
	} {
		if _, err := mechanisms.Register(bad); err == nil {
			t.Errorf("Register(%q) accepted", bad.Name)
		} else if strings.HasPrefix(bad.Name, "test-") && !errors.Is(err, mechanisms.ErrNameTaken) {
			t.Errorf("Register(%q): %v, want ErrNameTaken", bad.Name, err)
		}
	}
	unregister()
	unregister() // twice is harmless
	if got := mechanisms.Names(); !slices.Equal(got, before) {
		t.Errorf("after unregister: %v, want %v", got, before)
	}
	if _, err := mechanisms.New("test-pm-copy", 1); err == nil {
		t.Error("New finds an unregistered mechanism")
	}
}
