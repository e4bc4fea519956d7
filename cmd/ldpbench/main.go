package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ldpbench/ldpbench/experiment"
)

const usage = `usage:
  ldpbench list mechanisms|datasets|specs|kinds [-v]
  ldpbench theory [--mech a,b] [--eps 0.5,1,2]
  ldpbench run SPEC [--out DIR] [-j N] [--quick] [--seed S] [--fresh] [--shard i/N]
  ldpbench merge OUT SHARD_DIR...
  ldpbench plan SPEC [--full] [--calibrate 20s] [--cores 2] [-v]
  ldpbench regress DIR [--baseline FILE] [--alpha A] [--update-baseline --reason "..."]
  ldpbench plot SPEC|DIR [--out DIR]
  ldpbench compare DIR [--spec SPEC]
  ldpbench audit [--mech a,b] [--eps 0.5,1,2,4] [--out DIR] [--mc N] [--alpha A] [--seed S] [--strict]
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, kinds, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ldpbench:", err)
		}
		if errors.Is(err, errMoved) {
			os.Exit(1) // a regression, not a failure to run
		}
		os.Exit(2)
	}
}

// run runs one command with the kinds it may use (main's are those of
// kinds.go; a test may add its own).
func run(ctx context.Context, kinds experiment.Registry, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "list":
		return cmdList(kinds, args, stdout)
	case "theory":
		return cmdTheory(args, stdout)
	case "run":
		return cmdRun(ctx, kinds, args, stdout, stderr)
	case "regress":
		return cmdRegress(args, stdout, stderr)
	case "plan":
		return cmdPlan(ctx, kinds, args, stdout)
	case "merge":
		return cmdMerge(kinds, args, stdout, stderr)
	case "plot":
		return cmdPlot(args, stdout, stderr)
	case "compare":
		return cmdCompare(kinds, args, stdout)
	case "audit":
		return cmdAudit(ctx, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// parse parses flags that may stand before, between or after the
// positional arguments, and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
