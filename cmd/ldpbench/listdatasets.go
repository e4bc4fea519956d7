package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ldpbench/ldpbench/datasets"
)

// listDatasets writes `ldpbench list datasets`: the catalogue's names and,
// verbose, per entry its description, its spec and, for each file it
// needs, whether the file is there and where (data/, $LDPBENCH_DATA or the
// shared fallback, which $LDPBENCH_NO_SHARED hides), or how to get it:
// `make data`, or why it cannot be fetched. Files are looked up as a run
// looks them up (datasets.Locate), so that what the listing calls present
// is what a run in the same directory reads.
func listDatasets(w io.Writer, verbose bool) {
	for _, d := range datasets.Catalogue() {
		if !verbose {
			fmt.Fprintln(w, d.Name)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", d.Name, d.Description)
		fmt.Fprintf(w, "\tspec: %s\n", d.Key())
		files := datasets.EntryFiles(d)
		if len(files) == 0 {
			what := "generated (no file)"
			if d.Source == datasets.SourceStandin {
				what = "generated stand-in (no file)"
			}
			if why := datasets.Unobtainable(d); why != "" {
				what += "; the real data cannot be fetched: " + why
			}
			fmt.Fprintf(w, "\tdata: %s\n", what)
			continue
		}
		for _, f := range files {
			fmt.Fprintf(w, "\tfile %s: %s\n", f, fileState(datasets.StatFile(f)))
		}
	}
}

// fileState says in words where a file is, or what to do to get it.
func fileState(st datasets.FileStatus) string {
	switch {
	case st.Path == "":
	case st.Found == datasets.FoundData:
		return "present in data/ (" + st.Path + ")"
	case st.Found == datasets.FoundEnv:
		return "present in $" + datasets.EnvData + " (" + st.Path + ")"
	case st.Found == datasets.FoundShared:
		return "present in the shared fallback only (" + st.Path + "), which a user's clone lacks and " +
			datasets.EnvNoShared + "=1 hides"
	default:
		return "present (" + st.Path + ")"
	}
	var b strings.Builder
	b.WriteString("absent")
	if st.Hidden != "" {
		fmt.Fprintf(&b, " (the copy in %s is hidden: $%s is set)", st.Hidden, datasets.EnvNoShared)
	}
	if st.Fetchable {
		b.WriteString(`; run "make data" to fetch it`)
	} else {
		fmt.Fprintf(&b, `; "make data" does not fetch it: put it in data/ or a directory of $%s`, datasets.EnvData)
	}
	return b.String()
}
