package results

import (
	"bufio"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes a file through write and renames it into place only
// when write and the flush succeed, so that a reader never sees a partial
// file and an error leaves nothing behind.
func WriteFileAtomic(path string, write func(w *bufio.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
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
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
