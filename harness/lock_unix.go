//go:build unix

package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the hidden file whose lock marks an output directory as being
// written. It stays in the directory (empty): unlinking it on unlock would
// let a third process lock a new file while a second still holds the old.
const lockFile = ".ldpbench.lock"

// lockDir takes the output directory's lock without waiting: a second run
// into the same directory is refused at once instead of interleaving its
// rows with the first's. The lock is advisory (flock), released by unlock
// or when the process dies, so a killed run never leaves it taken.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: another ldpbench run is writing into this directory; wait for it to finish, or use --out to write elsewhere", dir)
		}
		return nil, fmt.Errorf("%s: lock: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
