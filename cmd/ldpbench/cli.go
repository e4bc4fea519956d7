package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/harness"
)

// A command is one of ldpbench's subcommands. Its usage line, its
// sentence and its flags are its whole documentation: the top-level usage,
// `ldpbench help CMD`, `ldpbench CMD -h`, doc.go and the README's command
// list are all this (doc_test.go keeps the last two equal to it).
type command struct {
	name    string
	args    string // what follows the name in the usage line
	summary string // one sentence, lower case, no final full stop
	more    string // further help after the sentence ("" for none)
	run     func(ctx context.Context, c *cli, args []string) error
}

// commands are ldpbench's subcommands, in the order the usage lists them
// (help, handled by dispatch itself, comes last). They are set in init:
// their functions look them up for their help.
var commands []command

func init() {
	commands = []command{
		{"run", "[flags] SPEC...", "run specs (a TOML file, or a name in runs/ or among the shipped specs) into out/<name>/", runMore, cmdRun},
		{"plot", "[flags] SPEC|DIR", "re-draw a finished run's figures and tables from its summary", "", cmdPlot},
		{"plan", "[flags] SPEC", "estimate a spec's trials, CPU and wall time, and the shards that bring it under an hour", "", cmdPlan},
		{"merge", "OUT SHARD_DIR...", "join the directories of 'run --shard i/N' into what one run would have written", "", cmdMerge},
		{"regress", "[flags] DIR", "check a finished run against its theory and its baseline (exit 1 if a cell moved)", "", cmdRegress},
		{"compare", "[flags] DIR", "recompute a finished run's claims.csv, the paper's stated ranges beside the measured ones", "", cmdCompare},
		{"times", "[--csv|--iterations] DIR...", "print what finished runs cost: their wall and CPU time, as each recorded it (times.csv); --iterations: their EM iterations, the record plan reads", "", cmdTimes},
		{"report", "[DIR...] [--out FILE]", "write a static HTML page per finished run and an index of them (default: every run under out/)", "", cmdReport},
		{"audit", "[flags]", "measure each mechanism's ε from its law (exit 1 under --strict if one exceeds its claim)", auditMore, cmdAudit},
		{"theory", "[flags]", "print each mechanism's worst-case variance at each ε, as CSV", "", cmdTheory},
		{"list", "[-v] mechanisms|datasets|specs|kinds", "list the registered mechanisms, the datasets, the specs or the experiment kinds", "", cmdList},
		{"version", "", "print the module version, VCS revision, modified flag and Go version", "", cmdVersion},
	}
}

// helpCommand is dispatch's own; it is listed with the others.
var helpCommand = command{name: "help", args: "[COMMAND]", summary: "print this usage, or a command's usage and flags"}

const (
	runMore = `With one SPEC it prints the run's cells, files and claims, and its log on
stderr. With several (make figures) it prints one line per spec, writes
each spec's log to out/<name>/run.log, and ends with a summary and
out/index.md, which names each spec's paper figure and its files.

Exit status: 0 when every spec ran or was skipped for data not fetched
(make data), 2 otherwise.`
	auditMore = `Results go to DIR/audit.csv, DIR/audit.png and DIR/audit.svg. A violation
is a finding to read (the paper's Group NPRR is one, erratum E2.1), so the
exit status is 0 whatever the verdicts; with --strict (for CI) a violation
by a mechanism not marked as a known erratum exits 1, after the files are
written.`
)

func lookupCommand(name string) (command, bool) {
	if name == helpCommand.name {
		return helpCommand, true
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		return command{}, false
	}
	return commands[i], true
}

// usageLine is a command's synopsis: "ldpbench run [flags] SPEC...".
func (c command) usageLine() string {
	return strings.TrimSpace("ldpbench " + c.name + " " + c.args)
}

// topUsage is the text of `ldpbench help`: one line per command.
func topUsage() string {
	var b strings.Builder
	b.WriteString("ldpbench runs, re-draws and checks experiments of numerical local\ndifferential privacy.\n\n")
	b.WriteString("Usage:\n\n\tldpbench <command> [flags] [arguments]\n\nThe commands are:\n\n")
	for _, c := range append(slices.Clone(commands), helpCommand) {
		fmt.Fprintf(&b, "\t%-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'ldpbench help <command>' for a command's usage and flags.\n")
	return b.String()
}

// cli is what a command runs with.
type cli struct {
	kinds          experiment.Registry
	shipped        fs.FS // the specs found by name when no runs/ is at hand
	stdout, stderr io.Writer
}

// errFound is matched (errors.Is) by the errors of a check that ran and
// found something (regress: a cell moved; audit --strict: a violation):
// exit 1. Every other error is a usage or run error: exit 2.
var errFound = errors.New("the check found a problem")

// findingError is the error of a check that found something: its own
// message, and errors.Is(err, errFound).
type findingError struct{ msg string }

func findingf(format string, args ...any) error {
	return &findingError{fmt.Sprintf(format, args...)}
}

func (e *findingError) Error() string        { return e.msg }
func (e *findingError) Is(target error) bool { return target == errFound }

// errUsagePrinted is a usage error whose usage is printed already: exit 2,
// nothing more to say.
var errUsagePrinted = errors.New("no command")

// A usageError is a command called wrongly: a flag error or the wrong
// arguments. It is printed with the command's usage line.
type usageError struct {
	cmd string
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(cmd, format string, args ...any) error {
	return &usageError{cmd, fmt.Errorf(format, args...)}
}

// dispatch runs the command that args name.
func dispatch(ctx context.Context, c *cli, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, topUsage())
		return errUsagePrinted
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) == 0 {
			fmt.Fprint(c.stdout, topUsage())
			return nil
		}
		cmd, ok := lookupCommand(args[0])
		if !ok || len(args) > 1 {
			return &unknownCommandError{strings.Join(args, " ")}
		}
		if cmd.run == nil {
			fmt.Fprint(c.stdout, topUsage())
			return nil
		}
		return cmd.run(ctx, c, []string{"-h"})
	}
	cmd, ok := lookupCommand(name)
	if !ok || cmd.run == nil {
		return &unknownCommandError{name}
	}
	return cmd.run(ctx, c, args)
}

type unknownCommandError struct{ name string }

func (e *unknownCommandError) Error() string {
	return fmt.Sprintf("unknown command %q", e.name)
}

// exitCode maps a command's error to the process's exit status: 0 ok
// (help included), 1 a check found something, 2 a usage or run error.
func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errFound):
		return 1
	}
	return 2
}

// printError writes err as `go` does: once, and for a usage error with the
// command's usage line and where to read more.
func printError(w io.Writer, err error) {
	var ue *usageError
	var uc *unknownCommandError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), err == errUsagePrinted:
	case errors.As(err, &uc):
		fmt.Fprintf(w, "ldpbench %s: unknown command\nRun 'ldpbench help' for usage.\n", uc.name)
	case errors.As(err, &ue):
		cmd, _ := lookupCommand(ue.cmd)
		fmt.Fprintf(w, "ldpbench %s: %v\nusage: %s\nRun 'ldpbench help %s' for details.\n", ue.cmd, ue.err, cmd.usageLine(), ue.cmd)
	default:
		fmt.Fprintf(w, "ldpbench: %v\n", err)
	}
}

// flags returns the flag set of the command name. It prints nothing
// itself: parse prints the help, printError the errors.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses flags that may stand before, between or after the
// positional arguments, and returns the positional ones. -h prints the
// command's help on stdout and returns flag.ErrHelp (exit 0); a bad flag is
// a usageError.
func (c *cli) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.help(fs)
				return nil, err
			}
			return nil, &usageError{fs.Name(), err}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// help prints a command's usage line, sentence, further help and flags.
func (c *cli) help(fs *flag.FlagSet) {
	cmd, _ := lookupCommand(fs.Name())
	fmt.Fprintf(c.stdout, "usage: %s\n\n%s.\n", cmd.usageLine(), upperFirst(cmd.summary))
	if cmd.more != "" {
		fmt.Fprintf(c.stdout, "\n%s\n", cmd.more)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(c.stdout, "\nFlags (-name and --name alike):\n")
		fs.SetOutput(c.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// The flags shared by several commands are defined here once, so that a
// name means the same thing and parses the same way everywhere.

// seedFlag is --seed: a uint64 that remembers whether it was given.
type seedFlag struct {
	value uint64
	set   bool
}

func (s *seedFlag) String() string {
	if s == nil {
		return ""
	}
	return strconv.FormatUint(s.value, 10)
}

func (s *seedFlag) Set(v string) error {
	u, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return fmt.Errorf("want a non-negative integer below 2^64, got %q", v)
	}
	s.value, s.set = u, true
	return nil
}

func addSeed(fs *flag.FlagSet, def uint64, usage string) *seedFlag {
	s := &seedFlag{value: def}
	fs.Var(s, "seed", usage)
	return s
}

// scaleFlags are --quick and --full: every command that runs or plans a
// spec takes both, and the default is the spec's full (paper) scale.
type scaleFlags struct{ quick, full bool }

func addScale(fs *flag.FlagSet) *scaleFlags {
	s := &scaleFlags{}
	fs.BoolVar(&s.quick, "quick", false, "the spec's [quick] scale: fewer users and trials, a pipeline check")
	fs.BoolVar(&s.full, "full", false, "the spec's full (paper) scale; the default")
	return s
}

// isQuick reports the scale asked for; both flags at once is an error.
func (s *scaleFlags) isQuick(cmd string) (bool, error) {
	if s.quick && s.full {
		return false, usageErrorf(cmd, "--quick and --full: give one")
	}
	return s.quick, nil
}

// epsFlag is --eps: comma-separated privacy budgets, each finite and in
// [harness.MinEps, harness.MaxEps].
type epsFlag []float64

func (e *epsFlag) String() string {
	if e == nil {
		return ""
	}
	parts := make([]string, len(*e))
	for i, v := range *e {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (e *epsFlag) Set(list string) error {
	var eps []float64
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", f)
		}
		if math.IsNaN(v) || v < harness.MinEps || v > harness.MaxEps {
			return fmt.Errorf("%v: want a budget in [%g, %g]", v, harness.MinEps, harness.MaxEps)
		}
		eps = append(eps, v)
	}
	*e = eps
	return nil
}

func addEps(fs *flag.FlagSet, def ...float64) *epsFlag {
	e := epsFlag(def)
	fs.Var(&e, "eps", "comma-separated privacy `budgets` ε")
	return &e
}

// namesFlag is a comma-separated list of names (--mech).
type namesFlag []string

func (n *namesFlag) String() string {
	if n == nil {
		return ""
	}
	return strings.Join(*n, ",")
}

func (n *namesFlag) Set(list string) error {
	var names []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f == "" {
			return fmt.Errorf("empty name in %q", list)
		}
		names = append(names, f)
	}
	*n = names
	return nil
}

func addMech(fs *flag.FlagSet) *namesFlag {
	n := &namesFlag{}
	fs.Var(n, "mech", "comma-separated mechanism `names` (default: every registered one, as 'ldpbench list mechanisms' prints them)")
	return n
}

// wantArgs checks the number of positional arguments.
func wantArgs(cmd string, pos []string, min, max int, what string) error {
	switch {
	case max == 0 && len(pos) > 0:
		return usageErrorf(cmd, "unexpected argument %q", pos[0])
	case len(pos) == 1 && (len(pos) < min || max >= 0 && len(pos) > max):
		return usageErrorf(cmd, "want %s, got 1 argument", what)
	case len(pos) < min || max >= 0 && len(pos) > max:
		return usageErrorf(cmd, "want %s, got %d arguments", what, len(pos))
	}
	return nil
}
