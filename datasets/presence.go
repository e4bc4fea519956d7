package datasets

import (
	"path/filepath"
	"slices"
)

// EntryFiles returns the data files that the catalogue entry s needs, by
// base name: none for a generated source (beta, gaussian, uniform, a
// stand-in); for a file, its Path and then, when s is also a table of
// LoadTable (vehicle, wisdm), the files the table is read from
// (TableFiles), which kind fl reads instead of Path.
func EntryFiles(s Spec) []string {
	if s.Source != SourceFile {
		return nil
	}
	files := []string{filepath.Base(s.Path)}
	if slices.Contains(TableNames(), s.Name) {
		for _, f := range TableFiles(s.Name) {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files
}

// unobtainable says, by the data a stand-in replaces (StandinDef.Paper),
// why the real data cannot be fetched.
var unobtainable = map[string]string{
	"MIMIC-IV": "MIMIC-IV needs credentialed PhysioNet access and a data use agreement, and may not be redistributed",
	"AQUILA":   "AQUILA is not public",
}

// Unobtainable returns why the real data that the catalogue entry s stands
// in for cannot be fetched (for a substitute: the stand-ins and Beta+Sin),
// or "" when s is not a substitute.
func Unobtainable(s Spec) string {
	if s.Source == SourceStandin {
		if def, ok := LookupStandin(s.Standin); ok {
			if why, ok := unobtainable[def.Paper]; ok {
				return why
			}
		}
	}
	if s.Source == SourceBetaSin && s.Substitute {
		return "Du et al. did not publish their Beta+Sin data"
	}
	return ""
}

// FileStatus says where a data file is, or what stands in the way.
type FileStatus struct {
	// Name is the file's base name.
	Name string
	// Path is where Locate found it, as Locate returns it, and Found the
	// place (a Found constant); both are "" when the file is absent.
	Path, Found string
	// Hidden, for an absent file, is a copy in the shared data directory
	// that $LDPBENCH_NO_SHARED ([EnvNoShared]) hides from the loaders.
	Hidden string
	// Fetchable reports whether `make data` provides the file.
	Fetchable bool
}

// StatFile locates the data file name as a run would (Locate, with no
// base directory).
func StatFile(name string) FileStatus {
	st := FileStatus{Name: name, Fetchable: Fetchable(name)}
	path, found, err := Locate("", name)
	if err == nil {
		st.Path, st.Found = path, found
		return st
	}
	if noShared() {
		dirs := []string{filepath.Join("..", "shared", "data")}
		if root, ok := moduleRoot(); ok {
			dirs = append(dirs, filepath.Join(filepath.Dir(root), "shared", "data"))
		}
		for _, d := range dirs {
			if p := filepath.Join(d, name); isFile(p) {
				st.Hidden = p
				break
			}
		}
	}
	return st
}
