package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/ldpbench/ldpbench/mechanisms"
)

// externalSpecTail declares an external mechanism (appended to goodSpec).
const externalSpecTail = `
[[mechanisms]]
name = "my-pm"
command = ["python3", "examples/python/piecewise.py"]
timeout = "90s"
`

// TestExternalSpecKeys: the [[mechanisms]] entries are validated and
// named in the errors, unknown keys in them are refused, and the hash
// covers a mechanism's name and command but not its timeout (nor changes
// for a spec without any).
func TestExternalSpecKeys(t *testing.T) {
	body := goodSpec + externalSpecTail
	s, err := LoadSpec(writeSpec(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Mechanisms) != 1 || s.Mechanisms[0].Name != "my-pm" || len(s.Mechanisms[0].Command) != 2 {
		t.Fatalf("Mechanisms = %+v", s.Mechanisms)
	}
	for _, tt := range []struct{ name, from, to, want string }{
		{"unknown key", `timeout = "90s"`, `comand = ["x"]`, `"mechanisms.comand"`},
		{"no command", `command = ["python3", "examples/python/piecewise.py"]`, ``, `key "mechanisms[0].command": is required`},
		{"empty command", `command = ["python3", "examples/python/piecewise.py"]`, `command = []`, `key "mechanisms[0].command": is required`},
		{"command a string", `command = ["python3", "examples/python/piecewise.py"]`, `command = "python3 m.py"`, `key "mechanisms.command": want an array, got a string`},
		{"bad timeout", `timeout = "90s"`, `timeout = "soon"`, `key "mechanisms[0].timeout": "soon"`},
		{"negative timeout", `timeout = "90s"`, `timeout = "-1s"`, `key "mechanisms[0].timeout"`},
		{"bad name", `name = "my-pm"`, `name = "My PM"`, `key "mechanisms[0].name": "My PM"`},
		{"no name", `name = "my-pm"`, ``, `key "mechanisms[0].name": is required`},
		{"control character", `"examples/python/piecewise.py"`, `"m.py\u001b"`, `key "mechanisms[0].command[1]"`},
		{"twice", `timeout = "90s"`, "[[mechanisms]]\nname = \"my-pm\"\ncommand = [\"x\"]", `"my-pm" is mechanisms[0].name again`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := strings.Replace(body, tt.from, tt.to, 1)
			if b == body {
				t.Fatal("the case did not change the spec")
			}
			_, err := LoadSpec(writeSpec(t, b))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one with %s", err, tt.want)
			}
		})
	}
	h := s.Hash()
	c := *s
	c.Mechanisms = []ExternalMechanism{{Name: "my-pm", Command: []string{"python3", "elsewhere/piecewise.py"}, Timeout: "90s"}}
	if c.Hash() == h {
		t.Errorf("the hash does not change with the command")
	}
	c.Mechanisms = []ExternalMechanism{{Name: "my-pm2", Command: s.Mechanisms[0].Command, Timeout: "90s"}}
	if c.Hash() == h {
		t.Errorf("the hash does not change with the name")
	}
	c.Mechanisms = []ExternalMechanism{{Name: "my-pm", Command: s.Mechanisms[0].Command, Timeout: "5s"}}
	if c.Hash() != h {
		t.Errorf("the hash changes with the timeout")
	}
	plain, err := LoadSpec(writeSpec(t, goodSpec))
	if err != nil {
		t.Fatal(err)
	}
	c = *s
	c.Mechanisms = nil
	if c.Hash() != plain.Hash() {
		t.Errorf("a spec without [[mechanisms]] hashes differently from before")
	}
}

// TestExternalNames: a name taken by a registered mechanism is refused
// before any program is started, and a program that cannot start is an
// error naming the key; nothing stays registered after either.
func TestExternalNames(t *testing.T) {
	s, err := LoadSpec(writeSpec(t, goodSpec+strings.Replace(externalSpecTail, `"my-pm"`, `"pm"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startExternal(context.Background(), s, 1, true); err == nil || !strings.Contains(err.Error(), `key "mechanisms[0].name": "pm" is taken`) {
		t.Errorf("%v, want the name refused", err)
	}
	s.Mechanisms[0] = ExternalMechanism{Name: "absent-x", Command: []string{t.TempDir() + "/absent"}}
	if _, err := startExternal(context.Background(), s, 1, true); err == nil || !strings.Contains(err.Error(), `key "mechanisms[0]": external mechanism "absent-x"`) {
		t.Errorf("%v, want the start refused", err)
	}
	stop, err := startExternal(context.Background(), s, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	// Registered for planning only: the name is known, building it fails.
	if _, err := newMechanism("absent-x"); err == nil || !strings.Contains(err.Error(), "not started here") {
		t.Errorf("a placeholder built: %v", err)
	}
	stop()
	if _, err := newMechanism("absent-x"); err == nil || !strings.Contains(err.Error(), "unknown mechanism") {
		t.Errorf("still registered after stop: %v", err)
	}
}

func newMechanism(name string) (any, error) { return mechanisms.New(name, 1) }
