package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// cmdVersion prints what built the binary, as one line of key=value
// fields (the same fields a run records in its rows): the module and its
// version, the VCS revision and modified flag when the build had them, and
// the Go version and platform.
func cmdVersion(_ context.Context, c *cli, args []string) error {
	fs := c.flags("version")
	pos, err := c.parse(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs("version", pos, 0, 0, "no arguments"); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, versionLine())
	return nil
}

func versionLine() string {
	module, version, revision, modified := "github.com/ldpbench/ldpbench", "unknown", "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" {
			module, version = bi.Main.Path, bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	return fmt.Sprintf("ldpbench %s module=%s revision=%s modified=%s go=%s %s/%s",
		version, module, revision, modified, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
