package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ldpbench/ldpbench/experiment"
	"github.com/ldpbench/ldpbench/runs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, kinds, os.Args[1:], os.Stdout, os.Stderr)
	printError(os.Stderr, err)
	os.Exit(exitCode(err))
}

// run runs one command with the kinds it may use (main's are those of
// kinds.go; a test may add its own) and the shipped specs of package runs.
func run(ctx context.Context, kinds experiment.Registry, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, &cli{kinds: kinds, shipped: runs.FS, stdout: stdout, stderr: stderr}, args)
}
