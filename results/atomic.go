package results

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
)

// tempSuffix marks WriteFileAtomic's temporary files: hidden, and marked
// so that RemoveTemps finds the ones a killed process left behind.
const tempSuffix = ".ldpbench-tmp"

// WriteFileAtomic writes a file through write and renames it into place only
// when write and the flush succeed, so that a reader never sees a partial
// file and an error leaves nothing behind. The file is readable by all
// (0644), as rows.csv is.
func WriteFileAtomic(path string, write func(w *bufio.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*"+tempSuffix)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriter(tmp)
	if err = write(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// RemoveTemps removes the temporary files that WriteFileAtomic calls killed
// mid-write (SIGKILL, power loss) left in dir, and returns their names. Call
// it only while no other process writes into dir (the runner holds dir's
// lock).
func RemoveTemps(dir string) ([]string, error) {
	stale, err := filepath.Glob(filepath.Join(dir, ".*"+tempSuffix))
	if err != nil {
		return nil, err
	}
	// Earlier versions named them ".<file>.tmp<digits>".
	older, err := filepath.Glob(filepath.Join(dir, ".*.tmp[0-9]*"))
	if err != nil {
		return nil, err
	}
	stale = append(stale, older...)
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return stale, nil
}
